// Palette and view commands. All ids are `comodor.ui.*`: the server's own `comodor.*` command
// ids are registered by vscode-languageclient, and registering them here would collide.
import * as vscode from 'vscode';
import { lessonDescription, lessonText, ruleDescription, statusText, truncate } from './format';
import { ruleIdArgument } from './hoverLinks';
import type { ComodorServer } from './languageServer';
import type { MemoryNotifications } from './notifications';
import { openSetting } from './openSetting';
import type { PlaybookDocuments } from './playbookDocument';
import type { ProgressView } from './progressView';
import { FIX_ALL_KIND, type Lesson, type Rule } from './protocol';
import type { CorrectionsView } from './views/correctionsView';

export interface CommandDeps {
  server: ComodorServer;
  notifications: MemoryNotifications;
  playbooks: PlaybookDocuments;
  progress: ProgressView;
  corrections: CorrectionsView;
  refreshViews(): void;
}

type MemoryPick = vscode.QuickPickItem & { lesson?: Lesson; rule?: Rule };

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Wrap a command so a failure becomes one readable error toast instead of a silent rejection. */
function guarded<A extends unknown[]>(fn: (...args: A) => Promise<unknown>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      void vscode.window.showErrorMessage(`Comodor: ${errorText(err)}`);
    }
  };
}

async function pickMemory(
  deps: CommandDeps,
  title: string,
  placeHolder: string,
  decorate: (p: MemoryPick) => MemoryPick = (p) => p,
): Promise<MemoryPick | undefined> {
  const [rules, lessons] = await Promise.all([deps.server.api.rules(true), deps.server.api.lessons('', 200)]);
  const items: MemoryPick[] = [];
  if (rules.length) {
    items.push({ label: 'House rules', kind: vscode.QuickPickItemKind.Separator });
    for (const rule of rules) {
      items.push(decorate({ label: `$(law) ${rule.statement}`, description: ruleDescription(rule), rule }));
    }
  }
  if (lessons.length) {
    items.push({ label: 'Lessons', kind: vscode.QuickPickItemKind.Separator });
    for (const lesson of lessons) {
      items.push(
        decorate({
          label: `$(lightbulb) ${truncate(lessonText(lesson), 100)}`,
          description: lessonDescription(lesson),
          lesson,
        }),
      );
    }
  }
  if (!items.length) {
    void vscode.window.showInformationMessage('Comodor has no lessons or house rules yet.');
    return undefined;
  }
  return vscode.window.showQuickPick(items, { title, placeHolder, matchOnDescription: true });
}

function validateLength(max: number) {
  return (value: string) => {
    const n = value.trim().length;
    if (n === 0) {
      return 'Type something for Comodor to remember.';
    }
    return n > max ? `At most ${max} characters (this is ${n}).` : undefined;
  };
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const { server } = deps;
  const api = server.api;

  const teachLesson = async () => {
    const text = await vscode.window.showInputBox({
      title: 'Comodor: Teach a Lesson',
      prompt: 'What should your assistant remember? Use “when: what to do”, or just what to do.',
      placeHolder: 'running the tests: use `pytest -q -x`',
      validateInput: validateLength(2000),
      ignoreFocusOut: true,
    });
    if (!text?.trim()) {
      return;
    }
    const { lesson } = await api.teach(text.trim());
    deps.refreshViews();
    void vscode.window.showInformationMessage(`Lesson saved: ${truncate(lessonText(lesson), 120)}`);
  };

  const teachRule = async () => {
    const statement = await vscode.window.showInputBox({
      title: 'Comodor: Teach a House Rule',
      prompt: 'One instruction your assistant should always follow in this project.',
      placeHolder: 'Use single quotes for strings.',
      validateInput: validateLength(2000),
      ignoreFocusOut: true,
    });
    if (!statement?.trim()) {
      return;
    }
    const rule = await deps.notifications.teachRule(statement.trim());
    deps.refreshViews();
    void vscode.window.showInformationMessage(`House rule added: ${rule.statement}`);
  };

  const forget = async () => {
    const pick = await pickMemory(deps, 'Comodor: Forget…', 'Pick a lesson or house rule to forget');
    if (pick?.rule) {
      const { removed } = await api.forgetRule(pick.rule.id);
      deps.notifications.forgotRule(pick.rule.id);
      void vscode.window.showInformationMessage(removed ? `Forgot: ${pick.rule.statement}` : 'That rule was already gone.');
    } else if (pick?.lesson) {
      const { removed } = await api.forget(pick.lesson.id);
      void vscode.window.showInformationMessage(
        removed ? `Forgot: ${truncate(lessonText(pick.lesson), 100)}` : 'That lesson was already gone.',
      );
    }
    deps.refreshViews();
  };

  const pinUnpin = async () => {
    const pick = await pickMemory(deps, 'Comodor: Pin/Unpin', 'Pinned memories are always recalled and never decay', (p) => {
      const pinned = p.rule?.pinned ?? p.lesson?.pinned ?? false;
      return { ...p, detail: pinned ? '$(pinned) Pinned — pick to unpin' : 'Pick to pin' };
    });
    if (pick?.rule) {
      await api.setRule(pick.rule.id, { pinned: !pick.rule.pinned });
    } else if (pick?.lesson) {
      await api.pin(pick.lesson.id, !pick.lesson.pinned);
    }
    deps.refreshViews();
  };

  const showPlaybook = async () => {
    const query = await vscode.window.showInputBox({
      title: 'Comodor: Show Playbook for…',
      prompt: 'A request as you would give it to your assistant',
      placeHolder: 'add a --verbose flag to the CLI',
      validateInput: validateLength(2000),
    });
    if (!query?.trim()) {
      return;
    }
    await deps.playbooks.show(query.trim(), await api.playbook(query.trim()));
  };

  const exportRules = async () => {
    const { path } = await api.exportRules();
    const choice = await vscode.window.showInformationMessage(`House rules exported to ${path}`, 'Open');
    if (choice === 'Open') {
      await vscode.window.showTextDocument(vscode.Uri.file(path));
    }
  };

  const feedback = (good: boolean) => async () => {
    const { credited } = await api.feedback(good);
    const what = `${credited} lesson${credited === 1 ? '' : 's'}`;
    void vscode.window.showInformationMessage(
      good ? `Thanks — ${what} from the last task got credit.` : `Noted — ${what} from the last task will count for less.`,
    );
    deps.refreshViews();
  };

  // Tree item actions (inline buttons in House Rules / Lessons).
  const forgetRuleItem = async (rule: Rule) => {
    const ok = await vscode.window.showWarningMessage(`Forget the house rule “${rule.statement}”?`, { modal: true }, 'Forget');
    if (ok === 'Forget') {
      await api.forgetRule(rule.id);
      deps.notifications.forgotRule(rule.id);
      deps.refreshViews();
    }
  };
  const setRule = (change: { pinned?: boolean; active?: boolean }) => async (rule: Rule) => {
    await api.setRule(rule.id, change);
    deps.refreshViews();
  };
  // Targets of the hover's links (hoverLinks.ts): same confirmation and refresh as the tree.
  const forgetRuleById = async (arg: unknown) => {
    const target = ruleIdArgument(arg);
    if (!target) {
      return;
    }
    const rule = (await api.rules(true)).find((r) => r.id === target.id);
    if (!rule) {
      void vscode.window.showInformationMessage('That house rule was already gone.');
      deps.refreshViews();
      return;
    }
    await forgetRuleItem(rule);
  };
  const setRuleById = async (arg: unknown) => {
    const target = ruleIdArgument(arg);
    if (!target || (target.pinned === undefined && target.active === undefined)) {
      return;
    }
    const { pinned, active } = target;
    await api.setRule(target.id, { pinned, active });
    deps.refreshViews();
    const what = pinned === true ? 'Pinned' : pinned === false ? 'Unpinned' : active ? 'Enabled' : 'Disabled';
    vscode.window.setStatusBarMessage(`$(law) ${what} the house rule`, 4000);
  };
  const showStatus = async () => {
    const choice = await vscode.window.showInformationMessage(statusText(await api.stats()), 'Show House Rules');
    if (choice === 'Show House Rules') {
      await vscode.commands.executeCommand('comodor.rules.focus');
    }
  };
  const forgetLessonItem = async (lesson: Lesson) => {
    const ok = await vscode.window.showWarningMessage(
      `Forget the lesson “${truncate(lessonText(lesson), 100)}”?`,
      { modal: true },
      'Forget',
    );
    if (ok === 'Forget') {
      await api.forget(lesson.id);
      deps.refreshViews();
    }
  };
  const pinLesson = (pinned: boolean) => async (lesson: Lesson) => {
    await api.pin(lesson.id, pinned);
    deps.refreshViews();
  };

  // The server offers `source.fixAll.comodor` for the document; apply it without a menu.
  const fixAll = async () => {
    if (!vscode.window.activeTextEditor) {
      void vscode.window.showInformationMessage('Open a file to fix its Comodor issues.');
      return;
    }
    await vscode.commands.executeCommand('editor.action.sourceAction', {
      kind: FIX_ALL_KIND,
      apply: 'first',
    });
  };

  const reg = (id: string, fn: (...args: never[]) => Promise<unknown>) =>
    vscode.commands.registerCommand(id, guarded(fn as (...args: unknown[]) => Promise<unknown>));

  return [
    reg('comodor.ui.teachLesson', teachLesson),
    reg('comodor.ui.teachRule', teachRule),
    reg('comodor.ui.fixAll', fixAll),
    reg('comodor.ui.forget', forget),
    reg('comodor.ui.pin', pinUnpin),
    reg('comodor.ui.showPlaybook', showPlaybook),
    reg('comodor.ui.exportRules', exportRules),
    reg('comodor.ui.showProgress', () => deps.progress.show()),
    reg('comodor.ui.feedbackGood', feedback(true)),
    reg('comodor.ui.feedbackBad', feedback(false)),
    reg('comodor.ui.restartServer', () => server.restart()),
    reg('comodor.ui.showOutput', async () => server.output.show()),
    reg('comodor.ui.openServerSettings', () => openSetting('comodor.server.path')),
    reg('comodor.ui.refresh', async () => deps.refreshViews()),
    reg('comodor.ui.clearCorrections', async () => deps.corrections.clear()),
    reg('comodor.ui.forgetRuleItem', forgetRuleItem),
    reg('comodor.ui.pinRuleItem', setRule({ pinned: true })),
    reg('comodor.ui.unpinRuleItem', setRule({ pinned: false })),
    reg('comodor.ui.disableRuleItem', setRule({ active: false })),
    reg('comodor.ui.enableRuleItem', setRule({ active: true })),
    reg('comodor.ui.forgetRuleById', forgetRuleById),
    reg('comodor.ui.setRuleById', setRuleById),
    reg('comodor.ui.showStatus', showStatus),
    reg('comodor.ui.forgetLessonItem', forgetLessonItem),
    reg('comodor.ui.pinLessonItem', pinLesson(true)),
    reg('comodor.ui.unpinLessonItem', pinLesson(false)),
  ];
}
