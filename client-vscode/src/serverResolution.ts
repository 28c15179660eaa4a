// Where is the Comodor language server? Decides the command line for `comodor-lsp serve`.
// Order: the `comodor.server.path` setting (a `comodor` executable or a Python interpreter),
// then the interpreter selected in the Python extension, then `comodor` on PATH.
// No `vscode` import: the VS Code-specific inputs (setting value, Python extension lookup)
// come in through `ResolutionDeps`, so this is unit-tested with fakes.
import { execFile } from 'node:child_process';
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export type ServerOrigin = 'setting' | 'python-extension' | 'path';

export interface ServerLaunch {
  command: string;
  /** Without `--stdio`: vscode-languageclient appends it for TransportKind.stdio. */
  args: string[];
  origin: ServerOrigin;
}

export type Resolution =
  | { ok: true; launch: ServerLaunch; tried: string[] }
  | { ok: false; tried: string[]; reason: string };

export interface ResolutionDeps {
  /** Value of `comodor.server.path` ('' or undefined when unset). */
  configuredPath: string | undefined;
  /** Interpreter chosen in the Python extension, if that extension is installed. */
  pythonExtensionInterpreter: () => Promise<string | undefined>;
  which: (name: string) => Promise<string | undefined>;
  isExecutable: (file: string) => Promise<boolean>;
  /** Resolves to undefined when `import comodor` works, else a short reason. */
  checkComodorImport: (python: string) => Promise<string | undefined>;
  homedir?: string;
}

// Plain text: notifications show Markdown backticks literally.
export const INSTALL_HINT = 'Install it with “pip install comodor-lsp”, or set comodor.server.path.';

/** `python`, `python3`, `python3.11`, `pythonw.exe`, `pypy3`… are interpreters; anything else
 *  is taken to be the `comodor` executable. */
export function isPythonInterpreter(file: string): boolean {
  // Split on both separators: a Windows path typed into settings must work everywhere.
  const base = (file.split(/[\\/]/).pop() ?? '').toLowerCase();
  return /^(python|pypy)[0-9.]*w?(\.exe)?$/.test(base);
}

export function expandHome(file: string, home: string): string {
  if (file === '~') {
    return home;
  }
  if (file.startsWith('~/') || file.startsWith('~\\')) {
    return path.join(home, file.slice(2));
  }
  return file;
}

export function launchFor(file: string, origin: ServerOrigin): ServerLaunch {
  return isPythonInterpreter(file)
    ? { command: file, args: ['-m', 'comodor_lsp', 'serve'], origin }
    : { command: file, args: ['serve'], origin };
}

/** How the launch reads in messages, e.g. `/usr/bin/python3 -m comodor_lsp serve`. */
export function describeLaunch(launch: ServerLaunch): string {
  return [launch.command, ...launch.args].join(' ');
}

async function usable(file: string, deps: ResolutionDeps): Promise<string | undefined> {
  if (!(await deps.isExecutable(file))) {
    return 'not an executable file';
  }
  if (isPythonInterpreter(file)) {
    return deps.checkComodorImport(file);
  }
  return undefined;
}

export async function resolveServer(deps: ResolutionDeps): Promise<Resolution> {
  const tried: string[] = [];
  const configured = deps.configuredPath?.trim();
  if (configured) {
    // An explicit setting is the user's decision: do not silently fall back to something else.
    const file = expandHome(configured, deps.homedir ?? os.homedir());
    const problem = await usable(file, deps);
    if (problem === undefined) {
      tried.push(`comodor.server.path: ${file}`);
      return { ok: true, launch: launchFor(file, 'setting'), tried };
    }
    tried.push(`comodor.server.path: ${file} (${problem})`);
    return { ok: false, tried, reason: `comodor.server.path is set to ${file}, which is ${problem}.` };
  }

  let interpreter: string | undefined;
  try {
    interpreter = await deps.pythonExtensionInterpreter();
  } catch (err) {
    tried.push(`Python extension: ${String(err)}`);
  }
  if (interpreter) {
    const problem = await usable(interpreter, deps);
    if (problem === undefined) {
      tried.push(`Python extension interpreter: ${interpreter}`);
      return { ok: true, launch: launchFor(interpreter, 'python-extension'), tried };
    }
    tried.push(`Python extension interpreter: ${interpreter} (${problem})`);
  }

  const onPath = await deps.which('comodor-lsp');
  if (onPath) {
    tried.push(`PATH: ${onPath}`);
    return { ok: true, launch: launchFor(onPath, 'path'), tried };
  }
  tried.push('PATH: no `comodor-lsp` executable');
  return { ok: false, tried, reason: "Comodor couldn't find its language server." };
}

// ---- Node implementations of the dependencies -------------------------------------------

export async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) {
      return false;
    }
    if (process.platform !== 'win32') {
      await fs.access(file, fsConstants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

export function makeWhich(envPath: string | undefined, pathExt: string | undefined) {
  const dirs = (envPath ?? '').split(path.delimiter).filter(Boolean);
  const exts = process.platform === 'win32' ? (pathExt ?? '.EXE;.CMD;.BAT').split(';') : [''];
  return async (name: string): Promise<string | undefined> => {
    for (const dir of dirs) {
      for (const ext of exts) {
        const candidate = path.join(dir, name + ext);
        if (await isExecutableFile(candidate)) {
          return candidate;
        }
      }
    }
    return undefined;
  };
}

/** Runs `<python> -c "import comodor"`; a missing package is the common failure. */
export function checkComodorImport(python: string, timeoutMs = 15000): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(python, ['-c', 'import comodor_lsp'], { timeout: timeoutMs }, (err, _stdout, stderr) => {
      if (!err) {
        resolve(undefined);
        return;
      }
      const lastLine = String(stderr).trim().split(/\r?\n/).pop();
      resolve(lastLine ? `cannot import comodor_lsp: ${lastLine}` : `cannot import comodor_lsp: ${err.message}`);
    });
  });
}

export function nodeResolutionDeps(
  configuredPath: string | undefined,
  pythonExtensionInterpreter: () => Promise<string | undefined>,
): ResolutionDeps {
  return {
    configuredPath,
    pythonExtensionInterpreter,
    which: makeWhich(process.env.PATH, process.env.PATHEXT),
    isExecutable: isExecutableFile,
    checkComodorImport: (python) => checkComodorImport(python),
  };
}
