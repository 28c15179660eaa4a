// The interpreter selected in the Python extension (ms-python.python), if it is installed.
// Its API is not a dependency of ours and has changed shape over the years, so every access
// is guarded: any surprise means "no interpreter from there", never a failed activation.
import * as vscode from 'vscode';

const PYTHON_EXTENSION_ID = 'ms-python.python';

interface EnvironmentPath {
  id?: string;
  path?: string;
}
interface PythonEnvironmentsApi {
  getActiveEnvironmentPath?(resource?: vscode.Uri): EnvironmentPath | undefined;
  resolveEnvironment?(env: EnvironmentPath | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
}

async function environmentsApi(): Promise<PythonEnvironmentsApi | undefined> {
  const ext = vscode.extensions.getExtension(PYTHON_EXTENSION_ID);
  if (!ext) {
    return undefined;
  }
  const exports = (ext.isActive ? ext.exports : await ext.activate()) as { environments?: PythonEnvironmentsApi };
  return exports?.environments;
}

export async function selectedInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  try {
    const envs = await environmentsApi();
    const active = envs?.getActiveEnvironmentPath?.(resource);
    if (!active) {
      return undefined;
    }
    // `path` may be an environment folder (conda); resolve it to the executable when we can.
    if (envs?.resolveEnvironment) {
      const resolved = await envs.resolveEnvironment(active);
      const exe = resolved?.executable?.uri?.fsPath;
      if (exe) {
        return exe;
      }
    }
    return typeof active.path === 'string' && active.path ? active.path : undefined;
  } catch {
    return undefined;
  }
}

/** Subscribe to interpreter changes; returns undefined when the Python extension is absent. */
export async function onInterpreterChanged(listener: () => void): Promise<vscode.Disposable | undefined> {
  try {
    const envs = await environmentsApi();
    return envs?.onDidChangeActiveEnvironmentPath?.(() => listener());
  } catch {
    return undefined;
  }
}
