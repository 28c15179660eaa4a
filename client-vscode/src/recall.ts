// Summarise a `recalled` notification for the status bar. The protocol fixes only
// `{action, items?}`; items may be lessons or rules, and the server may add a query/goal.
// Pure: unit-tested.
import { lessonText, truncate } from './format';
import type { MemoryNotification } from './protocol';

export interface RecallSummary {
  lessons: number;
  rules: number;
  /** Short lines naming what was recalled, for the tooltip. */
  lines: string[];
  /** What the recall was for, when the server says. */
  subject?: string;
}

export function summariseRecall(n: MemoryNotification): RecallSummary {
  const summary: RecallSummary = { lessons: 0, rules: 0, lines: [] };
  // A `recalled` event carries the lessons under `items` and the rules under `rules`.
  for (const item of [...(n.rules ?? []), ...(n.items ?? [])]) {
    if (!item || typeof item !== 'object') {
      continue;
    }
    if ('statement' in item && typeof item.statement === 'string') {
      summary.rules++;
      summary.lines.push(truncate(item.statement, 80));
    } else if ('guidance' in item && typeof item.guidance === 'string') {
      summary.lessons++;
      summary.lines.push(truncate(lessonText({ trigger: String(item.trigger ?? ''), guidance: item.guidance }), 80));
    }
  }
  for (const key of ['query', 'goal', 'uri']) {
    const v = n[key];
    if (typeof v === 'string' && v.trim()) {
      summary.subject = truncate(v, 60);
      break;
    }
  }
  return summary;
}

export function recallLabel(s: RecallSummary): string {
  const parts: string[] = [];
  if (s.rules) {
    parts.push(`${s.rules} rule${s.rules === 1 ? '' : 's'}`);
  }
  if (s.lessons) {
    parts.push(`${s.lessons} lesson${s.lessons === 1 ? '' : 's'}`);
  }
  return parts.length ? parts.join(', ') : 'nothing';
}
