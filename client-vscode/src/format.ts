// Words users read: evidence, labels, announcements. Kept in one pure module so the exact
// phrasing is unit-tested and consistent between the tree, the toasts and the status bar.
import type { Lesson, Rule, StatsResult } from './protocol';

function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}

export function percent(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) {
    return '—';
  }
  return `${Math.round(x * 100)}%`;
}

/** Share of votes for the rule's value, or undefined when nobody voted (a taught rule). */
export function agreement(rule: Pick<Rule, 'support' | 'against'>): number | undefined {
  const total = rule.support + rule.against;
  return total > 0 ? rule.support / total : undefined;
}

/**
 * e.g. `3 corrections · 100% agree`, `taught by you`. The server words the evidence
 * (it knows corrections from denials and config files); this only fills in for an
 * older server that does not send `evidence`.
 */
export function ruleEvidence(rule: Rule): string {
  if (rule.evidence) {
    return rule.evidence;
  }
  let what: string;
  switch (rule.source) {
    case 'user':
      return 'taught by you';
    case 'correction':
      what = plural(rule.support, 'correction');
      break;
    case 'evidence':
      what = plural(rule.support, 'example');
      break;
    case 'observation':
      what = plural(rule.support, 'observation');
      break;
    default:
      what = plural(rule.support, 'vote');
  }
  const agree = agreement(rule);
  return agree === undefined ? what : `${what} · ${percent(agree)} agree`;
}

export function ruleLanguage(rule: Rule): string {
  return rule.language ?? 'all languages';
}

/** Tree item description: evidence, language and state flags. */
export function ruleDescription(rule: Rule): string {
  const parts = [ruleEvidence(rule), ruleLanguage(rule)];
  if (rule.pinned) {
    parts.push('pinned');
  }
  if (!rule.active) {
    parts.push('disabled');
  } else if (rule.contested) {
    // The user's corrections disagree: shown with the other side, never enforced.
    parts.push(rule.opposition ? `contested, against: ${rule.opposition}` : 'contested');
  } else if (!rule.confident) {
    parts.push('not yet confident');
  }
  return parts.join(' · ');
}

export function ruleTooltip(rule: Rule): string {
  const lines = [rule.statement, ''];
  if (rule.detail) {
    lines.push(rule.detail, '');
  }
  lines.push(
    `${rule.key} = ${rule.value} (${rule.category})`,
    `Evidence: ${ruleEvidence(rule)}${rule.against > 0 ? `, ${plural(rule.against, 'vote')} against` : ''}`,
    `Strength ${percent(rule.strength)} · ${rule.confident ? 'confident' : 'not yet confident'}` +
      `${rule.active ? '' : ' · disabled'}${rule.pinned ? ' · pinned' : ''}`,
    `Applies to ${ruleLanguage(rule)} · scope ${rule.scope}`,
  );
  return lines.join('\n');
}

/** `When <trigger>: <guidance>`, or just the guidance for the catch-all trigger. */
export function lessonText(lesson: Pick<Lesson, 'trigger' | 'guidance'>): string {
  const trigger = lesson.trigger.trim();
  return !trigger || trigger === 'generally' ? lesson.guidance : `When ${trigger}: ${lesson.guidance}`;
}

export function lessonDescription(lesson: Lesson): string {
  const parts: string[] = [lesson.kind, percent(lesson.confidence)];
  if (lesson.pinned) {
    parts.push('pinned');
  }
  return parts.join(' · ');
}

export function lessonTooltip(lesson: Lesson): string {
  return [
    lessonText(lesson),
    '',
    `${lesson.kind} · confidence ${percent(lesson.confidence)}${lesson.pinned ? ' · pinned' : ''}`,
    `Used ${plural(lesson.uses, 'time')} · ${plural(lesson.wins, 'win')} · ${plural(lesson.losses, 'loss', 'losses')}`,
    `Source ${lesson.source} · scope ${lesson.scope}`,
  ].join('\n');
}

/** The toast for a rule that just became confident. */
export function announcementText(rule: Rule): string {
  let from: string;
  switch (rule.source) {
    case 'correction':
      from = rule.support === 1 ? 'from your correction' : `from ${rule.support} of your corrections`;
      break;
    case 'evidence':
      from = `from ${plural(rule.support, 'example')} in your code`;
      break;
    case 'observation':
      from = `from ${plural(rule.support, 'observation')}`;
      break;
    case 'user':
      from = 'taught by you';
      break;
    default:
      from = `from ${plural(rule.support, 'vote')}`;
  }
  return `Learned: ${rule.statement} — ${from}`;
}

export function correctionDescription(action: 'correction' | 'undo', ruleKeys: readonly string[]): string {
  if (action === 'undo') {
    return 'undone';
  }
  // The row's pencil icon already says "corrected"; the narrow sidebar keeps room for the time.
  return ruleKeys.length ? ruleKeys.join(', ') : 'corrected';
}

export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}

/** One sentence on whether the server sees files an assistant writes outside the editor. */
export function watchingText(watching: string | undefined): string {
  switch (watching) {
    case 'native':
      return 'Comodor is watching this workspace for files your assistant writes.';
    case 'polling':
      return 'Comodor is watching this workspace for files your assistant writes (by polling: the system ran out of file watches).';
    case 'starting':
      return 'Comodor is getting ready to watch this workspace.';
    case 'off':
      return "Comodor isn't watching this workspace (comodor.watch.enabled), so it only sees files your assistant reports.";
    default:
      return "Comodor's file watcher has stopped; restart the server to watch again.";
  }
}

/** The "Show Status" message: watcher, what was captured, what is remembered. */
export function statusText(stats: StatsResult): string {
  const rules =
    stats.confidentRules === stats.rules
      ? plural(stats.rules, 'house rule')
      : `${plural(stats.rules, 'house rule')} (${stats.confidentRules} confident)`;
  return (
    `${watchingText(stats.watching)} ` +
    `Seen: ${plural(stats.agentWrites, 'edit')} by your assistant, ${plural(stats.corrections, 'correction')}, ` +
    `${plural(stats.undos, 'undo')}. ` +
    `Remembered: ${rules}, ${plural(stats.lessons, 'lesson')}, ${plural(stats.episodes, 'task')}.`
  );
}

/** `comodor.stats`' `agentWritesBySource` (protocol v1.2); an older server sends none. */
export const AGENT_WRITE_SOURCES = ['disk', 'command', 'chat-edit', 'inline-completion', 'next-edit', 'extension'] as const;

const SOURCE_WORDS: Record<(typeof AGENT_WRITE_SOURCES)[number], [string, string]> = {
  disk: ['written to disk', 'written to disk'],
  command: ['reported by the assistant', 'reported by the assistant'],
  'chat-edit': ['chat edit', 'chat edits'],
  'inline-completion': ['accepted inline completion', 'accepted inline completions'],
  'next-edit': ['accepted next edit suggestion', 'accepted next edit suggestions'],
  extension: ['edit by another extension', 'edits by other extensions'],
};

/**
 * Who made a write, for a corrections row: `chat-edit:acme.helper` reads "a chat edit (acme.helper)".
 * A source a newer server adds shows as it is.
 */
export function writeSourceWords(source: string): string {
  const [kind, ...rest] = source.split(':');
  const extension = rest.join(':');
  const words = SOURCE_WORDS[kind as keyof typeof SOURCE_WORDS];
  const article = (w: string) => (/^[aeiou]/.test(w) ? `an ${w}` : `a ${w}`);
  const what = words ? (kind === 'disk' || kind === 'command' ? `the assistant's write, ${words[0]}` : article(words[0])) : kind;
  return extension ? `${what} (${extension})` : what;
}

function count(x: unknown): number | undefined {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0 ? Math.floor(x) : undefined;
}

export interface AgentWritesSummary {
  /** e.g. `7 edits by your assistant seen`; undefined when the server sent no count. */
  total: string | undefined;
  /** One line per source that has any: known sources in protocol order, then any newer ones. */
  bySource: string[];
}

/**
 * What the status bar tooltip says the assistant wrote. Fields missing or malformed (an older
 * server has no `agentWritesBySource`) leave out what they would have said.
 */
export function agentWritesSummary(
  stats: Omit<Partial<StatsResult>, 'agentWritesBySource'> & { agentWritesBySource?: unknown },
): AgentWritesSummary {
  const n = count(stats.agentWrites);
  const total = n === undefined ? undefined : n === 0 ? 'No edits by your assistant seen yet' : `${plural(n, 'edit')} by your assistant seen`;
  const lines: string[] = [];
  const by = stats.agentWritesBySource;
  if (!by || typeof by !== 'object' || Array.isArray(by)) {
    return { total, bySource: lines };
  }
  const entries = by as Record<string, unknown>;
  const known = new Set<string>(AGENT_WRITE_SOURCES);
  for (const source of [...AGENT_WRITE_SOURCES, ...Object.keys(entries).filter((k) => !known.has(k)).sort()]) {
    const n = count(entries[source]);
    if (!n) {
      continue;
    }
    const words = SOURCE_WORDS[source as keyof typeof SOURCE_WORDS];
    lines.push(words ? `${n} ${n === 1 ? words[0] : words[1]}` : `${n} ${source}`);
  }
  return { total, bySource: lines };
}
