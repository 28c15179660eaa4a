// Open the Settings editor on one setting. Machine-scoped settings (comodor.server.path…) are
// hidden from the User tab in a remote window (Remote-SSH, WSL, code-server): there they live
// in the Remote tab, so open that one when we run remotely.
import * as vscode from 'vscode';

export async function openSetting(key: string): Promise<void> {
  if (vscode.env.remoteName) {
    try {
      await vscode.commands.executeCommand('workbench.action.openRemoteSettings', { query: key });
      return;
    } catch {
      // Older VS Code without a query argument for remote settings: fall back below.
    }
  }
  await vscode.commands.executeCommand('workbench.action.openSettings', key);
}
