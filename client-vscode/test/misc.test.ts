import type { Lesson } from '../src/protocol';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CrashBudget } from '../src/crashBudget';
import { debounce } from '../src/debounce';
import { recallLabel, summariseRecall } from '../src/recall';
import { ServerApi } from '../src/serverApi';
import { lesson, rule } from './fixtures';

test('crash budget allows 4 restarts in 3 minutes, then stops; old crashes expire', () => {
  const b = new CrashBudget(4, 180_000);
  for (let i = 0; i < 4; i++) {
    assert.ok(b.allowRestart(i * 1000));
  }
  assert.equal(b.allowRestart(5000), false);
  assert.ok(b.allowRestart(5000 + 180_000));
});

test('debounce coalesces a burst into one call', async () => {
  let calls = 0;
  const d = debounce(() => calls++, 20);
  d();
  d();
  d();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(calls, 1);
  d();
  d.cancel();
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(calls, 1);
});

test('recall summary counts rules and lessons and keeps the subject', () => {
  const junk = [null, 'x'] as unknown as Lesson[]; // a malformed notification must not throw
  const s = summariseRecall({ action: 'recalled', rules: [rule()], items: [lesson(), lesson(), ...junk], query: 'add tests' });
  assert.equal(s.rules, 1);
  assert.equal(s.lessons, 2);
  assert.equal(s.subject, 'add tests');
  assert.equal(recallLabel(s), '1 rule, 2 lessons');
  assert.equal(recallLabel(summariseRecall({ action: 'recalled' })), 'nothing');
});

test('server commands are sent as workspace/executeCommand with one object argument', async () => {
  const sent: Array<[string, unknown]> = [];
  const api = new ServerApi(async (method, params) => {
    sent.push([method, params]);
    return { rules: [rule()] };
  });
  await api.teachRule('Use tabs.');
  await api.setRule(3, { active: false });
  const rules = await api.rules(false);
  await api.feedback(true);
  assert.equal(rules.length, 1);
  assert.deepEqual(sent, [
    ['workspace/executeCommand', { command: 'comodor.teachRule', arguments: [{ statement: 'Use tabs.' }] }],
    ['workspace/executeCommand', { command: 'comodor.setRule', arguments: [{ id: 3, active: false }] }],
    ['workspace/executeCommand', { command: 'comodor.rules', arguments: [{ includeUnconfident: false }] }],
    ['workspace/executeCommand', { command: 'comodor.feedback', arguments: [{ good: true }] }],
  ]);
});
