// Which editor changes are an assistant's (attribution.ts), and where its text stands after them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ChangeFacts,
  Hunk,
  Position,
  burstFacts,
  classifyChange,
  fromDetailedReason,
  insertedOffsets,
  insertsClipboard,
  matchesOffered,
  toRanges,
} from '../src/attribution';

function positionAt(text: string) {
  return (offset: number): Position => {
    const before = text.slice(0, offset).split('\n');
    return { line: before.length - 1, character: before[before.length - 1].length };
  };
}

function offsetAt(text: string, p: Position): number {
  const lines = text.split('\n');
  return lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
}

/** A hunk against `text` (the document as it is before this hunk), as VS Code reports it. */
function hunk(text: string, start: Position, end: Position, insert: string): Hunk {
  const rangeOffset = offsetAt(text, start);
  return { range: { start, end }, rangeOffset, rangeLength: offsetAt(text, end) - rangeOffset, text: insert };
}

function apply(text: string, hunks: readonly Hunk[]): string {
  return hunks.reduce((t, h) => t.slice(0, h.rangeOffset) + h.text + t.slice(h.rangeOffset + h.rangeLength), text);
}

const DOC = 'def f():\n    return 1\n\n\ndef g():\n    return 2\n';

/** Two hunks far apart, as an agent's edit: nothing a keystroke produces. */
const AGENT_HUNKS: Hunk[] = [
  // last first, as VS Code lists one edit's hunks
  hunk(DOC, { line: 5, character: 11 }, { line: 5, character: 12 }, '"two"'),
  hunk(DOC, { line: 1, character: 11 }, { line: 1, character: 12 }, '"one"'),
];

/** The facts of a change nothing explains but an assistant: a background tab, window focused. */
function facts(over: Partial<ChangeFacts> = {}): ChangeFacts {
  return {
    hunks: AGENT_HUNKS,
    undoRedo: false,
    ownEdit: false,
    formatting: false,
    pasted: false,
    dirty: true,
    visible: false,
    hiddenForMs: 60_000,
    inTab: true,
    windowFocused: true,
    unfocusedForMs: 0,
    burst: { visibleChanged: false, uniform: false },
    ...over,
  };
}

/** The user has been away from the window for a while. */
const AWAY = { windowFocused: false, unfocusedForMs: 30_000 };

/** The user's own keystroke: one character where the cursor is, the cursor just moved by keyboard. */
const typed: Partial<ChangeFacts> = {
  hunks: [hunk(DOC, { line: 1, character: 12 }, { line: 1, character: 12 }, '0')],
  keyboard: { msAgo: 5, selections: [{ start: { line: 1, character: 13 }, end: { line: 1, character: 13 } }] },
  visible: true,
};

test('a multi-hunk edit of a document open in a tab but not shown is another extension’s', () => {
  assert.deepEqual(classifyChange(facts()), { kind: 'assistant', source: 'extension', why: 'changed in a tab that is not shown' });
});

test('a multi-hunk edit while the window is not focused is another extension’s, even in a visible editor', () => {
  const v = classifyChange(facts({ ...AWAY, visible: true, hiddenForMs: 0, burst: { visibleChanged: true, uniform: false } }));
  assert.equal(v.kind, 'assistant');
  assert.equal(v.kind === 'assistant' && v.source, 'extension');
});

test('an edit moments after the user switched away may be their own slow command: nothing is said', () => {
  assert.equal(classifyChange(facts({ windowFocused: false, unfocusedForMs: 800, visible: true, hiddenForMs: 0 })).kind, 'unsure');
  assert.equal(classifyChange(facts({ hiddenForMs: 1200 })).kind, 'unsure');
});

test('typing is never an assistant’s, not even when the window reports no focus', () => {
  assert.deepEqual(classifyChange(facts({ ...typed, ...AWAY })), { kind: 'user', why: 'typing' });
  assert.deepEqual(classifyChange(facts({ ...typed, visible: false })), { kind: 'user', why: 'typing' });
  // multi-cursor typing: a hunk at every cursor
  const cursors = [5, 1].map((line) => ({ start: { line, character: 5 }, end: { line, character: 5 } }));
  const multi = [5, 1].map((line) => hunk(DOC, { line, character: 4 }, { line, character: 4 }, 'x'));
  assert.equal(classifyChange(facts({ hunks: multi, keyboard: { msAgo: 20, selections: cursors }, ...AWAY })).kind, 'user');
  // a keystroke long ago, or far from the edit, explains nothing
  assert.equal(classifyChange(facts({ ...typed, keyboard: { msAgo: 60_000, selections: typed.keyboard!.selections }, ...AWAY })).kind, 'assistant');
  const elsewhere = [{ start: { line: 5, character: 0 }, end: { line: 5, character: 0 } }];
  assert.equal(classifyChange(facts({ ...typed, keyboard: { msAgo: 5, selections: elsewhere }, ...AWAY })).kind, 'assistant');
});

test('a paste is never an assistant’s: the inserted text is the clipboard', () => {
  const pasteHunk = [hunk(DOC, { line: 2, character: 0 }, { line: 2, character: 0 }, 'x = compute()\n')];
  assert.ok(insertsClipboard(pasteHunk, '  x = compute()  '));
  assert.equal(insertsClipboard(pasteHunk, 'something else'), false);
  assert.equal(insertsClipboard(pasteHunk, ''), false);
  assert.equal(insertsClipboard(pasteHunk, undefined), false);
  assert.deepEqual(classifyChange(facts({ hunks: pasteHunk, pasted: true, ...AWAY })), { kind: 'user', why: 'paste' });
});

test('undo and redo are never an assistant’s', () => {
  assert.deepEqual(classifyChange(facts({ undoRedo: true, ...AWAY })), { kind: 'user', why: 'undo or redo' });
  // not even when VS Code's edit source names a chat edit (undoing it is the user's act)
  const chat = { source: 'Chat.applyEdits', metadata: { source: 'Chat.applyEdits' } };
  assert.equal(classifyChange(facts({ undoRedo: true, detailedReason: chat })).kind, 'user');
});

test('formatting on save is never an assistant’s', () => {
  assert.deepEqual(classifyChange(facts({ formatting: true, ...AWAY })), { kind: 'user', why: 'formatting on save' });
  const formatCommand = { source: 'unknown', metadata: { source: 'unknown', name: 'formatEditsCommand' } };
  assert.equal(classifyChange(facts({ detailedReason: formatCommand, ...AWAY })).kind, 'user');
});

test('Comodor’s own quick fix or fix-all is never an assistant’s', () => {
  // the server offered: replace the double-quoted string on line 1 with a single-quoted one
  const quickFix = [{ range: { start: { line: 1, character: 11 }, end: { line: 1, character: 16 } }, newText: "'one'" }];
  const applied: Hunk[] = [{ range: quickFix[0].range, rangeOffset: 20, rangeLength: 5, text: "'one'" }];
  assert.ok(matchesOffered(applied, [quickFix]));
  assert.equal(matchesOffered(AGENT_HUNKS, [quickFix]), false);
  assert.equal(matchesOffered([], [quickFix]), false);
  // fix-all: two touching edits of one action that VS Code applied as one hunk over both
  const fixAll = [
    { range: { start: { line: 3, character: 4 }, end: { line: 3, character: 9 } }, newText: "'a'" },
    { range: { start: { line: 3, character: 9 }, end: { line: 3, character: 14 } }, newText: ", 'b'" },
  ];
  const merged: Hunk = { range: { start: { line: 3, character: 4 }, end: { line: 3, character: 14 } }, rangeOffset: 40, rangeLength: 10, text: "'a', 'b'" };
  assert.ok(matchesOffered([merged], [quickFix, fixAll]));
  assert.equal(matchesOffered([{ ...merged, text: 'other text' }], [fixAll]), false);
  assert.deepEqual(classifyChange(facts({ ownEdit: true, ...AWAY })), { kind: 'user', why: "Comodor's own fix" });
  // VS Code's word for an applied code action agrees
  const codeAction = { source: 'codeAction', metadata: { source: 'codeAction', $kind: 'quickfix', $extensionId: 'comodor.comodor' } };
  assert.equal(classifyChange(facts({ detailedReason: codeAction, ...AWAY })).kind, 'user');
});

test('VS Code’s chat edit source makes a chat edit, even in the editor the user looks at', () => {
  const chat = {
    source: 'Chat.applyEdits',
    metadata: { source: 'Chat.applyEdits', $extensionId: 'GitHub.copilot-chat', $modelId: 'gpt' },
  };
  assert.deepEqual(classifyChange(facts({ detailedReason: chat, visible: true })), {
    kind: 'assistant',
    source: 'chat-edit:GitHub.copilot-chat',
    why: 'VS Code: Chat.applyEdits',
  });
  assert.equal(fromDetailedReason({ source: 'inlineChat.applyEdits', metadata: {} })?.kind, 'assistant');
  // an extension id the schema would refuse is left off rather than sent
  const odd = { source: 'Chat.applyEdits', metadata: { $extensionId: 'has spaces/and slashes' } };
  assert.deepEqual(fromDetailedReason(odd), { kind: 'assistant', source: 'chat-edit', why: 'VS Code: Chat.applyEdits' });
});

test('an accepted inline completion is an inline completion, a next edit suggestion a next edit', () => {
  // accepted with Tab: a keystroke right there, which VS Code's word outranks
  const tab = { ...typed, visible: true };
  const accept = { source: 'inlineCompletionAccept', metadata: { source: 'inlineCompletionAccept', $nes: false, $extensionId: 'GitHub.copilot' } };
  assert.deepEqual(classifyChange(facts({ ...tab, detailedReason: accept })), {
    kind: 'assistant',
    source: 'inline-completion:GitHub.copilot',
    why: 'VS Code: inlineCompletionAccept',
  });
  const nes = { source: 'inlineCompletionAccept', metadata: { source: 'inlineCompletionAccept', $nes: true } };
  const v = classifyChange(facts({ ...tab, detailedReason: nes }));
  assert.equal(v.kind === 'assistant' && v.source, 'next-edit');
  const partial = { source: 'inlineCompletionPartialAccept', metadata: { type: 'word', $nes: false } };
  assert.equal(fromDetailedReason(partial)?.kind === 'assistant' && (fromDetailedReason(partial) as { source: string }).source, 'inline-completion');
});

test('VS Code’s word for typing, paste, suggestions, snippets and renames is the user’s', () => {
  for (const source of ['cursor', 'suggest', 'snippet', 'rename', 'reloadFromDisk', 'Chat.undoEdits']) {
    const v = classifyChange(facts({ detailedReason: { source, metadata: { source, kind: 'type' } }, ...AWAY }));
    assert.equal(v.kind, 'user', source);
  }
});

test('a detailed reason that proves nothing, or is malformed, leaves the decision to the stable signals', () => {
  for (const detailed of [undefined, null, 42, 'Chat.applyEdits', {}, { source: 7 }, { source: 'unknown', metadata: {} }, { source: 'applyEdits' }]) {
    assert.equal(fromDetailedReason(detailed), undefined, JSON.stringify(detailed));
  }
  // the source may come in the metadata alone
  assert.equal(fromDetailedReason({ metadata: { source: 'Chat.applyEdits' } })?.kind, 'assistant');
  assert.equal(classifyChange(facts({ detailedReason: { source: 'applyEdits' }, visible: true })).kind, 'unsure');
});

test('when nothing tells the user from an assistant, nothing is said', () => {
  // a focused, visible editor: the user's refactoring looks the same
  assert.equal(classifyChange(facts({ visible: true })).kind, 'unsure');
  // the same burst changed the editor the user looks at (a rename from there)
  assert.equal(classifyChange(facts({ burst: { visibleChanged: true, uniform: false } })).kind, 'unsure');
  // the same text everywhere: a rename or a Replace All
  assert.equal(classifyChange(facts({ ...AWAY, burst: { visibleChanged: false, uniform: true } })).kind, 'unsure');
  // the document matches the disk again: a reload or a revert, which the disk watcher handles
  assert.equal(classifyChange(facts({ dirty: false, ...AWAY })).kind, 'unsure');
  assert.equal(classifyChange(facts({ hunks: [] })).kind, 'unsure');
});

test('edits of a file the user has not opened are never an assistant’s', () => {
  assert.deepEqual(classifyChange(facts({ inTab: false, ...AWAY })), { kind: 'user', why: 'a file the user has not opened' });
});

test('a burst is uniform when every hunk inserts the same text, and notes a visible document', () => {
  const rename = [
    { hunks: [hunk(DOC, { line: 0, character: 4 }, { line: 0, character: 5 }, 'h')], visible: true, undoRedo: false },
    { hunks: [hunk(DOC, { line: 4, character: 4 }, { line: 4, character: 5 }, 'h')], visible: false, undoRedo: false },
  ];
  assert.deepEqual(burstFacts(rename), { visibleChanged: true, uniform: true });
  assert.deepEqual(burstFacts([{ hunks: AGENT_HUNKS, visible: false, undoRedo: false }]), { visibleChanged: false, uniform: false });
  // one hunk alone is not "the same text everywhere"
  assert.equal(burstFacts([rename[1]]).uniform, false);
});

test('ranges are where the new text stands after the edit, a later hunk shifted by earlier ones', () => {
  // sequential hunks, top first: the second is reported against the text the first left
  const h1 = hunk(DOC, { line: 0, character: 0 }, { line: 0, character: 0 }, 'import os\nimport re\n');
  const mid = apply(DOC, [h1]);
  const h2 = hunk(mid, { line: 3, character: 11 }, { line: 3, character: 12 }, 'os.sep\n    # done');
  const h3 = hunk(apply(mid, [h2]), { line: 0, character: 7 }, { line: 0, character: 9 }, 'sys'); // inside h1's text
  const hunks = [h1, h2, h3];
  const final = apply(DOC, hunks);
  const spans = insertedOffsets(hunks);
  const ranges = toRanges(spans, positionAt(final));
  assert.deepEqual(ranges, [
    { start: { line: 0, character: 0 }, end: { line: 2, character: 0 } }, // h1, with h3 inside it
    { start: { line: 3, character: 11 }, end: { line: 4, character: 10 } }, // h2, two lines down
  ]);
  assert.equal(final.slice(spans[0].start, spans[0].end), 'import sys\nimport re\n');
  assert.equal(final.slice(spans[1].start, spans[1].end), 'os.sep\n    # done');
});

test('ranges of one edit’s hunks listed last first, as VS Code reports them', () => {
  const final = apply(DOC, AGENT_HUNKS);
  const spans = insertedOffsets(AGENT_HUNKS);
  assert.deepEqual(spans.map((s) => final.slice(s.start, s.end)), ['"one"', '"two"']);
  assert.deepEqual(toRanges(spans, positionAt(final)), [
    { start: { line: 1, character: 11 }, end: { line: 1, character: 16 } },
    { start: { line: 5, character: 11 }, end: { line: 5, character: 16 } },
  ]);
});

test('a deletion leaves an empty range where the text was; touching hunks merge', () => {
  const del = hunk(DOC, { line: 1, character: 4 }, { line: 1, character: 12 }, '');
  const final = apply(DOC, [del]);
  assert.deepEqual(toRanges(insertedOffsets([del]), positionAt(final)), [{ start: { line: 1, character: 4 }, end: { line: 1, character: 4 } }]);
  const a = hunk(DOC, { line: 0, character: 0 }, { line: 0, character: 3 }, 'async def');
  const b = hunk(apply(DOC, [a]), { line: 0, character: 9 }, { line: 0, character: 10 }, ' ');
  assert.deepEqual(insertedOffsets([a, b]), [{ start: 0, end: 10 }]);
});

test('more ranges than the schema allows become one range over all of them', () => {
  const spans = Array.from({ length: 1001 }, (_, i) => ({ start: i * 2, end: i * 2 + 1 }));
  const text = 'x\n'.repeat(1001);
  assert.deepEqual(toRanges(spans, positionAt(text)), [{ start: { line: 0, character: 0 }, end: { line: 1000, character: 1 } }]);
});

// Ghost text accepted with Tab, without the edit-source proposal: Comodor's Tab command marks
// the document, and only the change that command's accept makes counts.
const CURSOR = { line: 1, character: 4 };
/** The user typed `    ` on line 1 and the ghost text `return 1` was accepted at the cursor. */
const GHOST = [hunk('def f():\n    \n', CURSOR, CURSOR, 'return 1')];

function accepted(over: Partial<ChangeFacts['inlineAccept'] & object> = {}): ChangeFacts {
  return facts({
    hunks: GHOST,
    visible: true,
    hiddenForMs: 0,
    // the user was typing just before Tab: the hunk is where the keyboard left the cursor
    keyboard: { msAgo: 300, selections: [{ start: CURSOR, end: CURSOR }] },
    inlineAccept: { versionBefore: 7, versionAfter: 8, cursor: CURSOR, msAfter: 20, typedSince: false, cursorMovedByAccept: true, activeEditor: true, ...over },
  });
}

test('ghost text accepted with Tab is an inline completion, though the user typed just before', () => {
  assert.deepEqual(classifyChange(accepted()), { kind: 'assistant', source: 'inline-completion', why: 'accepted with Tab (ghost text)' });
  assert.deepEqual(classifyChange({ ...accepted(), inlineAccept: undefined }).kind, 'user'); // without the mark: typing
});

test('a completion replacing the word at the cursor, with an import at the top, is still accepted', () => {
  const word = hunk('def f():\n    ret\n', { line: 1, character: 4 }, { line: 1, character: 7 }, 'return 1');
  const imp = hunk('def f():\n    ret\n', { line: 0, character: 0 }, { line: 0, character: 0 }, 'import os\n');
  const f = accepted({ cursor: { line: 1, character: 7 } });
  assert.equal(classifyChange({ ...f, hunks: [word, imp] }).kind, 'assistant');
});

test('after Tab, anything but the very next change at the cursor is never an inline completion', () => {
  for (const [name, over] of [
    ['a later version', { versionAfter: 9 }],
    ['typing came between', { typedSince: true }],
    ['a keystroke raced Tab: the cursor moved by keyboard, not by the accept', { cursorMovedByAccept: false }],
    ['too late', { msAfter: 5000 }],
    ['another editor', { activeEditor: false }],
  ] as const) {
    assert.equal(classifyChange(accepted(over)).kind, 'user', name);
  }
  const elsewhere = [hunk(DOC, { line: 4, character: 0 }, { line: 4, character: 0 }, 'x')];
  assert.notEqual(classifyChange({ ...accepted(), hunks: elsewhere }).kind, 'assistant', 'not at the cursor');
  const deletion = [hunk('def f():\n    x\n', CURSOR, { line: 1, character: 5 }, '')];
  assert.notEqual(classifyChange({ ...accepted(), hunks: deletion }).kind, 'assistant', 'a deletion');
});

test('with the proposal, VS Code says the source and the Tab mark adds nothing', () => {
  const f = { ...accepted(), detailedReason: { source: 'inlineCompletionAccept', metadata: { $extensionId: 'github.copilot' } } };
  assert.equal((classifyChange(f) as { source: string }).source, 'inline-completion:github.copilot');
  assert.equal(classifyChange({ ...accepted(), detailedReason: { source: 'cursor' } }).kind, 'user');
});
