// One build for every target: the extension host bundle, the command-line entry,
// and the browser bundles of the webviews. `--production` minifies and drops
// source maps; `--watch` rebuilds on change.
import * as esbuild from 'esbuild';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { yamlData } from './build/yaml-data.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
/** `--cli-out DIR`: only the command line, into DIR (the minified build's unit test lays out its own dist/). */
const cliOut = process.argv.includes('--cli-out') ? process.argv[process.argv.indexOf('--cli-out') + 1] : undefined;

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
  plugins: [yamlData],
};

async function webviewEntries() {
  if (!existsSync('webviews')) return [];
  const names = await readdir('webviews');
  return names.filter((n) => /\.ts$/.test(n) && !n.endsWith('.d.ts')).map((n) => join('webviews', n));
}

/**
 * Plain Node test bundle: every test file (and each process a test starts, `*.child.ts`) under
 * `dir`, at any depth, becomes one file at the same relative path under out/ (test/unit/app/gate/x.test.ts
 * is out/test/unit/app/gate/x.test.js), so a child process stays beside the test that starts it.
 */
async function testEntries(dir) {
  if (!existsSync(dir)) return [];
  const names = await readdir(dir, { recursive: true });
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

/**
 * Node's own modules used as they are, not copied into each file. Left to itself, esbuild turns
 * each file's `import * as fs from 'node:fs/promises'` into `__toESM(require('node:fs/promises'))`:
 * a new object holding a getter for every name of the module, one per importing file. The lean
 * command line made 70 of them as it loaded (some 2,300 getters, 6–10 ms of every stop's gate).
 * Here those lines are read as TypeScript's `import fs = require('node:fs/promises')`, which
 * esbuild writes as a plain `require`: the module object itself, as Node gives it to every file.
 * For the CommonJS bundles only; in an ES module bundle the import stays Node's own.
 */
const NODE_NAMESPACE_IMPORT = /^import \* as (\w+) from '(node:[\w/]+)';$/gm;
const nodeModulesAsTheyAre = {
  name: 'node-modules-as-they-are',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replace(NODE_NAMESPACE_IMPORT, "import $1 = require('$2');"),
      loader: 'ts',
    }));
  },
};

/**
 * zod's error messages in English only. `import { z } from 'zod'` brings `z.locales`, every
 * language zod ships (some 280 KB minified, a third of what `gate` loads), though only English
 * (which zod configures itself from its own en.js) is used: nothing here calls `z.locales`.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({ contents: "export { default as en } from './en.js';", loader: 'js', resolveDir: dirname(args.path) }));
  },
};

/**
 * The command line, split per subcommand: `dist/cli.mjs` and its `dist/cli-*.mjs` chunks (ES
 * modules, so esbuild can split them), each subcommand a chunk imported when it runs, so `gate`,
 * `verify` and `mcp` never load a model SDK or the model catalogue. The chunks sit beside the other
 * bundles because the code finds `sql-wasm.wasm`, `../package.json` and `../isc-definitions`
 * from `__dirname`, which the banner defines for an ES module, as it does `require`.
 * `dist/cli.js`, the bin (the launcher below), imports `cli.mjs` for every command but `gate` and `verify`.
 */
const ESM_NODE_GLOBALS = [
  "import { createRequire as __isCreateRequire } from 'node:module';",
  "import { dirname as __isDirname } from 'node:path';",
  "import { fileURLToPath as __isFileUrlToPath } from 'node:url';",
  'const require = __isCreateRequire(import.meta.url);',
  'const __filename = __isFileUrlToPath(import.meta.url);',
  'const __dirname = __isDirname(__filename);',
].join('\n');
const cliBin = {
  name: 'cli-bin',
  setup(build) {
    const dir = build.initialOptions.outdir;
    build.onEnd(async (result) => {
      // Chunk names change with their contents: a build leaves no chunk of an older one behind.
      // Removed after the new ones are written, never before, so a command line started during
      // a build still finds every chunk its cli.mjs imports.
      if (result.metafile) {
        const written = new Set(Object.keys(result.metafile.outputs).map((f) => f.split('/').pop()));
        const names = existsSync(dir) ? await readdir(dir) : [];
        const stale = names.filter((n) => /^cli(-[\w-]+)?\.mjs(\.map)?$/.test(n) && !written.has(n));
        await Promise.all(stale.map((n) => rm(join(dir, n), { force: true })));
      }
      // What each subcommand loads, for test/unit/project/cli-lean.test.ts (development builds only).
      if (result.metafile && !production) {
        await mkdir('out', { recursive: true });
        await writeFile(join('out', 'cli-metafile.json'), JSON.stringify(result.metafile));
      }
    });
  },
};
const cliTarget = (outdir) => ({
  ...node,
  format: 'esm',
  splitting: true,
  entryPoints: { cli: 'src/cli/start/bin.ts' },
  outdir,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'cli-[hash]',
  // Always: onEnd reads which chunks this build wrote (see cliBin).
  metafile: true,
  banner: { js: ESM_NODE_GLOBALS },
  plugins: [cliBin, zodEnglishOnly, yamlData],
});

/**
 * `dist/cli.js`, the bin: the launcher (src/cli/start/launch.ts), a few KB of CommonJS that loads the
 * lean command line for `gate` and `verify`, else `cli.mjs`.
 */
const launchTarget = (outdir) => ({ ...node, entryPoints: { cli: 'src/cli/start/launch.ts' }, outdir, banner: { js: '#!/usr/bin/env node' }, plugins: [nodeModulesAsTheyAre] });

/**
 * `dist/cli-lean.cjs`: `gate` and `verify` in one CommonJS file (src/cli/start/lean.ts), which the
 * launcher compiles with V8's code cache (an ES module cannot use one on Node 20). Every
 * `import()` becomes a `require`, so the file needs no module loader; its metafile is what
 * test/unit/project/cli-lean.test.ts reads for what the lean commands can load.
 */
const leanTarget = (outdir) => ({
  ...node,
  entryPoints: { 'cli-lean': 'src/cli/start/lean.ts' },
  outdir,
  outExtension: { '.js': '.cjs' },
  supported: { 'dynamic-import': false },
  metafile: !production,
  plugins: [
    nodeModulesAsTheyAre,
    zodEnglishOnly,
    yamlData,
    {
      name: 'lean-metafile',
      setup(build) {
        build.onEnd(async (result) => {
          if (result.metafile && !production) {
            await mkdir('out', { recursive: true });
            await writeFile(join('out', 'cli-lean-metafile.json'), JSON.stringify(result.metafile));
          }
        });
      },
    },
  ],
});

/**
 * `dist/process-host.cjs`: the small process the MCP server starts its checks' commands and
 * ripgrep from (src/verify/process-host.ts), so that no fork copies the server.
 */
const processHostTarget = (outdir) => ({ ...node, entryPoints: { 'process-host': 'src/verify/process-host-main.ts' }, outdir, outExtension: { '.js': '.cjs' }, plugins: [nodeModulesAsTheyAre] });

const targets = cliOut
  ? [cliTarget(cliOut), launchTarget(cliOut), leanTarget(cliOut), processHostTarget(cliOut)]
  : [
      { ...node, entryPoints: { extension: 'src/vscode/extension.ts' }, outdir: 'dist', plugins: [copyWasm, vscodeOnce, nodeModulesAsTheyAre, yamlData] },
      cliTarget('dist'),
      launchTarget('dist'),
      leanTarget('dist'),
      processHostTarget('dist'),
      // Loaded by the extension on first use; keeps activation free of zod, yaml and sql.js.
      { ...node, entryPoints: { engine: 'src/engine.ts' }, outdir: 'dist', plugins: [nodeModulesAsTheyAre, zodEnglishOnly, yamlData] },
    ];

const webviews = cliOut ? [] : await webviewEntries();
if (webviews.length > 0) {
  targets.push({ ...base, platform: 'browser', format: 'iife', target: 'es2022', entryPoints: webviews, outdir: 'media/dist' });
}

// Tests are bundled only in development builds; the packaged extension never ships them.
if (!production && !cliOut) {
  const unit = await testEntries('test/unit');
  if (unit.length > 0) {
    // xmllint-wasm starts a worker from its own folder and loads its .wasm beside it: it stays in node_modules.
    targets.push({ ...node, entryPoints: unit, outdir: 'out/test/unit', outbase: 'test/unit', external: ['vscode', 'mocha', 'xmllint-wasm'] });
  }
  const integration = await testEntries('test/integration');
  if (integration.length > 0) {
    targets.push({
      ...node,
      entryPoints: [...integration, 'test/integration/index.ts'],
      outdir: 'out/test/integration',
      outbase: 'test/integration',
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
