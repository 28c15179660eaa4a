// Sample protocol objects for the unit tests.
import type { Lesson, Rule } from '../src/protocol';

export function rule(over: Partial<Rule> = {}): Rule {
  return {
    id: 1, key: 'quotes.style', value: 'single', category: 'style', statement: 'Use single quotes for strings.',
    detail: '', scope: 'project:abc', language: 'python', support: 3, against: 0, strength: 0.9,
    confident: true, pinned: false, active: true, source: 'correction', createdAt: 0, updatedAt: 0, evidence: '', team: false,
    contested: false, opposition: '',
    ...over,
  };
}

export function lesson(over: Partial<Lesson> = {}): Lesson {
  return {
    id: 7, kind: 'preference', scope: 'global', trigger: 'running tests', guidance: 'use pytest -q',
    confidence: 0.856, uses: 2, wins: 1, losses: 0, pinned: false, source: 'user', createdAt: 0, updatedAt: 0,
    lastUsed: 0, ...over,
  };
}
