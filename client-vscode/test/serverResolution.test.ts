import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  Bundle,
  PythonProbe,
  ResolutionDeps,
  bundledLaunch,
  describeLaunch,
  expandHome,
  isPythonInterpreter,
  judgeServerInfo,
  makeWhich,
  parseVersionOutput,
  probePython,
  probeVersion,
  pythonFits,
  readBundle,
  resolveServer,
} from '../src/serverResolution';

const BUNDLE: Bundle = { root: '/ext/bundled', manifest: { name: 'comodor-lsp', version: '0.1.0', target: 'linux-x64', pythons: [] } };

interface Fakes {
  executables?: string[];
  /** interpreter path → its version */
  pythons?: Record<string, [number, number, number]>;
  /** `<command> [args] --version` output by command */
  versions?: Record<string, string>;
  onPath?: Record<string, string>;
}

function deps(over: Partial<ResolutionDeps> & Fakes = {}): ResolutionDeps {
  const exes = new Set(over.executables ?? []);
  return {
    configuredPath: undefined,
    configuredInterpreter: undefined,
    bundle: BUNDLE,
    pythonExtensionInterpreter: async () => undefined,
    which: async (name) => over.onPath?.[name],
    isExecutable: async (f) => exes.has(f),
    probePython: async (p): Promise<PythonProbe> => {
      const v = over.pythons?.[p];
      return v ? { version: v } : { error: `${p}: No such file or directory` };
    },
    probeVersion: async (command) => {
      const out = over.versions?.[command];
      return out === undefined ? { error: 'exit code 1' } : { output: out };
    },
    homedir: '/home/u',
    ...over,
  };
}

test('python interpreters are told apart from a server executable', () => {
  for (const p of ['/usr/bin/python', '/usr/bin/python3', '/v/bin/python3.11', 'C:\\Py\\python.exe', 'pythonw.exe', '/x/pypy3']) {
    assert.ok(isPythonInterpreter(p), p);
  }
  for (const p of ['/usr/local/bin/comodor-lsp', 'comodor.exe', '/opt/python-tools/comodor', '/x/python-config']) {
    assert.ok(!isPythonInterpreter(p), p);
  }
});

test('with nothing configured, the bundled server runs isolated on the first Python 3.11+ on PATH', async () => {
  const r = await resolveServer(
    deps({ onPath: { python3: '/usr/bin/python3', python3_: '' }, pythons: { '/usr/bin/python3': [3, 12, 1] } }),
  );
  assert.ok(r.ok);
  assert.deepEqual(r.launch, { command: '/usr/bin/python3', args: ['-I', path.join('/ext/bundled', 'tool', 'launch.py'), 'serve'], origin: 'bundled' });
});

test('the Python extension interpreter runs the bundle when new enough; too old ones are skipped for PATH', async () => {
  const chosen = await resolveServer(
    deps({ pythonExtensionInterpreter: async () => '/venv/bin/python', pythons: { '/venv/bin/python': [3, 13, 0] }, onPath: { python3: '/usr/bin/python3' } }),
  );
  assert.ok(chosen.ok);
  assert.equal(chosen.launch.command, '/venv/bin/python');

  const old = await resolveServer(
    deps({
      pythonExtensionInterpreter: async () => '/venv/bin/python',
      pythons: { '/venv/bin/python': [3, 9, 18], '/usr/bin/python3.11': [3, 11, 2] },
      onPath: { python3: '/venv/bin/python', 'python3.11': '/usr/bin/python3.11' },
    }),
  );
  assert.ok(old.ok);
  assert.equal(old.launch.command, '/usr/bin/python3.11');
  assert.match(old.tried[0], /\/venv\/bin\/python \(Python 3\.9\.18 is too old/);
});

test('only too-old Pythons: a clear failure that names them and offers the download', async () => {
  const r = await resolveServer(deps({ onPath: { python3: '/usr/bin/python3' }, pythons: { '/usr/bin/python3': [3, 10, 13] } }));
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.match(r.reason, /needs Python 3\.11 or newer/);
    assert.match(r.reason, /\/usr\/bin\/python3 is Python 3\.10\.13/);
    assert.deepEqual(r.fixes, ['downloadPython', 'openInterpreter']);
  }
});

test('no Python at all: a clear failure offering the download', async () => {
  const r = await resolveServer(deps());
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.match(r.reason, /found none/);
    assert.equal(r.fixes[0], 'downloadPython');
  }
});

test('a bundle with binary parts accepts only the Python versions it carries them for', async () => {
  const bundle: Bundle = { ...BUNDLE, manifest: { ...BUNDLE.manifest, pythons: ['3.11', '3.12'] } };
  assert.equal(pythonFits([3, 12, 0], bundle.manifest), undefined);
  assert.match(pythonFits([3, 13, 0], bundle.manifest) ?? '', /not one this build bundles its server for \(3\.11, 3\.12\)/);
  assert.equal(pythonFits([3, 13, 0], BUNDLE.manifest), undefined);
  assert.match(pythonFits([2, 7, 18], BUNDLE.manifest) ?? '', /too old/);
  const r = await resolveServer(
    deps({ bundle, onPath: { python3: '/a/python3', 'python3.12': '/b/python3.12' }, pythons: { '/a/python3': [3, 13, 1], '/b/python3.12': [3, 12, 4] } }),
  );
  assert.ok(r.ok);
  assert.equal(r.launch.command, '/b/python3.12');
});

test('comodor.server.interpreter is the explicit Python for the bundle, and reported when unusable', async () => {
  const ok = await resolveServer(deps({ configuredInterpreter: '~/py/bin/python3', executables: ['/home/u/py/bin/python3'], pythons: { '/home/u/py/bin/python3': [3, 11, 9] } }));
  assert.ok(ok.ok);
  assert.equal(ok.launch.command, '/home/u/py/bin/python3');
  const bad = await resolveServer(
    deps({ configuredInterpreter: '/opt/py/python3', executables: ['/opt/py/python3'], pythons: { '/opt/py/python3': [3, 8, 0] }, onPath: { python3: '/usr/bin/python3' } }),
  );
  assert.equal(bad.ok, false);
  if (!bad.ok) {
    assert.match(bad.reason, /comodor\.server\.interpreter is set to \/opt\/py\/python3, which cannot run Comodor's server: Python 3\.8\.0 is too old/);
  }
});

test('comodor.server.path = our server executable: it must say `comodor-lsp` to --version', async () => {
  const r = await resolveServer(
    deps({ configuredPath: '~/.local/bin/comodor-lsp', executables: ['/home/u/.local/bin/comodor-lsp'], versions: { '/home/u/.local/bin/comodor-lsp': 'comodor-lsp 0.1.0' } }),
  );
  assert.ok(r.ok);
  assert.deepEqual(r.launch, { command: '/home/u/.local/bin/comodor-lsp', args: ['serve'], origin: 'setting' });
});

test('comodor.server.path = a Python with comodor-lsp runs `python -m comodor_lsp serve`', async () => {
  const r = await resolveServer(deps({ configuredPath: '/v/bin/python3', executables: ['/v/bin/python3'], versions: { '/v/bin/python3': 'comodor-lsp 0.1.0' } }));
  assert.ok(r.ok);
  assert.equal(describeLaunch(r.launch), '/v/bin/python3 -m comodor_lsp serve');
});

test("PyPI's other comodor in comodor.server.path is refused, with the bundled server one click away", async () => {
  const r = await resolveServer(
    deps({ configuredPath: '/venv/bin/comodor', executables: ['/venv/bin/comodor'], versions: { '/venv/bin/comodor': 'comodor 2.0.1' } }),
  );
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.match(r.reason, /\/venv\/bin\/comodor, which is not the Comodor language server: “comodor --version” printed “comodor 2\.0\.1”.*PyPI's comodor, a different program/);
    assert.deepEqual(r.fixes, ['useBundled', 'openServerPath']);
  }
});

test('a Python without comodor-lsp in comodor.server.path is refused, not replaced by something else', async () => {
  const r = await resolveServer(deps({ configuredPath: '/v/bin/python3', executables: ['/v/bin/python3'], onPath: { python3: '/usr/bin/python3' }, pythons: { '/usr/bin/python3': [3, 12, 0] } }));
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.match(r.reason, /“python3 -m comodor_lsp --version” failed/);
  }
});

test('after "Use the Bundled Server" the setting is set aside', async () => {
  const r = await resolveServer(
    deps({ configuredPath: '/venv/bin/comodor', preferBundled: true, onPath: { python3: '/usr/bin/python3' }, pythons: { '/usr/bin/python3': [3, 11, 2] } }),
  );
  assert.ok(r.ok);
  assert.equal(r.launch.origin, 'bundled');
});

test('a missing executable in comodor.server.path is reported', async () => {
  const r = await resolveServer(deps({ configuredPath: '/nope/python3' }));
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.match(r.reason, /comodor\.server\.path is set to \/nope\/python3, which is not an executable file/);
  }
});

test('a development build without a bundle uses comodor-lsp on PATH only if it is ours', async () => {
  const ours = await resolveServer(deps({ bundle: undefined, onPath: { 'comodor-lsp': '/usr/bin/comodor-lsp' }, versions: { '/usr/bin/comodor-lsp': 'comodor-lsp 0.1.0' } }));
  assert.ok(ours.ok);
  assert.equal(ours.launch.origin, 'path');
  const none = await resolveServer(deps({ bundle: undefined }));
  assert.equal(none.ok, false);
  if (!none.ok) {
    assert.match(none.reason, /no bundled server/);
  }
});

test('a throwing Python extension does not break resolution', async () => {
  const r = await resolveServer(
    deps({ pythonExtensionInterpreter: async () => { throw new Error('boom'); }, onPath: { python3: '/usr/bin/python3' }, pythons: { '/usr/bin/python3': [3, 11, 2] } }),
  );
  assert.ok(r.ok);
  assert.match(r.tried[0], /boom/);
});

test('--version output is parsed into a name and a version', () => {
  assert.deepEqual(parseVersionOutput('comodor-lsp 0.1.0\n'), { name: 'comodor-lsp', version: '0.1.0' });
  assert.deepEqual(parseVersionOutput('comodor 2.0.1'), { name: 'comodor', version: '2.0.1' });
  assert.equal(parseVersionOutput('usage: comodor [-h] ...'), undefined);
  assert.equal(parseVersionOutput(''), undefined);
});

test('serverInfo: another program is an error, another version of ours a warning', () => {
  const launch = bundledLaunch('/usr/bin/python3', BUNDLE);
  assert.deepEqual(judgeServerInfo({ name: 'comodor-lsp', version: '0.1.0' }, '0.1.0', launch), { ok: true });
  const other = judgeServerInfo({ name: 'comodor', version: '2.0.1' }, '0.1.0', launch);
  assert.equal(other.ok, false);
  if (!other.ok) {
    assert.equal(other.severity, 'error');
    assert.match(other.message, /reported “comodor 2\.0\.1”, not “comodor-lsp”/);
  }
  const none = judgeServerInfo(undefined, '0.1.0', launch);
  assert.ok(!none.ok && none.severity === 'error');
  const older = judgeServerInfo({ name: 'comodor-lsp', version: '0.0.9' }, '0.1.0', launch);
  assert.ok(!older.ok && older.severity === 'warning' && /version 0\.0\.9, but this extension is 0\.1\.0/.test(older.message));
});

test('expandHome only touches a leading ~', () => {
  assert.equal(expandHome('~/x', '/h'), path.join('/h', 'x'));
  assert.equal(expandHome('/a/~/x', '/h'), '/a/~/x');
});

test('which finds executables on PATH and skips non-executable files', { skip: process.platform === 'win32' }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comodor-which-'));
  const other = mkdtempSync(path.join(os.tmpdir(), 'comodor-which-'));
  writeFileSync(path.join(other, 'comodor-lsp'), '#!/bin/sh\n');
  chmodSync(path.join(other, 'comodor-lsp'), 0o644);
  writeFileSync(path.join(dir, 'comodor-lsp'), '#!/bin/sh\n');
  chmodSync(path.join(dir, 'comodor-lsp'), 0o755);
  const which = makeWhich([other, dir].join(path.delimiter), undefined);
  assert.equal(await which('comodor-lsp'), path.join(dir, 'comodor-lsp'));
  assert.equal(await which('nope'), undefined);
});

test('probePython reads the version of a real interpreter; probeVersion reads --version', { skip: process.platform === 'win32' }, async () => {
  const probe = await probePython(process.env.COMODOR_TEST_PYTHON ?? 'python3');
  assert.ok('version' in probe && probe.version[0] === 3, JSON.stringify(probe));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comodor-py-'));
  const other = path.join(dir, 'comodor');
  writeFileSync(other, '#!/bin/sh\n[ "$1" = --version ] && echo "comodor 2.0.1"\n');
  chmodSync(other, 0o755);
  assert.deepEqual(await probeVersion(other, []), { output: 'comodor 2.0.1' });
  const broken = path.join(dir, 'broken');
  writeFileSync(broken, '#!/bin/sh\necho "No module named comodor_lsp" >&2\nexit 1\n');
  chmodSync(broken, 0o755);
  assert.deepEqual(await probeVersion(broken, []), { error: 'No module named comodor_lsp' });
  assert.ok('error' in (await probePython(path.join(dir, 'missing-python3'))));
});

test('readBundle reads the manifest the build writes, and nothing without one', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comodor-bundle-'));
  assert.equal(await readBundle(dir), undefined);
  mkdirSync(path.join(dir, 'tool'));
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(BUNDLE.manifest));
  assert.deepEqual(await readBundle(dir), { root: dir, manifest: BUNDLE.manifest });
});
