// The package.json contract with VS Code and vscode-languageclient.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { ServerCommand } from '../src/protocol';

const root = path.join(__dirname, '..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const source = readdirSync(path.join(root, 'src'), { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(path.join(root, 'src', f), 'utf8'))
  .join('\n');

function versionTuple(v: string): number[] {
  return v.replace(/^[\^~]/, '').split('.').map(Number);
}

test('never contributes a server command id (vscode-languageclient registers those)', () => {
  const serverIds = new Set<string>(Object.values(ServerCommand));
  for (const c of manifest.contributes.commands) {
    assert.ok(!serverIds.has(c.command), c.command);
    assert.match(c.command, /^comodor\.ui\./);
    assert.equal(c.category, 'Comodor');
  }
  assert.doesNotMatch(source, /registerCommand\(\s*['"]comodor\.(?!ui\.)/);
});

test('every contributed command is registered and every registered one contributed', () => {
  const contributed = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
  const registered = [...source.matchAll(/reg\('(comodor\.ui\.[A-Za-z]+)'/g)].map((m) => m[1]).sort();
  assert.deepEqual(registered, contributed);
});

test('the palette has the issue commands', () => {
  const titles = manifest.contributes.commands.map((c: { title: string }) => c.title);
  for (const t of ['Teach a Lesson', 'Teach a House Rule', 'Forget…', 'Pin/Unpin', 'Show Playbook for…', 'Export House Rules',
    'Show Progress', 'This Helped', "This Didn't Help", 'Restart Server']) {
    assert.ok(titles.includes(t), t);
  }
});

test('runs on VS Code 1.100 (code-server 4.100.3) and @types/vscode is not newer than engines', () => {
  const engine = versionTuple(manifest.engines.vscode);
  assert.ok(manifest.engines.vscode.startsWith('^'));
  assert.equal(engine[0], 1);
  assert.ok(engine[1] <= 100, `engines.vscode ${manifest.engines.vscode} excludes 1.100`);
  const types = versionTuple(manifest.devDependencies['@types/vscode']);
  assert.ok(types[1] <= engine[1], '@types/vscode newer than engines.vscode (vsce refuses)');
});

test('language model tools are the server agent tools, each with its input schema', () => {
  const tools = manifest.contributes.languageModelTools as Array<{ name: string; inputSchema: { required: string[] } }>;
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.deepEqual(byName.comodor_playbook.inputSchema.required, ['query']);
  assert.deepEqual(byName.comodor_end_task.inputSchema.required, ['taskId', 'success']);
  assert.deepEqual(byName.comodor_begin_task.inputSchema.required, ['goal']);
  // registered from the manifest itself and run on the server through comodor.tool
  assert.match(source, /manifest\.contributes\.languageModelTools/);
  assert.match(source, /api\.tool\(tool\.name/);
});

test('views and their icon exist', () => {
  const views = manifest.contributes.views.comodor.map((v: { id: string }) => v.id);
  assert.deepEqual(views, ['comodor.rules', 'comodor.lessons', 'comodor.corrections']);
  const icon = manifest.contributes.viewsContainers.activitybar[0].icon;
  assert.match(readFileSync(path.join(root, icon), 'utf8'), /<svg[^>]*viewBox="0 0 24 24"/);
});

test('each view has its own icon, a codicon or a file that exists', () => {
  const icons = manifest.contributes.views.comodor.map((v: { icon: string }) => v.icon);
  assert.equal(new Set(icons).size, icons.length, `views share an icon: ${icons.join(', ')}`);
  for (const icon of icons) {
    if (!/^\$\([a-z0-9-]+\)$/.test(icon)) {
      assert.ok(readFileSync(path.join(root, icon)).length > 0, icon);
    }
  }
});

test('the Marketplace listing has an icon and keywords, and no link to an address nobody owns', () => {
  const png = readFileSync(path.join(root, manifest.icon));
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'icon is not a PNG');
  const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
  assert.ok(width >= 128 && width === height, `icon is ${width}×${height}; the Marketplace wants ≥ 128×128, square`);
  // The project has no public home yet: a made-up repository, homepage or bugs link would send
  // users nowhere. Add them (all three, one address) when it has one.
  const links = [manifest.repository?.url, manifest.homepage, manifest.bugs?.url].filter(Boolean);
  assert.ok(links.length === 0 || links.length === 3, `links: ${links.join(', ')}`);
  assert.ok(manifest.keywords.length >= 3 && manifest.keywords.length <= 30, 'vsce allows at most 30 keywords');
  assert.ok(manifest.categories.includes('AI'));
  // vsce packages only what .vscodeignore lets through: the icon and the walkthrough's pages too
  assert.match(readFileSync(path.join(root, '.vscodeignore'), 'utf8'), /^!media\/\*\*$/m);
});

test('the walkthrough teaches a rule, shows it on hover, fixes a squiggle and reads progress', () => {
  const [walkthrough] = manifest.contributes.walkthroughs;
  const steps = walkthrough.steps as Array<{
    id: string; title: string; description: string; media: { markdown: string }; completionEvents: string[];
  }>;
  assert.deepEqual(steps.map((s) => s.id), ['teachRule', 'hover', 'fixSquiggle', 'readProgress']);
  const commands = new Set(manifest.contributes.commands.map((c: { command: string }) => c.command));
  const views = new Set(manifest.contributes.views.comodor.map((v: { id: string }) => v.id));
  for (const step of steps) {
    const page = readFileSync(path.join(root, step.media.markdown), 'utf8');
    assert.match(page, /^# /, `${step.media.markdown} has no title`);
    for (const [, command] of step.description.matchAll(/\(command:([\w.]+)\)/g)) {
      assert.ok(commands.has(command) || views.has(command.replace(/\.focus$/, '')), `${step.id}: ${command}`);
    }
    for (const event of step.completionEvents) {
      const [kind, id] = event.split(':');
      assert.ok(kind === 'onCommand' ? commands.has(id) : kind === 'onView' && views.has(id), `${step.id}: ${event}`);
    }
  }
});

test("the extension README names exactly the manifest's agent tools", () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const named = new Set([...readme.matchAll(/`(comodor_[A-Za-z_]+)`/g)].map((m) => m[1]));
  const tools = new Set((manifest.contributes.languageModelTools as Array<{ name: string }>).map((t) => t.name));
  assert.deepEqual([...named].sort(), [...tools].sort());
});

test('each agent tool has its own icon', () => {
  const tools = manifest.contributes.languageModelTools as Array<{ name: string; icon: string }>;
  const icons = tools.map((t) => t.icon);
  assert.equal(new Set(icons).size, icons.length, icons.join(' '));
  for (const icon of icons) {
    assert.match(icon, /^\$\([a-z0-9-]+\)$/);
  }
});

test("Tab is Comodor's only while VS Code's own Tab would accept ghost text", () => {
  const tab = manifest.contributes.keybindings.filter((k: { key: string }) => k.key === 'tab');
  assert.equal(tab.length, 1);
  assert.equal(tab[0].command, 'comodor.ui.acceptInlineSuggestion');
  assert.match(source, /ACCEPT_INLINE_COMMAND = 'comodor\.ui\.acceptInlineSuggestion'/);
  // every condition of editor.action.inlineSuggest.commit's own binding (code-server 4.100 and 4.139)
  const when = tab[0].when.split(' && ');
  for (const c of ['inlineSuggestionVisible', '!editorTabMovesFocus', '!suggestWidgetVisible', '!editorHoverFocused',
    '!editor.hasSelection', 'inlineSuggestionHasIndentationLessThanTabSize']) {
    assert.ok(when.includes(c), c);
  }
  assert.doesNotMatch(tab[0].when, /\|\|/);
});
