// Reacts to `comodor/memory`: refreshes the views, feeds Recent Corrections and the status bar,
// and announces newly confident house rules once per session (see announcements.ts for who
// gets announced).
import * as vscode from 'vscode';
import { AnnouncementPolicy } from './announcements';
import { debounce } from './debounce';
import { announcementText } from './format';
import type { ComodorServer } from './languageServer';
import type { MemoryNotification, Rule } from './protocol';

function isRule(x: unknown): x is Rule {
  const o = x as Partial<Rule> | null;
  return !!o && typeof o === 'object' && typeof o.id === 'number' && typeof o.statement === 'string';
}

export interface MemoryListeners {
  refreshViews(): void;
  addCorrection(entry: { uri: string; action: 'correction' | 'undo'; ruleKeys: string[]; source?: string }): void;
  recalled(n: MemoryNotification): void;
  showRule(rule: Rule): Promise<void>;
}

export class MemoryNotifications implements vscode.Disposable {
  private readonly policy = new AnnouncementPolicy();
  private readonly refresh: ReturnType<typeof debounce>;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly server: ComodorServer,
    private readonly listeners: MemoryListeners,
  ) {
    this.refresh = debounce(() => listeners.refreshViews(), 150);
    this.subscription = server.onMemory((n) => void this.handle(n));
  }

  /** Teach a house rule; the server marks its announcement `taught`, so no "Learned" toast. */
  async teachRule(statement: string): Promise<Rule> {
    return (await this.server.api.teachRule(statement)).rule;
  }

  forgotRule(id: number): void {
    this.policy.forgetRule(id);
  }

  async handle(n: MemoryNotification): Promise<void> {
    switch (n.action) {
      case 'rule':
        this.refresh();
        for (const item of n.items ?? []) {
          if (isRule(item)) {
            await this.maybeAnnounce(item, n.taught === true);
          }
        }
        break;
      case 'correction':
      case 'undo':
        if (typeof n.uri === 'string') {
          this.listeners.addCorrection({
            uri: n.uri,
            action: n.action,
            ruleKeys: Array.isArray(n.ruleKeys) ? n.ruleKeys.filter((k) => typeof k === 'string') : [],
            source: typeof n.source === 'string' ? n.source : undefined,
          });
        }
        this.refresh();
        break;
      case 'recalled':
        this.listeners.recalled(n);
        break;
      case 'forgotRule':
        // The server sends `{id}`; accept `items: [Rule]` too.
        if (typeof n.id === 'number') {
          this.policy.forgetRule(n.id);
        }
        for (const item of n.items ?? []) {
          if (isRule(item)) {
            this.policy.forgetRule(item.id);
          }
        }
        this.refresh();
        break;
      default:
        // taught, forgot, learned, feedback, and any action added later: memory changed.
        this.refresh();
    }
  }

  private async maybeAnnounce(rule: Rule, taught: boolean): Promise<void> {
    const decision = this.policy.decide(rule, taught);
    if (decision.kind !== 'announce') {
      return;
    }
    const choice = await vscode.window.showInformationMessage(announcementText(rule), 'Forget', 'Keep', 'Show');
    try {
      if (choice === 'Forget') {
        await this.server.api.forgetRule(rule.id);
        this.policy.forgetRule(rule.id);
        void vscode.window.showInformationMessage(`Forgot the house rule: ${rule.statement}`);
      } else if (choice === 'Keep') {
        // Keeping = pinning: the user vouched for it, so decay or later noise must not drop it.
        await this.server.api.setRule(rule.id, { pinned: true });
      } else if (choice === 'Show') {
        await this.listeners.showRule(rule);
      }
    } catch (err) {
      void vscode.window.showErrorMessage(`Comodor: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.refresh();
  }

  dispose(): void {
    this.refresh.cancel();
    this.subscription.dispose();
  }
}
