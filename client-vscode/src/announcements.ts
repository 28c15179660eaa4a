// Should a `comodor/memory` `rule` notification pop up a toast? The server re-sends a rule each
// time it becomes confident again; users should hear about a rule once per session, and never
// be told "Learned: …" about a rule they stated themselves (the server marks those `taught`;
// the Teach command confirms them in its own words). Pure: no `vscode`, unit-tested.
import type { Rule } from './protocol';

export type RuleDecision =
  | { kind: 'announce'; rule: Rule }
  | { kind: 'silent'; rule: Rule; reason: 'reinforcement' | 'taught' | 'inactive' };

export class AnnouncementPolicy {
  private readonly announced = new Set<number>();

  decide(rule: Rule, taught: boolean): RuleDecision {
    if (this.announced.has(rule.id)) {
      return { kind: 'silent', rule, reason: 'reinforcement' };
    }
    this.announced.add(rule.id);
    if (taught) {
      return { kind: 'silent', rule, reason: 'taught' };
    }
    if (!rule.active) {
      return { kind: 'silent', rule, reason: 'inactive' };
    }
    return { kind: 'announce', rule };
  }

  /** A forgotten rule may come back later under a new id; forget that we announced this one. */
  forgetRule(id: number): void {
    this.announced.delete(id);
  }
}
