// Was this editor change an assistant's? The pure decision (plain data in, a verdict out), so
// every rule is unit-tested without VS Code; assistantEdits.ts gathers the facts and sends
// `comodor/assistantEdit` (protocol v1.2, "Edits an assistant makes inside the editor").
//
// The one rule above all: typed or pasted text is never called an assistant's. A false "assistant"
// turns the user's own later edits into corrections (votes for house rules they never made); a
// missed one only loses a lesson. So every doubt ends in `unsure`, and nothing is sent.

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** One entry of `TextDocumentChangeEvent.contentChanges`, copied out of VS Code. */
export interface Hunk {
  /** The replaced range, in the document as it was before this hunk. */
  range: Range;
  rangeOffset: number;
  rangeLength: number;
  text: string;
}

/** `comodor/assistantEdit` params, generated from the server's attrs class. */
export type { AssistantEditParams } from './protocol';

export const ASSISTANT_EDIT_NOTIFICATION = 'comodor/assistantEdit';

export type AssistantSource = 'chat-edit' | 'inline-completion' | 'next-edit' | 'extension';

export type Verdict =
  | { kind: 'assistant'; source: string; why: string }
  | { kind: 'user'; why: string }
  | { kind: 'unsure'; why: string };

/** What the wiring saw of one change, all plain data. */
export interface ChangeFacts {
  hunks: readonly Hunk[];
  /** `event.reason` was Undo or Redo. */
  undoRedo: boolean;
  /** `event.detailedReason` (textDocumentChangeReason proposal), as read; usually absent. */
  detailedReason?: unknown;
  /** Every hunk is one of the edits Comodor's own code actions offered (quick fix, fix-all). */
  ownEdit: boolean;
  /** Inside a save's will-save window (format on save, code actions on save). */
  formatting: boolean;
  /** Some hunk inserts the clipboard's text. */
  pasted: boolean;
  /** The last Keyboard selection change in an editor of this document, if recent. */
  keyboard?: { msAgo: number; selections: readonly Range[] };
  /** The document is dirty after the change, or was saved since (a reload from disk or a revert
   *  leaves it clean, with no save). */
  dirty: boolean;
  /** Shown in a visible editor. */
  visible: boolean;
  /** How long the document has not been shown (0 while it is). */
  hiddenForMs: number;
  /** Open in one of the user's tabs. The protocol: edits of files the user has not opened are
   *  never an assistant's (an agent's write of such a file reaches the server's disk watcher). */
  inTab: boolean;
  windowFocused: boolean;
  /** How long the window has not been focused (0 while it is). */
  unfocusedForMs: number;
  /** Edits that arrived in the same moment, across documents (see burstFacts). */
  burst: BurstFacts;
  /** Set when this change arrived while Comodor's Tab command ran VS Code's own "accept inline
   *  suggestion" in the active editor (stable API; see assistantEdits.ts). */
  inlineAccept?: InlineAcceptFacts;
}

/** What Comodor's Tab command saw as it accepted ghost text, and what followed. */
export interface InlineAcceptFacts {
  /** The document's version when Tab was pressed. */
  versionBefore: number;
  /** The version this change made. */
  versionAfter: number;
  /** The one cursor, as Tab was pressed (no selection). */
  cursor: Position;
  /** ms from the Tab press to this change. */
  msAfter: number;
  /** A Keyboard selection change came after the Tab press (the user typed meanwhile). */
  typedSince: boolean;
  /** Right after the change, VS Code put the one cursor at the end of the inserted text, not
   *  by keyboard: the accept's own cursor move. A keystroke that raced Tab (typed before the
   *  accept ran) moves the cursor by keyboard, so without this the change proves nothing. */
  cursorMovedByAccept: boolean;
  /** The change is in the active editor's document. */
  activeEditor: boolean;
}

/** How soon after Tab the accepted ghost text must land (VS Code applies it at once). */
export const INLINE_ACCEPT_MS = 1000;

export interface BurstFacts {
  /** A document shown in a visible editor changed in the same burst (rename, refactoring, typing). */
  visibleChanged: boolean;
  /** Two or more hunks, all inserting the same text: a rename or a Replace All. */
  uniform: boolean;
}

/** How long after a Keyboard selection change an edit near the cursor counts as typing. */
export const TYPING_MS = 1500;

/**
 * How long the window must have been unfocused, or the document hidden, before its edits can be
 * an assistant's on stable signals alone: the user's own slow command (a formatter, a code
 * action) may land a few seconds after they switched away.
 */
export const SETTLE_MS = 5000;

/** Valid `:<extension id>` suffixes (the schema's pattern). */
const EXTENSION_ID = /^[A-Za-z0-9._-]{1,200}$/;

/**
 * `detailedReason.source` values (VS Code's TextModelEditSource, src/vs/editor/common/
 * textModelEditSource.ts) that are the user's own doing. Anything not listed here nor in
 * `fromDetailedReason`'s assistant cases ('unknown', 'applyEdits', an extension's edit, a value
 * added later) proves nothing and falls through to the stable signals.
 */
const USER_SOURCES = new Set([
  'cursor', // typing, paste, cut, IME composition, editor commands
  'type',
  'paste',
  'cut',
  'suggest', // an accepted completion-list item
  'snippet',
  'codeAction', // quick fixes and refactorings, ours included
  'rename',
  'reloadFromDisk', // the file changed on disk: the server's watcher sees that write itself
  'Chat.undoEdits',
  'Chat.reset',
  'eolChange',
  'setValue',
  'formatEditsCommand',
]);

function record(x: unknown): Record<string, unknown> | undefined {
  return x && typeof x === 'object' ? (x as Record<string, unknown>) : undefined;
}

function withExtension(source: AssistantSource, metadata: Record<string, unknown> | undefined): string {
  const id = metadata?.$extensionId ?? metadata?.extensionId;
  return typeof id === 'string' && EXTENSION_ID.test(id) ? `${source}:${id}` : source;
}

/**
 * What VS Code's own edit source says, read defensively (the proposal's shape has changed
 * before): an assistant's source, `user`, or undefined when it proves nothing.
 */
export function fromDetailedReason(detailed: unknown): Verdict | undefined {
  const reason = record(detailed);
  if (!reason) {
    return undefined;
  }
  const metadata = record(reason.metadata);
  const source = typeof reason.source === 'string' ? reason.source : metadata?.source;
  if (typeof source !== 'string') {
    return undefined;
  }
  switch (source) {
    case 'Chat.applyEdits':
    case 'inlineChat.applyEdits':
    case 'chat-edit': // the proposal's documented example names
      return { kind: 'assistant', source: withExtension('chat-edit', metadata), why: `VS Code: ${source}` };
    case 'inlineCompletionAccept':
    case 'inlineCompletionPartialAccept':
    case 'inline-completion': {
      const nes = metadata?.$nes === true || metadata?.nes === true;
      return {
        kind: 'assistant',
        source: withExtension(nes ? 'next-edit' : 'inline-completion', metadata),
        why: `VS Code: ${source}${nes ? ' (next edit)' : ''}`,
      };
    }
    case 'next-edit':
      return { kind: 'assistant', source: withExtension('next-edit', metadata), why: `VS Code: ${source}` };
  }
  if (USER_SOURCES.has(source)) {
    return { kind: 'user', why: `VS Code: ${source}` };
  }
  const name = metadata?.name;
  if (source === 'unknown' && typeof name === 'string' && /format/i.test(name)) {
    return { kind: 'user', why: `VS Code: formatting (${name})` };
  }
  return undefined;
}

function near(a: Position, b: Position): boolean {
  return Math.abs(a.line - b.line) <= 1;
}

/**
 * Typing: a Keyboard selection change moments ago, and every hunk where a cursor stands (one
 * hunk, or one per cursor). The hunk's new text ends where the cursor now is, give or take the
 * line an Enter moved it to.
 */
export function looksTyped(facts: Pick<ChangeFacts, 'hunks' | 'keyboard'>): boolean {
  const kb = facts.keyboard;
  if (!kb || kb.msAgo > TYPING_MS || kb.selections.length === 0) {
    return false;
  }
  const ends = insertedRanges(facts.hunks);
  return ends.every((r) => kb.selections.some((s) => near(s.end, r.end) || near(s.start, r.start)));
}

/**
 * Is this change the ghost text that Comodor's Tab command accepted? Only the very next version
 * of the document, moments after Tab, in the active editor, with no typing in between, and an
 * insertion or replacement where the cursor stood. Anything else is not, and the wiring drops
 * the mark either way (never carried over to a later change).
 */
export function isInlineAccept(hunks: readonly Hunk[], accept: InlineAcceptFacts | undefined): boolean {
  if (!accept || accept.typedSince || !accept.cursorMovedByAccept || !accept.activeEditor) {
    return false;
  }
  if (accept.versionAfter !== accept.versionBefore + 1 || accept.msAfter < 0 || accept.msAfter > INLINE_ACCEPT_MS) {
    return false;
  }
  // The completion's own text replaces a range touching the cursor; an item's additional text
  // edits (an import at the top) may come along, but some hunk must insert at the cursor.
  const c = accept.cursor;
  return hunks.some(
    (h) => h.text.length > 0 && cmp(h.range.start, c) <= 0 && cmp(h.range.end, c) >= 0 && h.range.start.line === c.line,
  );
}

/**
 * The verdict for one change. Order matters: what proves the user did it comes first, VS Code's
 * own word next, the stable signals last, and they only ever say `extension`.
 */
export function classifyChange(facts: ChangeFacts): Verdict {
  if (facts.hunks.length === 0) {
    return { kind: 'unsure', why: 'no text changed' };
  }
  if (facts.undoRedo) {
    return { kind: 'user', why: 'undo or redo' };
  }
  if (facts.ownEdit) {
    return { kind: 'user', why: "Comodor's own fix" };
  }
  if (!facts.inTab) {
    return { kind: 'user', why: 'a file the user has not opened' };
  }
  const told = fromDetailedReason(facts.detailedReason);
  if (told) {
    return told; // with the proposal, VS Code's own word (never reported twice)
  }
  if (isInlineAccept(facts.hunks, facts.inlineAccept)) {
    // Before the typing check: the user's keystrokes just before Tab are near the cursor too.
    return { kind: 'assistant', source: 'inline-completion', why: 'accepted with Tab (ghost text)' };
  }
  if (facts.formatting) {
    return { kind: 'user', why: 'formatting on save' };
  }
  if (facts.pasted) {
    return { kind: 'user', why: 'paste' };
  }
  if (looksTyped(facts)) {
    return { kind: 'user', why: 'typing' }; // a paste with Ctrl+V looks the same
  }
  if (!facts.dirty) {
    return { kind: 'unsure', why: 'the document matches the disk (a reload or a revert)' };
  }
  if (facts.burst.uniform) {
    return { kind: 'unsure', why: 'the same text in every place (a rename or a Replace All)' };
  }
  if (!facts.windowFocused) {
    return facts.unfocusedForMs >= SETTLE_MS
      ? { kind: 'assistant', source: 'extension', why: 'changed while the window was not focused' }
      : { kind: 'unsure', why: "the window lost focus moments ago (the user's own command may land now)" };
  }
  if (!facts.visible && !facts.burst.visibleChanged) {
    return facts.hiddenForMs >= SETTLE_MS
      ? { kind: 'assistant', source: 'extension', why: 'changed in a tab that is not shown' }
      : { kind: 'unsure', why: "the tab was shown moments ago (the user's own command may land now)" };
  }
  // A focused, visible editor: a multi-hunk edit there may be the user's refactoring or code
  // action as well as an assistant's, and nothing stable tells them apart.
  return { kind: 'unsure', why: 'a visible editor in a focused window' };
}

/** Burst-wide facts for the changes that arrived together. */
export function burstFacts(changes: readonly { hunks: readonly Hunk[]; visible: boolean; undoRedo: boolean }[]): BurstFacts {
  const texts = changes.flatMap((c) => c.hunks.map((h) => h.text));
  return {
    visibleChanged: changes.some((c) => c.visible && !c.undoRedo && c.hunks.length > 0),
    uniform: texts.length >= 2 && texts.every((t) => t === texts[0]),
  };
}

export interface OfferedEdit {
  range: Range;
  newText: string;
}

/**
 * Is every hunk one of the text edits Comodor's code actions offered for this document (each
 * action a list of edits)? A hunk is an offered edit, or part of one, or several edits of one
 * action that touch each other, which VS Code applies as one hunk spanning them all.
 */
export function matchesOffered(hunks: readonly Hunk[], actions: readonly (readonly OfferedEdit[])[]): boolean {
  const within = (inner: Range, outer: Range) => cmp(inner.start, outer.start) >= 0 && cmp(inner.end, outer.end) <= 0;
  const matches = (h: Hunk, edits: readonly OfferedEdit[]) => {
    if (edits.some((o) => within(h.range, o.range) && o.newText.includes(h.text))) {
      return true;
    }
    const inside = edits.filter((o) => within(o.range, h.range));
    return inside.length >= 2 && inside.every((o) => h.text.includes(o.newText));
  };
  return hunks.length > 0 && hunks.every((h) => actions.some((edits) => matches(h, edits)));
}

function cmp(a: Position, b: Position): number {
  return a.line - b.line || a.character - b.character;
}

/** The clipboard's text is what some hunk inserted (ignoring surrounding whitespace). */
export function insertsClipboard(hunks: readonly Hunk[], clipboard: string | undefined): boolean {
  const clip = clipboard?.trim();
  return !!clip && hunks.some((h) => h.text.trim() === clip);
}

/**
 * Where the hunks' new text stands after all of them, as offset ranges of the final document.
 * The hunks apply in order, each against the text the previous ones left (VS Code lists one
 * edit's hunks last first, so that also holds for them), so earlier results shift with every
 * later hunk; touching or overlapping results are merged, and a deletion leaves an empty range
 * where the text was.
 */
export function insertedOffsets(hunks: readonly Pick<Hunk, 'rangeOffset' | 'rangeLength' | 'text'>[]): { start: number; end: number }[] {
  let spans: { start: number; end: number }[] = [];
  for (const h of hunks) {
    const start = h.rangeOffset;
    const oldEnd = start + h.rangeLength;
    const delta = h.text.length - h.rangeLength;
    let merged = { start, end: start + h.text.length };
    const next: { start: number; end: number }[] = [];
    for (const s of spans) {
      if (s.end < start) {
        next.push(s); // wholly before: unchanged
      } else if (s.start > oldEnd) {
        next.push({ start: s.start + delta, end: s.end + delta }); // wholly after: shifted
      } else {
        // overlaps or touches the replaced range: one span with the new text
        merged = {
          start: Math.min(merged.start, s.start),
          end: Math.max(merged.end, s.end <= oldEnd ? merged.end : s.end + delta),
        };
      }
    }
    next.push(merged);
    spans = next.sort((a, b) => a.start - b.start);
  }
  return spans;
}

/** Offset ranges to line/character ranges through the final document's `positionAt`. */
export function toRanges(spans: readonly { start: number; end: number }[], positionAt: (offset: number) => Position, max = 1000): Range[] {
  let use = spans;
  if (use.length > max) {
    // The schema allows 1000; one range over all of them says the same lines, coarser.
    use = [{ start: use[0].start, end: use[use.length - 1].end }];
  }
  return use.map((s) => ({ start: positionAt(s.start), end: positionAt(s.end) }));
}

/**
 * The hunks' new text in line/character coordinates of the text right after each hunk, for the
 * typing check (a cursor stands where the newest text ends). Not the final coordinates: see
 * `insertedOffsets` for those.
 */
function insertedRanges(hunks: readonly Hunk[]): Range[] {
  return hunks.map((h) => {
    const lines = h.text.split('\n');
    const start = h.range.start;
    const end =
      lines.length === 1
        ? { line: start.line, character: start.character + h.text.length }
        : { line: start.line + lines.length - 1, character: lines[lines.length - 1].length };
    return { start, end };
  });
}
