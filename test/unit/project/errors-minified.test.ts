import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Esbuild from 'esbuild';
import { runCli } from '../support/cli-helpers';
import { managerSteps, markerCriteria, tempDir } from '../support/algorithm-helpers';
import type { Ending, Row } from '../fixtures/errors/minified-entry';
import { REPO_ROOT } from '../support/repo-root';

const ROOT = REPO_ROOT;
// esbuild's API cannot itself be bundled into this test: loaded from the project at run time.
const esbuildPath = path.join(ROOT, 'node_modules', 'esbuild');
const esbuild = require(esbuildPath) as typeof Esbuild;

/** What `node esbuild.mjs --production` gives a Node target: the shipped build's options. */
const PRODUCTION: Esbuild.BuildOptions = {
  bundle: true,
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  loader: { '.yaml': 'text' },
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
};

/** A class name as a minifier leaves it, in parentheses as the old log lines printed it: "(xi)". */
const MINIFIED_NAME = /\([A-Za-z_$][\w$]{0,2}\)/;

interface Cli {
  code: number | null;
  out: string;
  err: string;
}

const run = (cli: string, args: string[], interrupt?: RegExp): Promise<Cli> => runCli(args, { cli, ...(interrupt ? { interrupt } : {}) });

describe('errors by code in the production (minified) build', () => {
  it('recognises cancellations, spent budgets and phase cuts by code although every class is renamed, in the engine too', async function () {
    this.timeout(30_000);
    const dir = tempDir('errors-min');
    const outfile = path.join(dir, 'probe.js');
    // The shipped data parsed at build time, as esbuild.mjs does (build/yaml-data.mjs).
    const { yamlData } = (await import(pathToFileURL(path.join(ROOT, 'build', 'yaml-data.mjs')).href)) as { yamlData: Esbuild.Plugin };
    await esbuild.build({ ...PRODUCTION, plugins: [yamlData], entryPoints: [path.join(ROOT, 'test/unit/fixtures/errors/minified-entry.ts')], outfile });
    fs.copyFileSync(path.join(ROOT, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(dir, 'sql-wasm.wasm'));
    const rows = (require(outfile) as { probe(): Row[] }).probe();
    // The premise: the bundler did rename the classes, so a test on names would have failed here.
    assert.ok(rows.every((r) => r.className !== r.label), rows.map((r) => `${r.label} → ${r.className}`).join(', '));
    assert.deepEqual(
      rows.map((r) => [r.label, r.kinds]),
      [
        ['CancelledError (model call)', ['cancellation']],
        ['CancelledError (verification)', ['cancellation']],
        ['CancelledError', ['cancellation']],
        ['BudgetExceededError', ['budget']],
        ['NodeBudgetCutError', ['node-budget-cut']],
        ['LlmProviderError', []],
        ['ScriptError', []],
      ],
    );
    // What a person reads (a stack, a log line) keeps the real name, and descriptions carry the code.
    for (const r of rows) {
      const name = r.label.split(' ')[0]!;
      assert.equal(r.name, name);
      assert.ok(r.text.startsWith(`${name}: `), r.text);
    }
    assert.equal(rows.find((r) => r.label === 'ScriptError')!.described, 'script: demo.yaml step 7: the script is used up');

    // The real engine, minified, ends each run the way its error means.
    const { endRun } = require(outfile) as { endRun(ending: Ending): Promise<{ state: string; reason: string; budgetEvents: string[] }> };
    const spent = await endRun('token-cap');
    assert.equal(spent.state, 'BUDGET_EXHAUSTED', spent.reason);
    assert.match(spent.reason, /passes the token cap of 50000 tokens for the run/);
    const cut = await endRun('node-cut');
    assert.equal(cut.state, 'BUDGET_EXHAUSTED', cut.reason);
    assert.match(cut.reason, /THINK used its 25 % share of the 4 s budget/);
    const cancelled = await endRun('cancel');
    assert.equal(cancelled.state, 'CANCELLED', cancelled.reason);
    assert.equal(cancelled.reason, 'cancelled during THINK');
  });

  describe('the minified command line', () => {
    let cli: string;
    let dir: string;
    before(async function () {
      this.timeout(60_000);
      dir = tempDir('errors-min-cli');
      // The layout of a packaged extension: dist/ beside isc-definitions/ and package.json.
      cli = path.join(dir, 'dist', 'cli.js');
      // The shipped command line exactly as `node esbuild.mjs --production` builds it (the bin and its split chunks).
      const built = spawnSync(process.execPath, ['esbuild.mjs', '--production', '--cli-out', path.join(dir, 'dist')], { cwd: ROOT, encoding: 'utf8' });
      assert.equal(built.status, 0, built.stderr);
      fs.copyFileSync(path.join(ROOT, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(dir, 'dist', 'sql-wasm.wasm'));
      fs.cpSync(path.join(ROOT, 'isc-definitions'), path.join(dir, 'isc-definitions'), { recursive: true });
      fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
    });

    const workspace = () => {
      const ws = tempDir('errors-min-ws');
      return { ws, store: path.join(ws, '..', `${path.basename(ws)}.sqlite`) };
    };

    it('ends a run whose token budget runs out BUDGET_EXHAUSTED, exit 3, not FAILED', async function () {
      this.timeout(60_000);
      const { ws, store } = workspace();
      // OBSERVE's call reports 49,600 tokens: THINK's call would pass INSTANT's 50,000-token run cap.
      const [observe, think] = managerSteps(markerCriteria(1));
      const script = path.join(ws, '..', `${path.basename(ws)}-budget.json`);
      fs.writeFileSync(script, JSON.stringify({ name: 'budget', steps: [{ ...(observe as object), usage: { inputTokens: 49_500, outputTokens: 100 } }, think] }));
      const r = await run(cli, ['run', 'Write out.txt', '--effort', 'INSTANT', '--provider', 'scripted', '--script', script, '--workspace', ws, '--store', store, '--json']);
      assert.equal(r.code, 3, r.err);
      const json = JSON.parse(r.out);
      assert.equal(json.state, 'BUDGET_EXHAUSTED');
      assert.match(json.reason, /passes the token cap of 50000 tokens for the run/);
      assert.doesNotMatch(r.out + r.err, MINIFIED_NAME);
    });

    it('ends a run cancelled with Ctrl-C (SIGINT) CANCELLED, exit 130', async function () {
      this.timeout(60_000);
      const { ws, store } = workspace();
      const [observe, think] = managerSteps(markerCriteria(4));
      const script = path.join(ws, '..', `${path.basename(ws)}-slow.json`);
      fs.writeFileSync(script, JSON.stringify({ name: 'slow', steps: [observe, { ...(think as object), delayMs: 60_000 }] }));
      // Events print when committed: "OBSERVE → THINK" is out once THINK's model call is under way.
      const r = await run(cli, ['run', 'Write out.txt', '--effort', 'STANDARD', '--provider', 'scripted', '--script', script, '--workspace', ws, '--store', store], /OBSERVE → THINK/);
      assert.equal(r.code, 130, r.err);
      assert.match(r.out, /^CANCELLED: cancelled during THINK/);
      assert.doesNotMatch(r.out + r.err, MINIFIED_NAME);
    });

    it('says why the manager model could not reflect by its code and message, not a renamed class', async function () {
      this.timeout(60_000);
      const { ws, store } = workspace();
      // The demo script without its last answer, LEARN's reflection: the scripted provider says so (code "script").
      const demo = path.join(ws, '..', `${path.basename(ws)}-scripted-demo.yaml`);
      const steps = fs.readFileSync(path.join(ROOT, 'demo', 'scripted-demo.yaml'), 'utf8').split('\n  # LEARN')[0]!;
      fs.writeFileSync(demo, `${steps}\n`);
      const r = await run(cli, ['run', 'Create hello.txt greeting the world', '--effort', 'STANDARD', '--provider', 'scripted', '--script', demo, '--approve', 'edits', '--workspace', ws, '--store', store, '--json']);
      assert.equal(r.code, 0, r.err);
      const runId = JSON.parse(r.out).runId as string;
      const out = tempDir('errors-min-bundle');
      const b = await run(cli, ['bundle', runId, '--out', out, '--workspace', ws, '--store', store]);
      assert.equal(b.code, 0, b.err);
      const events = fs.readFileSync(path.join(out, runId, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { message: string });
      const note = events.find((e) => /written by the run's facts/.test(e.message));
      assert.ok(note, 'a reflection note');
      assert.match(note.message, /\(the manager model failed: script: .*scripted-demo\.yaml.*\)$/);
      for (const e of events) assert.doesNotMatch(e.message, MINIFIED_NAME, e.message);
    });
  });
});
