import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnnouncementPolicy, normalizeStatement } from '../src/announcements';
import { rule } from './fixtures';

test('a rule is announced once; reinforcements are silent', () => {
  const p = new AnnouncementPolicy();
  assert.equal(p.decide(rule({ id: 1 })).kind, 'announce');
  const again = p.decide(rule({ id: 1, support: 4 }));
  assert.equal(again.kind, 'silent');
  assert.equal(again.kind === 'silent' && again.reason, 'reinforcement');
  assert.equal(p.decide(rule({ id: 2 })).kind, 'announce');
});

test('a user rule taught from the palette is not announced (matched by id)', () => {
  const p = new AnnouncementPolicy();
  const done = p.beginTeach('Use tabs');
  done(rule({ id: 9, source: 'user', statement: 'Use tabs.' }));
  const d = p.decide(rule({ id: 9, source: 'user', statement: 'Use tabs.' }));
  assert.equal(d.kind === 'silent' && d.reason, 'taught-here');
});

test('a user rule arriving while the teach request is in flight is matched by statement', () => {
  const p = new AnnouncementPolicy();
  const done = p.beginTeach('  Use   TABS ');
  assert.ok(p.teachInFlight);
  const d = p.decide(rule({ id: 3, source: 'user', statement: 'Use tabs.' }));
  assert.equal(d.kind === 'silent' && d.reason, 'taught-here');
  done();
  assert.equal(p.teachInFlight, false);
});

test('a user rule taught elsewhere (e.g. by an agent over MCP) is announced', () => {
  const p = new AnnouncementPolicy();
  p.beginTeach('Something else')();
  assert.equal(p.decide(rule({ id: 4, source: 'user', statement: 'Use tabs.' })).kind, 'announce');
});

test('a forgotten rule can be announced again', () => {
  const p = new AnnouncementPolicy();
  p.decide(rule({ id: 5 }));
  p.forgetRule(5);
  assert.equal(p.decide(rule({ id: 5 })).kind, 'announce');
});

test('inactive rules are not announced', () => {
  const p = new AnnouncementPolicy();
  assert.equal(p.decide(rule({ id: 6, active: false })).kind, 'silent');
});

test('the settle function is idempotent', () => {
  const p = new AnnouncementPolicy();
  const a = p.beginTeach('x');
  const b = p.beginTeach('x');
  a();
  a();
  assert.ok(p.teachInFlight);
  b();
  assert.equal(p.teachInFlight, false);
  assert.equal(normalizeStatement('Use Tabs!! '), 'use tabs');
});
