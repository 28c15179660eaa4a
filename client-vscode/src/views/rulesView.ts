// "House Rules" tree: every rule the server knows for this project, confident ones first.
// Fetched lazily when VS Code asks for children (only while the view is visible).
import * as vscode from 'vscode';
import { ruleDescription, ruleTooltip } from '../format';
import type { ComodorServer } from '../languageServer';
import type { Rule } from '../protocol';

export function sortRules(rules: Rule[]): Rule[] {
  const rank = (r: Rule) => (r.active ? 0 : 2) + (r.confident ? 0 : 1);
  return [...rules].sort((a, b) => rank(a) - rank(b) || Number(b.pinned) - Number(a.pinned) || b.support - a.support);
}

function ruleIcon(rule: Rule): vscode.ThemeIcon {
  if (!rule.active) {
    return new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground'));
  }
  // The sidebar is narrow and cuts the description off, so the icon carries the state too.
  if (rule.pinned) {
    return new vscode.ThemeIcon('pinned', new vscode.ThemeColor(rule.confident ? 'charts.green' : 'descriptionForeground'));
  }
  if (rule.confident) {
    return new vscode.ThemeIcon('verified-filled', new vscode.ThemeColor('charts.green'));
  }
  return new vscode.ThemeIcon('circle-large-outline', new vscode.ThemeColor('descriptionForeground'));
}

export class RulesView implements vscode.TreeDataProvider<Rule>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Rule | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private byId = new Map<number, Rule>();

  constructor(private readonly server: ComodorServer) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  find(id: number): Rule | undefined {
    return this.byId.get(id);
  }

  async getChildren(element?: Rule): Promise<Rule[]> {
    if (element || this.server.state !== 'running') {
      return [];
    }
    try {
      const rules = sortRules(await this.server.api.rules(true));
      this.byId = new Map(rules.map((r) => [r.id, r]));
      return rules;
    } catch (err) {
      this.server.output.appendLine(`House Rules view: ${String(err)}`);
      return [];
    }
  }

  getParent(): undefined {
    return undefined; // a flat list; needed for TreeView.reveal
  }

  getTreeItem(rule: Rule): vscode.TreeItem {
    const item = new vscode.TreeItem(rule.statement, vscode.TreeItemCollapsibleState.None);
    item.id = `rule:${rule.id}`;
    item.description = ruleDescription(rule);
    item.tooltip = ruleTooltip(rule);
    item.iconPath = ruleIcon(rule);
    // Drives which inline actions show: rule.pinned|unpinned.active|disabled
    item.contextValue = `rule.${rule.pinned ? 'pinned' : 'unpinned'}.${rule.active ? 'active' : 'disabled'}`;
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
