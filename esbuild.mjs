// One build for every target: the extension host bundle, the command-line entry,
// and the browser bundles of the webviews. `--production` minifies and drops
// source maps; `--watch` rebuilds on change.
import * as esbuild from 'esbuild';
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const base = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: 'none',
  loader: { '.yaml': 'text' },
};

const node = {
  ...base,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
};

async function webviewEntries() {
  if (!existsSync('webviews')) return [];
  const names = await readdir('webviews');
  return names.filter((n) => /\.ts$/.test(n) && !n.endsWith('.d.ts')).map((n) => join('webviews', n));
}

/** Plain Node test bundle: every unit test file becomes one file under out/test/unit. */
async function testEntries(dir) {
  if (!existsSync(dir)) return [];
  const names = await readdir(dir);
  return names.filter((n) => n.endsWith('.test.ts') || n.endsWith('.child.ts')).map((n) => join(dir, n));
}

const copyWasm = {
  name: 'copy-sql-wasm',
  setup(build) {
    build.onEnd(async () => {
      await mkdir('dist', { recursive: true });
      await copyFile('node_modules/sql.js/dist/sql-wasm.wasm', 'dist/sql-wasm.wasm');
    });
  },
};

/**
 * `vscode` read once for the whole extension bundle. Left to itself, esbuild turns each file's
 * `import * as vscode from 'vscode'` into its own `__toESM(require('vscode'))`, a copy of the
 * API object's ~200 names as getters: some 60 copies when the bundle loads, most of the
 * activation time. Here the files import one module that reads each name the API declares
 * (in its type definitions) once: some 200 property reads in all, and one `require('vscode')`.
 */
const vscodeOnce = {
  name: 'vscode-once',
  setup(build) {
    build.onResolve({ filter: /^vscode$/ }, (args) => (args.namespace === 'vscode-once' ? { path: 'vscode', external: true } : { path: 'vscode', namespace: 'vscode-once' }));
    build.onLoad({ filter: /.*/, namespace: 'vscode-once' }, async () => {
      const types = await readFile('node_modules/@types/vscode/index.d.ts', 'utf8');
      const names = [...new Set([...types.matchAll(/^\t?export (?:namespace|class|enum|const) (\w+)/gm)].map((m) => m[1]))];
      return { contents: `const api = require('vscode');\n${names.map((n) => `export const ${n} = api.${n};`).join('\n')}\n`, loader: 'js' };
    });
  },
};

const targets = [
  { ...node, entryPoints: { extension: 'src/vscode/extension.ts' }, outdir: 'dist', plugins: [copyWasm, vscodeOnce] },
  { ...node, entryPoints: { cli: 'src/cli/main.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } },
  // Loaded by the extension on first use; keeps activation free of zod, yaml and sql.js.
  { ...node, entryPoints: { engine: 'src/engine.ts' }, outdir: 'dist' },
];

const webviews = await webviewEntries();
if (webviews.length > 0) {
  targets.push({ ...base, platform: 'browser', format: 'iife', target: 'es2022', entryPoints: webviews, outdir: 'media/dist' });
}

// Tests are bundled only in development builds; the packaged extension never ships them.
if (!production) {
  const unit = await testEntries('test/unit');
  if (unit.length > 0) {
    // xmllint-wasm starts a worker from its own folder and loads its .wasm beside it: it stays in node_modules.
    targets.push({ ...node, entryPoints: unit, outdir: 'out/test/unit', external: ['vscode', 'mocha', 'xmllint-wasm'] });
  }
  const integration = await testEntries('test/integration');
  if (integration.length > 0) {
    targets.push({
      ...node,
      entryPoints: [...integration, 'test/integration/index.ts'],
      outdir: 'out/test/integration',
      external: ['vscode', 'mocha'],
    });
  }
}

if (watch) {
  const contexts = await Promise.all(targets.map((t) => esbuild.context(t)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[ideal-state] watching for changes');
} else {
  await Promise.all(targets.map((t) => esbuild.build(t)));
}
