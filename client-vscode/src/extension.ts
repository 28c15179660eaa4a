// Wiring only: create the pieces, connect their events, register commands and views.
import * as vscode from 'vscode';
import { ASSISTANT_EDIT_NOTIFICATION } from './attribution';
import { AssistantEdits } from './assistantEdits';
import { registerCommands } from './commands';
import { debounce } from './debounce';
import { ComodorServer } from './languageServer';
import { registerLanguageModelTools } from './lmTools';
import { MemoryNotifications } from './notifications';
import { PLAYBOOK_SCHEME, PlaybookDocuments } from './playbookDocument';
import type { Rule } from './protocol';
import { ProgressView } from './progressView';
import { onInterpreterChanged } from './pythonExtension';
import { StatusBar } from './statusBar';
import { CorrectionsView } from './views/correctionsView';
import { LessonsView } from './views/lessonsView';
import { RulesView } from './views/rulesView';

let server: ComodorServer | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  void vscode.commands.executeCommand('setContext', 'comodor.serverState', 'starting');
  const srv = new ComodorServer(context.extensionPath, String(context.extension.packageJSON.version));
  server = srv;
  const rules = new RulesView(srv);
  const lessons = new LessonsView(srv);
  const corrections = new CorrectionsView();
  const statusBar = new StatusBar(srv);
  const progress = new ProgressView(srv);
  const playbooks = new PlaybookDocuments();
  const rulesTree = vscode.window.createTreeView('comodor.rules', { treeDataProvider: rules, showCollapseAll: false });

  const refreshViews = () => {
    rules.refresh();
    lessons.refresh();
    void statusBar.refreshCounts();
    void progress.refresh();
  };
  const showRule = async (rule: Rule) => {
    await vscode.commands.executeCommand('comodor.rules.focus');
    try {
      await rulesTree.reveal(rule, { select: true, focus: true });
    } catch {
      // The tree may not have loaded the rule yet; focusing the view is still useful.
    }
  };
  // Assistant edits change the agent-write counts in the status bar's tooltip.
  const recountSoon = debounce(() => void statusBar.refreshCounts(), 2000);
  const assistantEdits = new AssistantEdits(
    (params) => {
      srv.notify(ASSISTANT_EDIT_NOTIFICATION, params);
      recountSoon();
    },
    (line) => srv.output.appendLine(line),
  );
  const notifications = new MemoryNotifications(srv, {
    refreshViews,
    addCorrection: (e) => corrections.add({ ...e, at: new Date() }),
    recalled: (n) => statusBar.recalled(n),
    showRule,
  });

  context.subscriptions.push(
    srv,
    rules,
    lessons,
    corrections,
    statusBar,
    progress,
    playbooks,
    notifications,
    assistantEdits,
    srv.onDidOfferEdit((edit) => assistantEdits.offered(edit)),
    { dispose: () => recountSoon.cancel() },
    rulesTree,
    vscode.window.registerTreeDataProvider('comodor.lessons', lessons),
    vscode.window.registerTreeDataProvider('comodor.corrections', corrections),
    vscode.workspace.registerTextDocumentContentProvider(PLAYBOOK_SCHEME, playbooks),
    srv.onDidChangeState(() => refreshViews()),
    ...registerCommands({ server: srv, notifications, playbooks, progress, corrections, refreshViews }),
    ...registerLanguageModelTools(srv),
  );

  // Where the server comes from, and the settings only initializationOptions may carry (the
  // brain's location, the model endpoint, the files it writes), are read at start; a change
  // there needs a restart.
  const restartSoon = debounce(() => void srv.restart(), 500);
  const startOnly = ['comodor.server.path', 'comodor.server.interpreter', 'comodor.brainPath', 'comodor.reflect', 'comodor.sync.targets'];
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (startOnly.some((section) => e.affectsConfiguration(section))) {
        restartSoon();
      }
    }),
  );
  void onInterpreterChanged(() => {
    if (srv.launchOrigin === 'bundled' || srv.state === 'failed') {
      restartSoon();
    }
  }).then((d) => d && context.subscriptions.push(d));

  // Do not block activation on the server: views and commands are usable (and explain
  // themselves) while it starts.
  void srv.start();
}

export function deactivate(): Promise<void> | undefined {
  return server?.stop();
}
