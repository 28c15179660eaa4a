// Bundles the extension (vscode-languageclient included; `vscode` is provided by the editor)
// and, with --tests, compiles the unit tests for `node --test`.
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';

const args = new Set(process.argv.slice(2));
const production = args.has('--production');

if (args.has('--tests')) {
  rmSync('dist-test', { recursive: true, force: true });
  const entryPoints = readdirSync('test')
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `test/${f}`);
  await esbuild.build({
    entryPoints,
    outdir: 'dist-test',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    // Unit tests cover modules that must not need VS Code; importing it should fail loudly.
    external: ['vscode'],
    logLevel: 'warning',
  });
} else {
  const options = {
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    external: ['vscode'],
    minify: production,
    sourcemap: !production,
    logLevel: 'warning',
  };
  if (args.has('--watch')) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
  } else {
    await esbuild.build(options);
  }
}
