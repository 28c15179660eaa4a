// Which Comodor language server to run, and with which Python. No `vscode` import: the
// VS Code-specific inputs (settings, the Python extension) come in through `ResolutionDeps`,
// so this is unit-tested with fakes (test/serverResolution.test.ts).
//
// Order:
// 1. `comodor.server.path`, when set: a `comodor-lsp` executable, or a Python that has the
//    `comodor-lsp` package installed. It is the user's decision, so nothing else is tried, but
//    it must prove it is our server: `--version` must name `comodor-lsp` (PyPI's `comodor` is
//    a different program whose `import comodor` works too).
// 2. The server bundled in the extension (`bundled/`), run by a Python ≥ 3.11:
//    `comodor.server.interpreter`, else the interpreter selected in the Python extension,
//    else `python3`, `python`, `python3.14` … `python3.11` on PATH. Too old ones are skipped.
// 3. Only in a build without a bundle (development): `comodor-lsp` on PATH.
import { execFile } from 'node:child_process';
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const SERVER_NAME = 'comodor-lsp';
export const MIN_PYTHON: readonly [number, number] = [3, 11];
export const PYTHON_DOWNLOAD_URL = 'https://www.python.org/downloads/';

export type ServerOrigin = 'setting' | 'bundled' | 'path';

export interface ServerLaunch {
  command: string;
  /** Without `--stdio`: vscode-languageclient appends it for TransportKind.stdio. */
  args: string[];
  origin: ServerOrigin;
}

/** One-click fixes a failure offers; the extension turns them into buttons. */
export type Fix = 'useBundled' | 'openServerPath' | 'openInterpreter' | 'downloadPython';

export type Resolution =
  | { ok: true; launch: ServerLaunch; tried: string[] }
  | { ok: false; tried: string[]; reason: string; fixes: Fix[] };

/** What `bundled/manifest.json` says about the server the VSIX carries. */
export interface BundleManifest {
  name: string;
  version: string;
  target: string;
  /** Python versions ("3.12") the bundle has binary parts for; empty: any version ≥ 3.11. */
  pythons: string[];
}

export interface Bundle {
  /** `<extension>/bundled`. */
  root: string;
  manifest: BundleManifest;
}

export type PythonProbe = { version: [number, number, number] } | { error: string };

export interface ResolutionDeps {
  /** Value of `comodor.server.path` ('' or undefined when unset). */
  configuredPath: string | undefined;
  /** Value of `comodor.server.interpreter`: the Python that runs the bundled server. */
  configuredInterpreter: string | undefined;
  /** When true, `comodor.server.path` is ignored ("Use the Bundled Server" was chosen). */
  preferBundled?: boolean;
  /** The server in this build of the extension, if it has one. */
  bundle: Bundle | undefined;
  /** Interpreter chosen in the Python extension, if that extension is installed. */
  pythonExtensionInterpreter: () => Promise<string | undefined>;
  which: (name: string) => Promise<string | undefined>;
  isExecutable: (file: string) => Promise<boolean>;
  /** The version of a Python interpreter, or why it could not be run. */
  probePython: (python: string) => Promise<PythonProbe>;
  /** Runs `<command> <args…> --version`: its first line of output, or why it failed. */
  probeVersion: (command: string, args: string[]) => Promise<{ output: string } | { error: string }>;
  homedir?: string;
}

/** `python`, `python3`, `python3.11`, `pythonw.exe`, `pypy3`… are interpreters; anything else
 *  is taken to be the `comodor-lsp` executable. */
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

/** The bundled server run by `python`: isolated (-I), so neither PYTHONPATH nor user
 *  site-packages (where another `comodor` may live) can put a different package first. */
export function bundledLaunch(python: string, bundle: Bundle): ServerLaunch {
  return { command: python, args: ['-I', path.join(bundle.root, 'tool', 'launch.py'), 'serve'], origin: 'bundled' };
}

/** How the launch reads in messages, e.g. `/usr/bin/python3 -m comodor_lsp serve`. */
export function describeLaunch(launch: ServerLaunch): string {
  return [launch.command, ...launch.args].join(' ');
}

/** `comodor-lsp 0.1.0` → { name, version }; anything else (another program) → undefined. */
export function parseVersionOutput(output: string): { name: string; version: string } | undefined {
  const first = output.trim().split(/\r?\n/)[0] ?? '';
  const match = /^(\S+)\s+v?(\d[\w.+-]*)\s*$/.exec(first.trim());
  return match ? { name: match[1], version: match[2] } : undefined;
}

export function formatVersion(v: readonly number[]): string {
  return v.join('.');
}

/** Whether a Python can run the bundle: ≥ 3.11, and one the bundle has binary parts for. */
export function pythonFits(version: readonly [number, number, number], manifest: BundleManifest | undefined): string | undefined {
  const [major, minor] = version;
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    return `Python ${formatVersion(version)} is too old (Comodor needs ${formatVersion(MIN_PYTHON)} or newer)`;
  }
  const pythons = manifest?.pythons ?? [];
  if (pythons.length > 0 && !pythons.includes(`${major}.${minor}`)) {
    return `Python ${major}.${minor} is not one this build bundles its server for (${pythons.join(', ')})`;
  }
  return undefined;
}

const PATH_PYTHONS = ['python3', 'python', 'python3.14', 'python3.13', 'python3.12', 'python3.11'];

async function configuredServer(file: string, deps: ResolutionDeps, tried: string[]): Promise<Resolution> {
  const fixes: Fix[] = deps.bundle ? ['useBundled', 'openServerPath'] : ['openServerPath'];
  if (!(await deps.isExecutable(file))) {
    tried.push(`comodor.server.path: ${file} (not an executable file)`);
    return { ok: false, tried, fixes, reason: `comodor.server.path is set to ${file}, which is not an executable file.` };
  }
  const launch = launchFor(file, 'setting');
  const probeArgs = isPythonInterpreter(file) ? ['-m', 'comodor_lsp'] : [];
  const shown = [path.basename(file), ...probeArgs, '--version'].join(' ');
  const probe = await deps.probeVersion(file, probeArgs);
  if ('error' in probe) {
    tried.push(`comodor.server.path: ${file} (${shown} failed: ${probe.error})`);
    return {
      ok: false,
      tried,
      fixes,
      reason: `comodor.server.path is set to ${file}, which is not the Comodor language server: “${shown}” failed (${probe.error}).`,
    };
  }
  const identity = parseVersionOutput(probe.output);
  if (identity?.name !== SERVER_NAME) {
    tried.push(`comodor.server.path: ${file} (${shown} printed “${probe.output}”)`);
    return {
      ok: false,
      tried,
      fixes,
      reason:
        `comodor.server.path is set to ${file}, which is not the Comodor language server: “${shown}” printed “${probe.output}”, not “${SERVER_NAME} …”.` +
        (identity?.name === 'comodor' ? " That is PyPI's comodor, a different program (a coding agent)." : ''),
    };
  }
  tried.push(`comodor.server.path: ${file} (${SERVER_NAME} ${identity.version})`);
  return { ok: true, launch, tried };
}

async function pythonForBundle(bundle: Bundle, deps: ResolutionDeps, tried: string[]): Promise<Resolution> {
  const unfit: string[] = [];
  let lastProblem = '';
  const consider = async (label: string, python: string): Promise<ServerLaunch | undefined> => {
    const probe = await deps.probePython(python);
    if ('error' in probe) {
      lastProblem = probe.error;
      tried.push(`${label}: ${python} (${probe.error})`);
      return undefined;
    }
    const problem = pythonFits(probe.version, bundle.manifest);
    if (problem) {
      lastProblem = problem;
      tried.push(`${label}: ${python} (${problem})`);
      unfit.push(`${python} is Python ${formatVersion(probe.version)}`);
      return undefined;
    }
    tried.push(`${label}: ${python} (Python ${formatVersion(probe.version)})`);
    return bundledLaunch(python, bundle);
  };

  const configured = deps.configuredInterpreter?.trim();
  if (configured) {
    // Explicit: report it rather than quietly running some other Python.
    const file = expandHome(configured, deps.homedir ?? os.homedir());
    let launch: ServerLaunch | undefined;
    if (await deps.isExecutable(file)) {
      launch = await consider('comodor.server.interpreter', file);
    } else {
      lastProblem = 'not an executable file';
      tried.push(`comodor.server.interpreter: ${file} (${lastProblem})`);
    }
    if (launch) {
      return { ok: true, launch, tried };
    }
    return {
      ok: false,
      tried,
      fixes: ['openInterpreter', 'downloadPython'],
      reason: `comodor.server.interpreter is set to ${file}, which cannot run Comodor's server: ${lastProblem}.`,
    };
  }

  let selected: string | undefined;
  try {
    selected = await deps.pythonExtensionInterpreter();
  } catch (err) {
    tried.push(`Python extension: ${String(err)}`);
  }
  if (selected) {
    const launch = await consider('Python extension interpreter', selected);
    if (launch) {
      return { ok: true, launch, tried };
    }
  }
  const seen = new Set<string>(selected ? [selected] : []);
  for (const name of PATH_PYTHONS) {
    const found = await deps.which(name);
    if (!found || seen.has(found)) {
      continue;
    }
    seen.add(found);
    const launch = await consider(`PATH ${name}`, found);
    if (launch) {
      return { ok: true, launch, tried };
    }
  }
  const need = bundle.manifest.pythons.length > 0 ? bundle.manifest.pythons.join(', ') : `${formatVersion(MIN_PYTHON)} or newer`;
  const reason =
    unfit.length > 0
      ? `Comodor needs Python ${need} to run its language server, and found only older or unsupported ones: ${unfit.join('; ')}.`
      : `Comodor needs Python ${need} to run its language server, and found none (not in the Python extension, not on PATH).`;
  return { ok: false, tried, reason, fixes: ['downloadPython', 'openInterpreter'] };
}

export async function resolveServer(deps: ResolutionDeps): Promise<Resolution> {
  const tried: string[] = [];
  const configured = deps.configuredPath?.trim();
  if (configured && !(deps.preferBundled && deps.bundle)) {
    return configuredServer(expandHome(configured, deps.homedir ?? os.homedir()), deps, tried);
  }
  if (deps.bundle) {
    return pythonForBundle(deps.bundle, deps, tried);
  }
  tried.push('bundled server: none in this build of the extension');
  const onPath = await deps.which(SERVER_NAME);
  if (onPath) {
    const probe = await deps.probeVersion(onPath, []);
    const identity = 'output' in probe ? parseVersionOutput(probe.output) : undefined;
    if (identity?.name === SERVER_NAME) {
      tried.push(`PATH: ${onPath} (${SERVER_NAME} ${identity.version})`);
      return { ok: true, launch: launchFor(onPath, 'path'), tried };
    }
    tried.push(`PATH: ${onPath} (not ${SERVER_NAME}: ${'output' in probe ? probe.output : probe.error})`);
  } else {
    tried.push(`PATH: no \`${SERVER_NAME}\` executable`);
  }
  return {
    ok: false,
    tried,
    fixes: ['openServerPath'],
    reason: `This build of the Comodor extension has no bundled server, and no ${SERVER_NAME} was found. Install the released VSIX, or set comodor.server.path.`,
  };
}

// ---- what the server says about itself once it runs ------------------------------------

export type ServerInfoVerdict =
  | { ok: true }
  | { ok: false; severity: 'error' | 'warning'; message: string };

/** Judge the `serverInfo` of the `initialize` result against what this extension expects. */
export function judgeServerInfo(
  info: { name?: string; version?: string } | undefined,
  expectedVersion: string,
  launch: ServerLaunch,
): ServerInfoVerdict {
  const where = describeLaunch(launch);
  if (!info || info.name !== SERVER_NAME) {
    const said = info?.name ? `“${info.name}${info.version ? ` ${info.version}` : ''}”` : 'no name';
    return {
      ok: false,
      severity: 'error',
      message: `${where} is not the Comodor language server: it reported ${said}, not “${SERVER_NAME}”. It was stopped.`,
    };
  }
  if (info.version !== expectedVersion) {
    return {
      ok: false,
      severity: 'warning',
      message: `The Comodor server ${where} is version ${info.version ?? 'unknown'}, but this extension is ${expectedVersion}; some features may not work.`,
    };
  }
  return { ok: true };
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

function run(command: string, args: string[], timeoutMs: number): Promise<{ stdout: string; stderr: string; error?: Error }> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { timeout: timeoutMs, windowsHide: true }, (err, stdout, stderr) => {
      resolve({ stdout: String(stdout), stderr: String(stderr), error: err ?? undefined });
    });
    child.stdin?.end(); // a program that waits for input must not hang the check
  });
}

function lastLine(text: string): string {
  return text.trim().split(/\r?\n/).pop() ?? '';
}

export async function probePython(python: string, timeoutMs = 15000): Promise<PythonProbe> {
  const done = await run(python, ['-I', '-c', "import sys; print('%d.%d.%d' % sys.version_info[:3])"], timeoutMs);
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(done.stdout.trim());
  if (match) {
    return { version: [Number(match[1]), Number(match[2]), Number(match[3])] };
  }
  return { error: lastLine(done.stderr) || done.error?.message || 'printed no version' };
}

export async function probeVersion(command: string, args: string[], timeoutMs = 15000): Promise<{ output: string } | { error: string }> {
  const done = await run(command, [...args, '--version'], timeoutMs);
  if (done.error) {
    return { error: lastLine(done.stderr) || done.error.message };
  }
  const output = (done.stdout.trim() || done.stderr.trim()).split(/\r?\n/)[0] ?? '';
  return output ? { output: output.slice(0, 200) } : { error: 'printed nothing' };
}

/** The bundle in `<extension>/bundled`, if this build has one (a development build may not). */
export async function readBundle(root: string): Promise<Bundle | undefined> {
  try {
    const manifest = JSON.parse(await fs.readFile(path.join(root, 'manifest.json'), 'utf8')) as BundleManifest;
    if (typeof manifest.version !== 'string' || !Array.isArray(manifest.pythons)) {
      return undefined;
    }
    return { root, manifest };
  } catch {
    return undefined;
  }
}

export function nodeResolutionDeps(
  settings: { configuredPath: string | undefined; configuredInterpreter: string | undefined; preferBundled: boolean },
  bundle: Bundle | undefined,
  pythonExtensionInterpreter: () => Promise<string | undefined>,
): ResolutionDeps {
  return {
    ...settings,
    bundle,
    pythonExtensionInterpreter,
    which: makeWhich(process.env.PATH, process.env.PATHEXT),
    isExecutable: isExecutableFile,
    probePython: (python) => probePython(python),
    probeVersion: (command, args) => probeVersion(command, args),
  };
}
