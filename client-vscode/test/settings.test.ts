import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { CLIENT_SETTINGS, SERVER_SETTINGS, buildServerSettings, explicitValue } from '../src/settings';

const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
const props: Record<string, { default: unknown; scope?: string; type: string }> =
  manifest.contributes.configuration.properties;

function readerFromDefaults(overrides: Record<string, unknown> = {}) {
  return (key: string) => (key in overrides ? overrides[key] : props[`comodor.${key}`]?.default);
}

test('defaults map to the protocol initializationOptions shape', () => {
  const opts = buildServerSettings(readerFromDefaults());
  assert.deepEqual(opts, {
    learning: {
      enabled: true, topK: 6, maxPlaybookTokens: 800, rulesTokens: 300, halfLifeDays: 45,
      minConfidence: 0.15, shareScope: 'project', corrections: true, rules: true, announce: true,
      prefetch: true, prefetchDelayMs: 150, correctionWindowMinutes: 120, holdoutRate: 0,
      archiveAfterDays: 0,
    },
    reflect: { enabled: false, endpoint: '', model: '', apiKeyEnv: '', timeoutS: 60 },
    watch: { enabled: true, exclude: [], maxFileBytes: 2000000 },
    sync: { targets: [] },
    diagnostics: { severity: 'information', configRules: false },
  });
});

test('brainPath is sent only when set; client-only settings never reach the server', () => {
  const opts = buildServerSettings(
    readerFromDefaults({ brainPath: '/data/brain.db', 'server.path': '/usr/bin/python3', 'trace.server': 'verbose' }),
  );
  assert.equal(opts.brainPath, '/data/brain.db');
  assert.equal('server' in opts, false);
  assert.equal('trace' in opts, false);
});

test('values of the wrong type are dropped so the server keeps its default', () => {
  const opts = buildServerSettings(
    readerFromDefaults({ 'learning.topK': 'ten', 'watch.exclude': ['a', 3], 'learning.minConfidence': NaN }),
  );
  const learning = opts.learning as Record<string, unknown>;
  assert.equal('topK' in learning, false);
  assert.equal('minConfidence' in learning, false);
  assert.equal('exclude' in (opts.watch as object), false);
  assert.equal(learning.halfLifeDays, 45);
});

test('arrays are copied, not shared with VS Code configuration objects', () => {
  const targets = ['AGENTS.md'];
  const opts = buildServerSettings(readerFromDefaults({ 'sync.targets': targets }));
  targets.push('CLAUDE.md');
  assert.deepEqual((opts.sync as { targets: string[] }).targets, ['AGENTS.md']);
});

test('every contributed setting is either sent to the server or client-only, and vice versa', () => {
  const contributed = Object.keys(props).map((k) => k.replace(/^comodor\./, '')).sort();
  const known = [...SERVER_SETTINGS.map((s) => s.key), ...CLIENT_SETTINGS].sort();
  assert.deepEqual(contributed, known);
});

test('settings that can send code away, move the brain or pick files to write cannot be set by a workspace', () => {
  const guarded = Object.keys(props).filter(
    (k) =>
      k.startsWith('comodor.reflect.') ||
      [
        'comodor.brainPath',
        'comodor.brain.url',
        'comodor.server.path',
        'comodor.server.interpreter',
        'comodor.sync.targets',
      ].includes(k),
  );
  assert.equal(guarded.length, 10);
  for (const key of guarded) {
    assert.ok(['machine', 'application'].includes(props[key].scope ?? ''), `${key} has scope ${props[key].scope}`);
  }
});

test('every contributed server setting has the type and default the server has', () => {
  const jsonType: Record<string, string[]> = {
    boolean: ['boolean'], number: ['number', 'integer'], string: ['string'], 'string[]': ['array'],
  };
  for (const spec of SERVER_SETTINGS) {
    const prop = props[`comodor.${spec.key}`];
    assert.ok(prop, `comodor.${spec.key} is not contributed`);
    assert.ok(jsonType[spec.type].includes(prop.type), `comodor.${spec.key}: ${prop.type} vs ${spec.type}`);
    assert.deepEqual(prop.default, spec.default, `comodor.${spec.key} default`);
  }
});

test('only values somebody set are sent: a default would hide the user settings file', () => {
  assert.equal(explicitValue({}), undefined);
  assert.equal(explicitValue({ globalValue: 4 }), 4);
  assert.equal(explicitValue({ globalValue: 4, workspaceValue: 5 }), 5);
  assert.equal(explicitValue({ globalValue: 4, workspaceValue: 5, workspaceFolderValue: 6 }), 6);
  assert.deepEqual(buildServerSettings(() => undefined), {});
});
