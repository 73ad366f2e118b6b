// The dashboard over a store of 10,000 runs (each with criteria in two versions for some, model
// events, a rating for a third, the gate's verdicts, loops): how long the store takes to open,
// how long the figures take to sum (src/app/dashboard/aggregate.ts: a few grouped SQL queries),
// and how large the first render's data is (what the webview receives, what data.json holds) —
// against the naive way, reading each run's criteria, events and rating through the
// repositories, one run at a time, and summing in JavaScript.
// Last line: one JSON object with the figures.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { knob } from './harness/smoke.mjs';
import { yamlData } from '../build/yaml-data.mjs';

const RUNS = knob('IDEAL_STATE_BENCH_DASHBOARD_RUNS', 10_000, 200);
const ROUNDS = knob('IDEAL_STATE_BENCH_DASHBOARD_ROUNDS', 5, 2);

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const outfile = path.join(root, 'out', 'bench', 'dashboard-lib.js');
await esbuild.build({ entryPoints: [path.join(root, 'bench', 'dashboard-lib.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, loader: { '.yaml': 'text' }, plugins: [yamlData], logLevel: 'warning' });
const require = createRequire(import.meta.url);
const { Store, aggregateDashboard, runUsage, staticDashboardPage } = require(outfile);
/** The dashboard must open in under a second on 10,000 runs: store open + sums + page build. */
const BUDGET_MS = 1000;
const pageAsset = (name) => {
  const file = path.join(root, 'media', 'dist', name);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: build first (node esbuild.mjs)`);
  return fs.readFileSync(file, 'utf8');
};
const pageScript = pageAsset('dashboard-page.js');
const pageStyle = pageAsset('dashboard-page.css');

const now = () => performance.now();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (x) => Math.round(x * 1000) / 1000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-bench-dashboard-'));
const file = path.join(dir, 'ideal-state.sqlite');

const STATES = ['COMPLETE', 'COMPLETE', 'COMPLETE', 'FAILED', 'BUDGET_EXHAUSTED', 'CANCELLED', 'BLOCKED', 'RUNNING'];
const HOSTS = ['claude-code', 'codex', 'gemini', 'copilot'];
const VERDICTS = ['passed', 'passed', 'blocked', 'released'];
const PRDS = Array.from({ length: 40 }, (_, i) => `docs/PRD-feature-${i + 1}.md`);

// Fill: 10,000 runs over a year, 500 to a commit.
const fillStarted = now();
let store = await Store.open({ file, checkpointIdleMs: 3_600_000 });
for (let from = 0; from < RUNS; from += 500) {
  store.batch((tx) => {
    for (let n = from; n < Math.min(RUNS, from + 500); n++) {
      const start = new Date(Date.UTC(2025, 10, 1) + n * Math.floor((365 * 86_400_000) / RUNS));
      const at = start.toISOString();
      const id = `run-bench${String(n).padStart(6, '0')}`;
      const state = STATES[n % STATES.length];
      const prdPath = n % 10 === 0 ? undefined : PRDS[n % PRDS.length];
      tx.runs.save({ id, request: `Feature work, step ${n}`, effort: 'STANDARD', state, phase: 'LEARN', iteration: 1, criteriaVersion: 1, ...(prdPath ? { prdPath } : {}), createdAt: at, updatedAt: at, startedAt: at, finishedAt: new Date(start.getTime() + (2 + (n % 30)) * 60_000).toISOString(), budgetSeconds: 3600, elapsedMs: 60_000 });
      const criteria = (version, passing) => Array.from({ length: 6 }, (_, i) => ({ kind: 'criterion', id: `ISC-${i + 1}`, text: `Feature criterion ${i + 1} holds`, priority: 'CRITICAL', source: 'EXPLICIT', status: 'DONE', outcome: i < passing ? 'PASS' : 'FAIL', createdAt: at, updatedAt: at, verify: { type: 'GREP', pattern: 'feature', expect: 'present' } }));
      if (n % 4 === 0) tx.criteria.saveVersion(id, 0, criteria(0, 2));
      tx.criteria.saveVersion(id, 1, criteria(1, state === 'COMPLETE' ? 6 : n % 6));
      for (let seq = 0; seq < 4; seq++) tx.events.save({ runId: id, seq, at, phase: 'BUILD', kind: seq === 3 ? 'tool' : 'model', message: 'call', inputTokens: seq === 3 ? 0 : 1500 + seq * 100, outputTokens: seq === 3 ? 0 : 200, costUsd: seq === 3 ? 0 : 0.004 });
      if (n % 3 === 0) tx.ratings.save({ id: `rating-bench${n}`, runId: id, timestamp: at, rating: 1 + (n % 10), sessionId: 'bench', type: 'explicit' });
      if (n % 5 === 0) tx.gateOutcomes.save({ id: `gate-bench${n}`, at, host: HOSTS[n % HOSTS.length], event: 'Stop', session: 'session 0bench00', verdict: VERDICTS[n % VERDICTS.length], before: 0, prds: [{ path: prdPath ?? PRDS[0], tampered: n % 97 === 0 ? ['ISC-2'] : [] }] });
    }
  });
}
for (let l = 0; l < 10; l++) {
  const log = [1, 2, 3].map((iteration) => ({ iteration, at: new Date(Date.UTC(2026, 5, l + 1, iteration)).toISOString(), effort: 'STANDARD', passing: 20 + iteration * 10 + l, total: 80, failing: [], message: `iteration ${iteration}` }));
  store.loops.save({ id: `loop-bench${l}`, spec: { glob: 'docs/**/*.md', isc: 'docs.page', agents: 2, effort: 'STANDARD', maxIterations: 3, verifyOnly: false }, state: 'COMPLETE', iteration: 3, effort: 'STANDARD', criterionIds: ['ISC-1'], total: 80, passing: log[2].passing, budgetSeconds: 3600, elapsedMs: 1000, log, unmet: [], createdAt: log[0].at, updatedAt: log[2].at });
}
store.checkpoint();
store.close();
const fillSeconds = (now() - fillStarted) / 1000;
const storeMb = fs.statSync(file).size / 1024 / 1024;

// Opening the store, as the panel and `ideal-state dashboard` do, then the sums.
const openTimes = [];
const aggregateTimes = [];
const aggregateCpu = [];
const pageTimes = [];
let data;
for (let r = 0; r < ROUNDS; r++) {
  let t = now();
  store = await Store.open({ file, checkpointIdleMs: 3_600_000 });
  openTimes.push(now() - t);
  t = now();
  const cpu = process.cpuUsage();
  data = aggregateDashboard(store);
  aggregateTimes.push(now() - t);
  const used = process.cpuUsage(cpu);
  aggregateCpu.push((used.user + used.system) / 1000);
  store.close();
  t = now();
  staticDashboardPage({ data, script: pageScript, style: pageStyle, source: file });
  pageTimes.push(now() - t);
}
const json = JSON.stringify(data);
if (data.totals.runs !== RUNS) throw new Error(`the figures count ${data.totals.runs} runs of ${RUNS}`);

// The naive way: every run through the repositories (validated rows), one query per table per run.
store = await Store.open({ file, checkpointIdleMs: 3_600_000 });
const naiveStarted = now();
const naiveCpuFrom = process.cpuUsage();
let naivePassed = 0;
let naiveUsd = 0;
for (const run of store.runs.list()) {
  const criteria = store.criteria.list(run.id);
  naivePassed += criteria.filter((c) => c.outcome === 'PASS').length;
  naiveUsd += runUsage(store.events.where('run_id = ?', [run.id])).usd;
  store.ratings.where('run_id = ?', [run.id], 'timestamp DESC', 1);
}
const naiveMs = now() - naiveStarted;
const naiveCpu = process.cpuUsage(naiveCpuFrom);
store.close();
fs.rmSync(dir, { recursive: true, force: true });
// Both ways must agree, or the comparison means nothing.
if (naivePassed !== data.totals.criteriaPassed) throw new Error(`naive ${naivePassed} passing criteria, the dashboard ${data.totals.criteriaPassed}`);
if (Math.abs(naiveUsd - data.totals.usd) > 1e-6) throw new Error(`naive $${naiveUsd}, the dashboard $${data.totals.usd}`);

const result = {
  bench: 'dashboard',
  runs: RUNS,
  store_mb: round(storeMb),
  fill_seconds: round(fillSeconds),
  open_ms_p50: round(median(openTimes)),
  aggregate_ms_p50: round(median(aggregateTimes)),
  // CPU time: what the sums cost on a core of their own (wall times grow with the machine's load).
  aggregate_cpu_ms_p50: round(median(aggregateCpu)),
  open_and_aggregate_ms_p50: round(median(openTimes) + median(aggregateTimes)),
  page_build_ms_p50: round(median(pageTimes)),
  open_aggregate_page_ms_p50: round(median(openTimes) + median(aggregateTimes) + median(pageTimes)),
  budget_ms: BUDGET_MS,
  // Wall time on this machine as loaded now: a busy machine can miss what a quiet one makes.
  within_budget: median(openTimes) + median(aggregateTimes) + median(pageTimes) < BUDGET_MS,
  first_render_data_kb: round(Buffer.byteLength(json) / 1024),
  days: data.days.length,
  prds: data.prds.length,
  naive_ms: round(naiveMs),
  naive_cpu_ms: round((naiveCpu.user + naiveCpu.system) / 1000),
  naive_over_aggregate_cpu: round((naiveCpu.user + naiveCpu.system) / 1000 / median(aggregateCpu)),
};
console.log(`dashboard over ${RUNS} runs: open ${result.open_ms_p50} ms + sums ${result.aggregate_ms_p50} ms (${result.aggregate_cpu_ms_p50} ms CPU) + page ${result.page_build_ms_p50} ms = ${result.open_aggregate_page_ms_p50} ms (${result.within_budget ? 'within' : 'OVER'} the ${BUDGET_MS} ms budget), ${result.first_render_data_kb} KB of figures; naive per-run reads ${result.naive_ms} ms (${result.naive_cpu_ms} ms CPU)`);
console.log(JSON.stringify(result));
