import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnnouncementPolicy } from '../src/announcements';
import { rule } from './fixtures';

test('a rule is announced once; reinforcements are silent', () => {
  const p = new AnnouncementPolicy();
  assert.equal(p.decide(rule({ id: 1 }), false).kind, 'announce');
  const again = p.decide(rule({ id: 1, support: 4 }), false);
  assert.equal(again.kind, 'silent');
  assert.equal(again.kind === 'silent' && again.reason, 'reinforcement');
  assert.equal(p.decide(rule({ id: 2 }), false).kind, 'announce');
});

test('a rule the server marks as taught (the user stated it) is not announced', () => {
  const p = new AnnouncementPolicy();
  const d = p.decide(rule({ id: 9, source: 'user', statement: 'Use tabs.' }), true);
  assert.equal(d.kind === 'silent' && d.reason, 'taught');
});

test('a user rule that became confident without being taught here is announced', () => {
  const p = new AnnouncementPolicy();
  assert.equal(p.decide(rule({ id: 4, source: 'user', statement: 'Use tabs.' }), false).kind, 'announce');
});

test('a forgotten rule can be announced again', () => {
  const p = new AnnouncementPolicy();
  p.decide(rule({ id: 5 }), false);
  p.forgetRule(5);
  assert.equal(p.decide(rule({ id: 5 }), false).kind, 'announce');
});

test('inactive rules are not announced', () => {
  const p = new AnnouncementPolicy();
  assert.equal(p.decide(rule({ id: 6, active: false }), false).kind, 'silent');
});
