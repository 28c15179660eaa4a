// Owns the LanguageClient for `comodor-lsp serve`: finds the server, starts/restarts it, keeps the
// settings flowing, and turns start failures into one clear message with a fix. Everything
// else talks to the server through `api`, which always targets the current client.
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  ClientCapabilities,
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  StaticFeature,
  TransportKind,
} from 'vscode-languageclient/node';
import { CrashBudget } from './crashBudget';
import { TRUSTED_HOVER_COMMANDS, rewriteHoverLinks } from './hoverLinks';
import { openSetting } from './openSetting';
import { MEMORY_CAPABILITY, MEMORY_NOTIFICATION, MemoryNotification } from './protocol';
import { selectedInterpreter } from './pythonExtension';
import {
  Fix,
  PYTHON_DOWNLOAD_URL,
  ServerLaunch,
  describeLaunch,
  judgeServerInfo,
  nodeResolutionDeps,
  readBundle,
  resolveServer,
} from './serverResolution';
import { ServerApi } from './serverApi';
import { buildServerSettings, explicitValue } from './settings';

export type ServerState = 'stopped' | 'starting' | 'running' | 'failed';

const CLIENT_ID = 'comodor';
const CLIENT_NAME = 'Comodor';

/** The buttons of a start problem, in the order shown; "Show Output" always comes last. */
const FIX_LABELS: Record<Fix, string> = {
  useBundled: 'Use the Bundled Server',
  openServerPath: 'Open Settings',
  openInterpreter: 'Open Settings',
  downloadPython: 'Download Python',
};
const SHOW_OUTPUT = 'Show Output';

export class ServerNotRunningError extends Error {
  constructor() {
    super("The Comodor language server isn't running. Run “Comodor: Restart Server” or check the Comodor output.");
  }
}

function serverSettings(scope?: vscode.Uri): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration('comodor', scope);
  return buildServerSettings((key) => explicitValue(config.inspect(key)));
}

/**
 * vscode-languageclient pops its own "couldn't create connection to server" toast (with
 * 'force') when start fails. We explain start failures ourselves, with the fix, so while a
 * start is in progress its errors only go to the output channel; once running, its own
 * notifications are left as they are.
 */
class ComodorLanguageClient extends LanguageClient {
  quietErrors = true;

  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    super.error(message, data, this.quietErrors ? false : showNotification);
  }
}

/**
 * Declares `capabilities.experimental.comodorMemory`: this extension shows learned rules
 * itself (notifications.ts), so the server must not also announce them with showMessage.
 */
const memoryCapability: StaticFeature = {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.experimental = { ...(capabilities.experimental ?? {}), [MEMORY_CAPABILITY]: true };
  },
  initialize(): void {},
  getState: () => ({ kind: 'static' }),
  clear(): void {},
};

export class ComodorServer implements vscode.Disposable {
  readonly output: vscode.OutputChannel;
  readonly api: ServerApi;
  private client: ComodorLanguageClient | undefined;
  private launch: ServerLaunch | undefined;
  private stateValue: ServerState = 'stopped';
  private everRunning = false;
  private readonly crashes = new CrashBudget();
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly memoryEmitter = new vscode.EventEmitter<MemoryNotification>();
  private readonly offeredEditEmitter = new vscode.EventEmitter<vscode.WorkspaceEdit>();
  private pending: Promise<boolean> | undefined;
  /** The `comodor.server.path` the user set aside with "Use the Bundled Server" (this session). */
  private bundledInsteadOf: string | undefined;

  /** Fires on every state change (starting, running, failed, stopped). */
  readonly onDidChangeState = this.stateEmitter.event;
  /** Fires for each `comodor/memory` notification, across restarts. */
  readonly onMemory = this.memoryEmitter.event;
  /** Fires with the edit of every code action the server offers (quick fixes, fix-all), so
   *  applying one is known as Comodor's own edit and never taken for an assistant's. */
  readonly onDidOfferEdit = this.offeredEditEmitter.event;

  /**
   * @param extensionPath where the extension is installed (its server is in `bundled/`)
   * @param extensionVersion this extension's version: the server must report the same one
   */
  constructor(
    private readonly extensionPath: string,
    private readonly extensionVersion: string,
  ) {
    this.output = vscode.window.createOutputChannel(CLIENT_NAME);
    this.api = new ServerApi((method, params) => {
      const client = this.client;
      if (!client || this.stateValue !== 'running') {
        return Promise.reject(new ServerNotRunningError());
      }
      return client.sendRequest(method, params);
    });
  }

  get state(): ServerState {
    return this.stateValue;
  }

  get launchOrigin(): ServerLaunch['origin'] | undefined {
    return this.launch?.origin;
  }

  /**
   * Send a notification to the running server. Nothing is queued while it is not running: a
   * (re)started server is sent every open document afresh and knows nothing of older versions.
   */
  notify(method: string, params: unknown): void {
    const client = this.client;
    if (!client || this.stateValue !== 'running') {
      return;
    }
    client.sendNotification(method, params).catch((err: unknown) => {
      this.output.appendLine(`Sending ${method}: ${String(err)}`);
    });
  }

  private setState(state: ServerState): void {
    if (state !== this.stateValue) {
      this.stateValue = state;
      void vscode.commands.executeCommand('setContext', 'comodor.serverState', state);
      this.stateEmitter.fire(state);
    }
  }

  /** Start once; concurrent callers share the same attempt. Resolves to true when running. */
  start(): Promise<boolean> {
    if (!this.pending) {
      this.pending = this.doStart().finally(() => {
        this.pending = undefined;
      });
    }
    return this.pending;
  }

  async restart(): Promise<boolean> {
    if (this.pending) {
      await this.pending;
    }
    await this.stop();
    this.crashes.reset();
    return this.start();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.dispose(2000);
      } catch (err) {
        this.output.appendLine(`Stopping the server: ${String(err)}`);
      }
    }
    this.setState('stopped');
  }

  private async doStart(): Promise<boolean> {
    this.setState('starting');
    this.everRunning = false;
    const config = vscode.workspace.getConfiguration('comodor');
    const configuredPath = config.get<string>('server.path')?.trim() || undefined;
    if (configuredPath !== this.bundledInsteadOf) {
      this.bundledInsteadOf = undefined; // the user changed the setting since: honour it
    }
    this.output.appendLine(`${vscode.env.appName} ${vscode.version}${vscode.env.remoteName ? ` (remote: ${vscode.env.remoteName})` : ''}`);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const bundle = await readBundle(path.join(this.extensionPath, 'bundled'));
    const resolution = await resolveServer(
      nodeResolutionDeps(
        {
          configuredPath,
          configuredInterpreter: config.get<string>('server.interpreter'),
          preferBundled: this.bundledInsteadOf !== undefined,
        },
        bundle,
        () => selectedInterpreter(folder),
      ),
    );
    this.output.appendLine(`Looking for the Comodor server:\n  ${resolution.tried.join('\n  ')}`);
    if (!resolution.ok) {
      this.setState('failed');
      this.showProblem('error', resolution.reason, resolution.fixes);
      return false;
    }
    this.launch = resolution.launch;
    const client = this.createClient(resolution.launch);
    this.client = client;
    this.output.appendLine(`Starting ${describeLaunch(resolution.launch)} --stdio`);
    const otherFixes: Fix[] = resolution.launch.origin === 'setting' && bundle ? ['useBundled', 'openServerPath'] : ['openServerPath'];
    try {
      await client.start();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.output.appendLine(`The server failed to start: ${why}`);
      if (this.client === client) {
        this.client = undefined;
      }
      void client.dispose(1000).catch(() => undefined);
      this.setState('failed');
      this.showProblem('error', `The Comodor language server (${describeLaunch(resolution.launch)}) failed to start.`, otherFixes);
      return false;
    }
    if (this.client !== client) {
      return false; // stopped or restarted while starting
    }
    // It answered initialize; is it ours, and the version this extension was built with?
    const info = client.initializeResult?.serverInfo;
    this.output.appendLine(`The server is ${info?.name ?? '(no name)'} ${info?.version ?? ''}`.trimEnd());
    const verdict = judgeServerInfo(info, this.extensionVersion, resolution.launch);
    if (!verdict.ok && verdict.severity === 'error') {
      this.client = undefined;
      void client.dispose(1000).catch(() => undefined);
      this.setState('failed');
      this.showProblem('error', verdict.message, otherFixes);
      return false;
    }
    if (!verdict.ok) {
      this.showProblem('warning', verdict.message, otherFixes);
    }
    this.everRunning = true;
    client.quietErrors = false;
    this.setState('running');
    return true;
  }

  /** Set `comodor.server.path` aside and run the server this extension carries. */
  async useBundledServer(): Promise<boolean> {
    const config = vscode.workspace.getConfiguration('comodor');
    this.bundledInsteadOf = config.get<string>('server.path')?.trim() || undefined;
    try {
      await config.update('server.path', undefined, vscode.ConfigurationTarget.Global);
      this.bundledInsteadOf = vscode.workspace.getConfiguration('comodor').get<string>('server.path')?.trim() || undefined;
    } catch (err) {
      // Set somewhere we cannot write (a remote's machine settings): use the bundle this session.
      this.output.appendLine(`Could not clear comodor.server.path: ${String(err)}`);
    }
    return this.restart();
  }

  private createClient(launch: ServerLaunch): ComodorLanguageClient {
    const serverOptions: ServerOptions = {
      command: launch.command,
      args: launch.args,
      transport: TransportKind.stdio, // the client appends `--stdio`; the server accepts it
    };
    let client: ComodorLanguageClient | undefined = undefined;
    const clientOptions: LanguageClientOptions = {
      // Every file: house rules and corrections are not tied to one language.
      documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // Hover Markdown may run only the extension's own rule commands (see hoverLinks.ts).
      markdown: { isTrusted: { enabledCommands: [...TRUSTED_HOVER_COMMANDS] }, supportHtml: false },
      initializationOptions: serverSettings(vscode.workspace.workspaceFolders?.[0]?.uri),
      // Sends workspace/didChangeConfiguration when `comodor.*` changes; the server then pulls.
      synchronize: { configurationSection: 'comodor' },
      middleware: {
        provideHover: async (document, position, token, next) => {
          const hover = await next(document, position, token);
          if (!hover) {
            return hover;
          }
          const contents = hover.contents.map((c) => {
            if (!(c instanceof vscode.MarkdownString)) {
              return c;
            }
            const md = new vscode.MarkdownString(rewriteHoverLinks(c.value), c.supportThemeIcons);
            md.isTrusted = { enabledCommands: [...TRUSTED_HOVER_COMMANDS] };
            return md;
          });
          return new vscode.Hover(contents, hover.range);
        },
        provideCodeActions: async (document, range, context, token, next) => {
          const actions = await next(document, range, context, token);
          this.noteOffered(actions);
          return actions;
        },
        resolveCodeAction: async (item, token, next) => {
          const resolved = await next(item, token);
          this.noteOffered(resolved ? [resolved] : undefined);
          return resolved;
        },
        workspace: {
          // Answer pulls of section `comodor` with the same shape as initializationOptions
          // (client-only keys dropped, empty brainPath omitted); other sections pass through.
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (!Array.isArray(answers)) {
              return answers;
            }
            return params.items.map((item, i) =>
              item.section === 'comodor'
                ? serverSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined)
                : answers[i],
            );
          },
          didChangeConfiguration: async () => {
            await client?.sendNotification(DidChangeConfigurationNotification.type, {
              settings: { comodor: serverSettings(vscode.workspace.workspaceFolders?.[0]?.uri) },
            });
          },
        },
      },
      initializationFailedHandler: (error) => {
        this.output.appendLine(`Server initialization failed: ${String(error?.message ?? error)}`);
        return false; // no retry loop; doStart reports it
      },
      errorHandler: {
        // While starting, a dead server shows up as write errors (EPIPE) before the close;
        // let the close handler and doStart report it once instead of shutting down twice.
        error: (_error, _message, count) =>
          !this.everRunning || (count !== undefined && count <= 3)
            ? { action: ErrorAction.Continue, handled: true }
            : { action: ErrorAction.Shutdown, handled: true },
        closed: () => {
          if (!this.everRunning) {
            return { action: CloseAction.DoNotRestart, handled: true }; // doStart reports it
          }
          if (this.crashes.allowRestart(Date.now())) {
            this.output.appendLine('The Comodor server stopped unexpectedly; restarting it.');
            return { action: CloseAction.Restart, handled: true };
          }
          this.setState('failed');
          void this.showCrashError();
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
    };
    client = new ComodorLanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
    client.registerFeature(memoryCapability);
    client.onNotification(MEMORY_NOTIFICATION, (params: MemoryNotification) => {
      if (params && typeof params.action === 'string') {
        this.memoryEmitter.fire(params);
      }
    });
    client.onDidChangeState((e) => {
      // Automatic restarts after a crash go Running → Starting → Running without doStart.
      if (this.client !== client || !this.everRunning) {
        return;
      }
      if (e.newState === State.Running) {
        this.setState('running');
      } else if (e.newState === State.Starting) {
        this.setState('starting');
      }
    });
    return client;
  }

  private noteOffered(actions: readonly (vscode.Command | vscode.CodeAction)[] | null | undefined): void {
    for (const action of actions ?? []) {
      const edit = (action as vscode.CodeAction).edit;
      if (edit instanceof vscode.WorkspaceEdit) {
        this.offeredEditEmitter.fire(edit);
      }
    }
  }

  private showProblem(severity: 'error' | 'warning', message: string, fixes: Fix[]): void {
    const labels = [...new Set(fixes.map((f) => FIX_LABELS[f])), SHOW_OUTPUT];
    const show = severity === 'error' ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
    void show(message, ...labels).then((choice) => {
      const fix = fixes.find((f) => FIX_LABELS[f] === choice);
      if (fix === 'useBundled') {
        void this.useBundledServer();
      } else if (fix === 'openServerPath') {
        void openSetting('comodor.server.path');
      } else if (fix === 'openInterpreter') {
        void openSetting('comodor.server.interpreter');
      } else if (fix === 'downloadPython') {
        void vscode.env.openExternal(vscode.Uri.parse(PYTHON_DOWNLOAD_URL));
      } else if (choice === SHOW_OUTPUT) {
        this.output.show(true);
      }
    });
  }

  private async showCrashError(): Promise<void> {
    const choice = await vscode.window.showErrorMessage(
      'The Comodor language server keeps stopping, so it was not restarted again.',
      'Restart Server',
      SHOW_OUTPUT,
    );
    if (choice === 'Restart Server') {
      await this.restart();
    } else if (choice === SHOW_OUTPUT) {
      this.output.show(true);
    }
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
    this.memoryEmitter.dispose();
    this.offeredEditEmitter.dispose();
    this.output.dispose();
  }
}
