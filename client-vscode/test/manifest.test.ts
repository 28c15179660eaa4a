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
