// "Recent Corrections": the corrections and undos the server saw this session, newest first.
// The server does not keep a session log, so the list lives here, fed by `comodor/memory`.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { correctionDescription, writeSourceWords } from '../format';

export interface CorrectionEntry {
  uri: string;
  action: 'correction' | 'undo';
  ruleKeys: string[];
  /** Who made the write the user corrected or undid (protocol v1.2); an older server sends none. */
  source?: string;
  at: Date;
}

const MAX_ENTRIES = 50;

export class CorrectionsView implements vscode.TreeDataProvider<CorrectionEntry>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<CorrectionEntry | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private entries: CorrectionEntry[] = [];

  add(entry: CorrectionEntry): void {
    this.entries = [entry, ...this.entries].slice(0, MAX_ENTRIES);
    this.changed.fire(undefined);
  }

  clear(): void {
    this.entries = [];
    this.changed.fire(undefined);
  }

  getChildren(element?: CorrectionEntry): CorrectionEntry[] {
    return element ? [] : this.entries;
  }

  getTreeItem(entry: CorrectionEntry): vscode.TreeItem {
    let uri: vscode.Uri | undefined;
    try {
      uri = vscode.Uri.parse(entry.uri, true);
    } catch {
      uri = undefined;
    }
    const label = uri ? path.basename(uri.path) : entry.uri;
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.description = `${correctionDescription(entry.action, entry.ruleKeys)} · ${entry.at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}`;
    const by = entry.source ? ` (${writeSourceWords(entry.source)})` : '';
    item.tooltip = `${entry.action === 'undo' ? 'Undone' : 'Corrected'}: ${uri ? vscode.workspace.asRelativePath(uri) : entry.uri}${by}`;
    item.iconPath = new vscode.ThemeIcon(entry.action === 'undo' ? 'discard' : 'edit');
    if (uri) {
      item.resourceUri = uri;
      item.command = { command: 'vscode.open', title: 'Open File', arguments: [uri] };
    }
    item.contextValue = 'correction';
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
