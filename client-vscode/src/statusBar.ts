// Status bar: how many house rules are in force, what was recalled last, and (in the tooltip)
// what the assistant was seen writing, by source. Click → House Rules.
import * as vscode from 'vscode';
import { AgentWritesSummary, agentWritesSummary } from './format';
import type { ComodorServer } from './languageServer';
import type { MemoryNotification } from './protocol';
import { RecallSummary, recallLabel, summariseRecall } from './recall';

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private activeRules: number | undefined;
  private agentWrites: AgentWritesSummary | undefined;
  private lastRecall: { summary: RecallSummary; at: Date } | undefined;

  constructor(private readonly server: ComodorServer) {
    this.item = vscode.window.createStatusBarItem('comodor.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Comodor';
    this.render();
    this.item.show();
  }

  async refreshCounts(): Promise<void> {
    if (this.server.state !== 'running') {
      this.render();
      return;
    }
    const [rules, stats] = await Promise.allSettled([this.server.api.rules(false), this.server.api.stats()]);
    if (rules.status === 'fulfilled') {
      this.activeRules = rules.value.filter((r) => r.confident && r.active).length;
    } else {
      this.server.output.appendLine(`Status bar: ${String(rules.reason)}`);
    }
    if (stats.status === 'fulfilled') {
      this.agentWrites = stats.value && typeof stats.value === 'object' ? agentWritesSummary(stats.value) : undefined;
    } else {
      this.server.output.appendLine(`Status bar: ${String(stats.reason)}`);
    }
    this.render();
  }

  recalled(n: MemoryNotification): void {
    this.lastRecall = { summary: summariseRecall(n), at: new Date() };
    this.render();
  }

  render(): void {
    const state = this.server.state;
    const tip = new vscode.MarkdownString(undefined, true);
    tip.isTrusted = false;
    if (state === 'failed' || state === 'stopped') {
      this.item.text = '$(warning) Comodor';
      this.item.command = 'comodor.ui.restartServer';
      tip.appendText("Comodor's language server isn't running. Click to restart it.");
      this.item.tooltip = tip;
      return;
    }
    if (state === 'starting') {
      this.item.text = '$(sync~spin) Comodor';
      this.item.command = 'comodor.rules.focus';
      tip.appendText('Comodor is starting…');
      this.item.tooltip = tip;
      return;
    }
    const n = this.activeRules;
    this.item.text = n === undefined ? '$(mortar-board) Comodor' : `$(mortar-board) ${n} rule${n === 1 ? '' : 's'}`;
    this.item.command = 'comodor.rules.focus';
    tip.appendMarkdown('**Comodor**\n\n');
    tip.appendText(n === undefined ? 'House rules: …' : `${n} active house rule${n === 1 ? '' : 's'}`);
    tip.appendMarkdown('\n\n');
    if (this.lastRecall) {
      const { summary, at } = this.lastRecall;
      tip.appendText(
        `Last recalled at ${at.toLocaleTimeString()}: ${recallLabel(summary)}` +
          (summary.subject ? ` for “${summary.subject}”` : ''),
      );
      for (const line of summary.lines.slice(0, 6)) {
        tip.appendMarkdown('\n- ');
        tip.appendText(line);
      }
    } else {
      tip.appendText('Nothing recalled yet this session.');
    }
    tip.appendMarkdown('\n\n');
    const writes = this.agentWrites;
    if (writes?.total) {
      tip.appendText(writes.total);
      for (const line of writes.bySource) {
        tip.appendMarkdown('\n- ');
        tip.appendText(line);
      }
      tip.appendMarkdown('\n\n');
    }
    tip.appendText('Click to show the House Rules.');
    this.item.tooltip = tip;
  }

  dispose(): void {
    this.item.dispose();
  }
}
