import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  ResolutionDeps,
  checkComodorImport,
  describeLaunch,
  expandHome,
  isPythonInterpreter,
  makeWhich,
  resolveServer,
} from '../src/serverResolution';

function deps(over: Partial<ResolutionDeps> & { executables?: string[]; withComodor?: string[] }): ResolutionDeps {
  const exes = new Set(over.executables ?? []);
  const withComodor = new Set(over.withComodor ?? []);
  return {
    configuredPath: undefined,
    pythonExtensionInterpreter: async () => undefined,
    which: async () => undefined,
    isExecutable: async (f) => exes.has(f),
    checkComodorImport: async (p) => (withComodor.has(p) ? undefined : "cannot import comodor_lsp: No module named 'comodor'"),
    homedir: '/home/u',
    ...over,
  };
}

test('python interpreters are told apart from the comodor executable', () => {
  for (const p of ['/usr/bin/python', '/usr/bin/python3', '/v/bin/python3.11', 'C:\\Py\\python.exe', 'pythonw.exe', '/x/pypy3']) {
    assert.ok(isPythonInterpreter(p), p);
  }
  for (const p of ['/usr/local/bin/comodor', 'comodor.exe', '/opt/python-tools/comodor', '/x/python-config']) {
    assert.ok(!isPythonInterpreter(p), p);
  }
});

test('setting = interpreter runs `python -m comodor_lsp serve` (the client appends --stdio)', async () => {
  const r = await resolveServer(deps({ configuredPath: '/v/bin/python3', executables: ['/v/bin/python3'], withComodor: ['/v/bin/python3'] }));
  assert.ok(r.ok);
  assert.deepEqual(r.launch, { command: '/v/bin/python3', args: ['-m', 'comodor_lsp', 'serve'], origin: 'setting' });
  assert.equal(describeLaunch(r.launch), '/v/bin/python3 -m comodor_lsp serve');
});

test('setting = comodor executable runs `comodor serve`; ~ is expanded', async () => {
  const r = await resolveServer(deps({ configuredPath: '~/.local/bin/comodor', executables: ['/home/u/.local/bin/comodor'] }));
  assert.ok(r.ok);
  assert.deepEqual(r.launch.args, ['serve']);
  assert.equal(r.launch.command, '/home/u/.local/bin/comodor');
});

test('a broken setting is reported, not silently replaced by PATH', async () => {
  const r = await resolveServer(
    deps({ configuredPath: '/v/bin/python3', executables: ['/v/bin/python3'], which: async () => '/usr/bin/comodor' }),
  );
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.match(r.reason, /comodor\.server\.path is set to \/v\/bin\/python3/);
    assert.match(r.reason, /No module named 'comodor'/);
  }
});

test('the Python extension interpreter is used when it has comodor', async () => {
  const r = await resolveServer(
    deps({ pythonExtensionInterpreter: async () => '/venv/bin/python', executables: ['/venv/bin/python'], withComodor: ['/venv/bin/python'], which: async () => '/usr/bin/comodor' }),
  );
  assert.ok(r.ok);
  assert.equal(r.launch.origin, 'python-extension');
});

test('an interpreter without comodor falls through to PATH, and the attempt is recorded', async () => {
  const r = await resolveServer(
    deps({ pythonExtensionInterpreter: async () => '/venv/bin/python', executables: ['/venv/bin/python'], which: async () => '/usr/bin/comodor' }),
  );
  assert.ok(r.ok);
  assert.equal(r.launch.origin, 'path');
  assert.match(r.tried[0], /\/venv\/bin\/python .*No module named/);
});

test('a throwing Python extension does not break resolution', async () => {
  const r = await resolveServer(deps({ pythonExtensionInterpreter: async () => { throw new Error('boom'); }, which: async () => '/usr/bin/comodor' }));
  assert.ok(r.ok);
});

test('nothing found gives a failure with every place tried', async () => {
  const r = await resolveServer(deps({}));
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.match(r.reason, /couldn't find/);
    assert.ok(r.tried.some((t) => t.includes('PATH')));
  }
});

test('expandHome only touches a leading ~', () => {
  assert.equal(expandHome('~/x', '/h'), path.join('/h', 'x'));
  assert.equal(expandHome('/a/~/x', '/h'), '/a/~/x');
});

test('which finds executables on PATH and skips non-executable files', { skip: process.platform === 'win32' }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comodor-which-'));
  const other = mkdtempSync(path.join(os.tmpdir(), 'comodor-which-'));
  writeFileSync(path.join(other, 'comodor'), '#!/bin/sh\n');
  chmodSync(path.join(other, 'comodor'), 0o644);
  writeFileSync(path.join(dir, 'comodor'), '#!/bin/sh\n');
  chmodSync(path.join(dir, 'comodor'), 0o755);
  const which = makeWhich([other, dir].join(path.delimiter), undefined);
  assert.equal(await which('comodor'), path.join(dir, 'comodor'));
  assert.equal(await which('nope'), undefined);
});

test('checkComodorImport reports the interpreter error', { skip: process.platform === 'win32' }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comodor-py-'));
  const fake = path.join(dir, 'python3');
  writeFileSync(fake, "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'comodor'\" >&2\nexit 1\n");
  chmodSync(fake, 0o755);
  assert.match((await checkComodorImport(fake)) ?? '', /No module named 'comodor'/);
  const ok = path.join(dir, 'python-ok');
  writeFileSync(ok, '#!/bin/sh\nexit 0\n');
  chmodSync(ok, 0o755);
  assert.equal(await checkComodorImport(ok), undefined);
});
