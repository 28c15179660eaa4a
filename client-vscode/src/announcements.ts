// Should a `comodor/memory` `rule` notification pop up a toast? The server re-sends a rule
// each time it is reinforced; users should hear about a rule once per session, and never be
// told "Learned: …" about a rule they typed in themselves a moment ago (they get a plain
// confirmation from the Teach command instead). Pure: no `vscode`, unit-tested.
import type { Rule } from './protocol';

export type RuleDecision =
  | { kind: 'announce'; rule: Rule }
  | { kind: 'silent'; rule: Rule; reason: 'reinforcement' | 'taught-here' | 'inactive' };

/** Lower-case, collapse spaces, drop trailing punctuation: the server may tidy a statement. */
export function normalizeStatement(statement: string): string {
  return statement.toLowerCase().replace(/\s+/g, ' ').trim().replace(/[.!;:,\s]+$/, '');
}

export class AnnouncementPolicy {
  private readonly announced = new Set<number>();
  private readonly taughtIds = new Set<number>();
  private readonly pending = new Map<string, number>();

  /** Call before sending `comodor.teachRule`; call the returned function when it settled. */
  beginTeach(statement: string): (taught?: Rule) => void {
    const key = normalizeStatement(statement);
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    let done = false;
    return (taught?: Rule) => {
      if (done) {
        return;
      }
      done = true;
      const left = (this.pending.get(key) ?? 1) - 1;
      if (left > 0) {
        this.pending.set(key, left);
      } else {
        this.pending.delete(key);
      }
      if (taught) {
        this.taughtIds.add(taught.id);
      }
    };
  }

  /** True while a teach of a rule with this statement is in flight. */
  isBeingTaught(rule: Pick<Rule, 'statement'>): boolean {
    return this.pending.has(normalizeStatement(rule.statement));
  }

  get teachInFlight(): boolean {
    return this.pending.size > 0;
  }

  decide(rule: Rule): RuleDecision {
    if (this.announced.has(rule.id)) {
      return { kind: 'silent', rule, reason: 'reinforcement' };
    }
    this.announced.add(rule.id);
    if (rule.source === 'user' && (this.taughtIds.has(rule.id) || this.isBeingTaught(rule))) {
      return { kind: 'silent', rule, reason: 'taught-here' };
    }
    if (rule.active === false) {
      return { kind: 'silent', rule, reason: 'inactive' };
    }
    return { kind: 'announce', rule };
  }

  /** A forgotten rule may come back later under a new id; forget that we announced this one. */
  forgetRule(id: number): void {
    this.announced.delete(id);
    this.taughtIds.delete(id);
  }
}
