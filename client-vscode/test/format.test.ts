import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  agentWritesSummary,
  writeSourceWords,
  announcementText,
  correctionDescription,
  lessonDescription,
  lessonText,
  percent,
  ruleDescription,
  ruleEvidence,
  statusText,
  truncate,
} from '../src/format';
import { lesson, rule } from './fixtures';

test('evidence reads like the protocol example', () => {
  assert.equal(ruleEvidence(rule()), '3 corrections · 100% agree');
  assert.equal(ruleEvidence(rule({ support: 3, against: 1 })), '3 corrections · 75% agree');
  // The server's own wording wins: it knows denials and config files from corrections.
  assert.equal(ruleEvidence(rule({ evidence: '2 denials · 100% agree' })), '2 denials · 100% agree');
  assert.equal(ruleEvidence(rule({ support: 1 })), '1 correction · 100% agree');
  assert.equal(ruleEvidence(rule({ source: 'user', support: 0 })), 'taught by you');
  assert.equal(ruleEvidence(rule({ source: 'evidence', support: 12, against: 0 })), '12 examples · 100% agree');
});

test('description adds language and state', () => {
  assert.equal(ruleDescription(rule()), '3 corrections · 100% agree · python');
  assert.equal(
    ruleDescription(rule({ language: null, pinned: true, confident: false })),
    '3 corrections · 100% agree · all languages · pinned · not yet confident',
  );
  assert.equal(ruleDescription(rule({ active: false })), '3 corrections · 100% agree · python · disabled');
});

test('a contested rule says so, with the other side', () => {
  const contested = rule({
    confident: false,
    contested: true,
    evidence: '2 of the last 3 corrections · 2 of 4 in all',
    opposition: '2 corrections for double',
  });
  assert.equal(
    ruleDescription(contested),
    '2 of the last 3 corrections · 2 of 4 in all · python · contested, against: 2 corrections for double',
  );
});

test('announcement names the number of corrections (rule.support)', () => {
  assert.equal(
    announcementText(rule({ support: 2 })),
    'Learned: Use single quotes for strings. — from 2 of your corrections',
  );
  assert.equal(announcementText(rule({ support: 1 })), 'Learned: Use single quotes for strings. — from your correction');
});

test('lesson text hides the catch-all trigger', () => {
  assert.equal(lessonText(lesson()), 'When running tests: use pytest -q');
  assert.equal(lessonText(lesson({ trigger: 'generally' })), 'use pytest -q');
  assert.equal(lessonDescription(lesson({ pinned: true })), 'preference · 86% · pinned');
});

test('small helpers', () => {
  assert.equal(percent(null), '—');
  assert.equal(percent(0.5), '50%');
  assert.equal(truncate('a  b\n c', 10), 'a b c');
  assert.equal(truncate('abcdefghij', 5), 'abcd…');
  assert.equal(correctionDescription('correction', ['quotes.style']), 'quotes.style');
  assert.equal(correctionDescription('correction', []), 'corrected');
  assert.equal(correctionDescription('undo', []), 'undone');
});

test('status says whether agent writes are seen, and what was captured', () => {
  const stats = {
    lessons: 0, rules: 2, confidentRules: 2, episodes: 1, agentWrites: 2, corrections: 2, undos: 0,
    scope: 'project:abc', brainPath: '/tmp/brain.db', watching: 'native', prefetchReady: 0,
    agentWritesBySource: { disk: 2 },
  };
  assert.equal(
    statusText(stats),
    'Comodor is watching this workspace for files your assistant writes. ' +
      'Seen: 2 edits by your assistant, 2 corrections, 0 undos. Remembered: 2 house rules, 0 lessons, 1 task.',
  );
  assert.match(statusText({ ...stats, watching: 'off', rules: 3 }), /^Comodor isn't watching.*3 house rules \(2 confident\)/);
  // an older server that does not say what its watcher does
  assert.match(statusText({ ...stats, watching: undefined } as unknown as typeof stats), /watcher has stopped/);
});

test('the tooltip counts the assistant’s writes by source, in protocol order', () => {
  const stats = {
    agentWrites: 9,
    agentWritesBySource: { disk: 3, command: 1, 'chat-edit': 2, 'inline-completion': 1, 'next-edit': 0, extension: 2 },
  };
  assert.deepEqual(agentWritesSummary(stats), {
    total: '9 edits by your assistant seen',
    bySource: ['3 written to disk', '1 reported by the assistant', '2 chat edits', '1 accepted inline completion', '2 edits by other extensions'],
  });
  assert.deepEqual(agentWritesSummary({ agentWrites: 1, agentWritesBySource: { 'next-edit': 1 } }).bySource, ['1 accepted next edit suggestion']);
  assert.equal(agentWritesSummary({ agentWrites: 0, agentWritesBySource: {} }).total, 'No edits by your assistant seen yet');
});

test('an older server without agentWritesBySource still gets its total; odd values are left out', () => {
  assert.deepEqual(agentWritesSummary({ agentWrites: 4 }), { total: '4 edits by your assistant seen', bySource: [] });
  assert.deepEqual(agentWritesSummary({}), { total: undefined, bySource: [] });
  assert.deepEqual(agentWritesSummary({ agentWrites: 2, agentWritesBySource: [1, 2] }).bySource, []);
  assert.deepEqual(
    agentWritesSummary({ agentWrites: 5, agentWritesBySource: { disk: 'many', command: -1, chat: 2, 'chat-edit': 3 } }).bySource,
    ['3 chat edits', '2 chat'], // a source a newer server adds shows under its own name
  );
});

test('a corrections row says who made the write', () => {
  assert.equal(writeSourceWords('chat-edit'), 'a chat edit');
  assert.equal(writeSourceWords('chat-edit:acme.helper'), 'a chat edit (acme.helper)');
  assert.equal(writeSourceWords('inline-completion'), 'an accepted inline completion');
  assert.equal(writeSourceWords('extension:x.y'), 'an edit by another extension (x.y)');
  assert.equal(writeSourceWords('disk'), "the assistant's write, written to disk");
  assert.equal(writeSourceWords('telepathy'), 'telepathy');
});
