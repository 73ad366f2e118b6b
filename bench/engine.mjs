// Engine overhead per transition (over three 10-iteration runs, pooled) and prompt size per
// iteration over a 10-iteration run,
// with a zero-latency scripted provider (a test tool, labelled scripted), a stand-in
// specialist and verifier that take no time, and the real durable store (journal append +
// fdatasync per commit). Each durable commit is timed, and within it the fdatasync, so the
// figures separate the engine's work, our commit CPU and the disk. Alternatives compared in
// the same run: the prompt if it carried the whole history instead of the working set; the
// commits a per-claim, per-packet scheme would make; an upsert per row with the statement
// prepared each time (as before) against the cached statement; each written row's statement
// with the zod re-parse the engine's commits skip and without it. The machine may be shared:
// the load average is printed with the figures. Last line: one JSON object with the figures.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { knob } from './harness/smoke.mjs';
import { yamlData } from '../build/yaml-data.mjs';

const ITERATIONS = 10;
const RUNS = knob('IDEAL_STATE_BENCH_RUNS', 3, 1);
const CRITERIA = 8;
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const outfile = path.join(root, 'out', 'bench', 'engine-lib.js');
await esbuild.build({ entryPoints: [path.join(root, 'bench', 'engine-lib.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, loader: { '.yaml': 'text' }, plugins: [yamlData], logLevel: 'warning' });
const require = createRequire(import.meta.url);
const lib = require(outfile);
// The bundle reads node:fs through this same module object: wrapping fdatasync here times the
// disk's share of each durable commit (the rest of a commit is our own CPU work).
const nodeFs = require('node:fs');
const fdatasync = nodeFs.fdatasyncSync;
let syncMs = 0;
nodeFs.fdatasyncSync = (fd) => {
  const t = performance.now();
  try {
    return fdatasync(fd);
  } finally {
    syncMs += performance.now() - t;
  }
};

const ids = Array.from({ length: CRITERIA }, (_, i) => `ISC-${i + 1}`);
const texts = ids.map((_, i) => `Output file holds marker line number ${i + 1}`);
const criteria = texts.map((text, i) => ({ id: ids[i], text }));
const steps = [{ object: { criteria: texts.map((text) => ({ text })) } }];
for (let it = 1; it <= ITERATIONS; it++) {
  steps.push({ object: { criteria, decisions: [{ decision: `iteration ${it}: keep the marker format ${'and its wording '.repeat(4)}`, rationale: `the verifier reported the same gaps as before ${'in detail '.repeat(6)}` }] } });
  steps.push({ object: { packets: ids.map((id) => ({ title: `Write ${id}`, criterionIds: [id] })) } });
  steps.push({ object: { methods: ids.map((id, i) => ({ criterionId: id, verify: { type: 'GREP', pattern: `^marker-${i + 1}$`, glob: 'out.txt', expect: 'present' } })) } });
}
/** One 10-iteration run on a fresh store: its samples. */
async function oneRun() {
  const model = new lib.ScriptedModel('bench-engine.yaml', lib.Script.parse({ name: 'bench-engine', steps }));
  let iteration = 0;
  const tokensByIteration = new Map();
  const recording = {
    id: model.id, providerId: model.providerId, kind: model.kind, model: model.model, modelClass: model.modelClass, displayName: model.displayName,
    chat(request) {
      if (request.responseFormat?.name === 'criteria_review') iteration++;
      const tokens = lib.estimateTokens(request.messages.map((m) => m.content).join('\n'));
      tokensByIteration.set(Math.max(1, iteration), (tokensByIteration.get(Math.max(1, iteration)) ?? 0) + tokens);
      return model.chat(request);
    },
  };
  const config = lib.LlmConfig.parse({ version: 1, providers: [{ id: 'scripted', kind: 'scripted', script: 'bench-engine.yaml' }], models: [{ id: 'bench', provider: 'scripted', model: 'bench' }], routing: { default: 'bench' } });
  const router = new lib.ModelRouter({ config, slots: new Map([['bench', { ok: true, model: recording }]]), source: 'config' });

  // Stand-ins that take no time: a specialist that "works" instantly and a verifier that
  // fails every criterion with an unclear-requirement label until the last iteration.
  let verifications = 0;
  const worker = { work: async (a) => ({ summary: `worked ${a.packet.id} ${'with a summary of what changed '.repeat(3)}`, edits: [], assumptions: [], evidence: ['out.txt'] }) };
  const verifier = {
    async verify(list) {
      verifications++;
      const pass = verifications >= ITERATIONS;
      return { results: list.map((c) => (pass ? { criterionId: c.id, outcome: 'PASS', evidence: 'ok', durationMs: 0, locations: [] } : { criterionId: c.id, outcome: 'FAIL', evidence: `no line matches ${'the marker pattern '.repeat(3)}`, durationMs: 0, failureLabel: 'AMBIGUITY', repairTarget: `A line of out.txt reads the marker for ${c.id}`, locations: [] })), passed: pass, summary: pass ? 'all pass' : 'failing' };
    },
  };
  const effort = lib.loadEffortTable({ file: 'bench.yaml', text: 'version: 1\nlevels:\n  STANDARD:\n    maxIterations: 10\n    budgetSeconds: 100000\n' }).table;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-bench-engine-'));
  const store = await lib.Store.open({ file: path.join(dir, 'db.sqlite') });
  let prdText;
  const transitions = [];
  let last = performance.now();
  // The durable commit (journal append + fdatasync) is timed on its own, so the figures
  // separate the engine's work from the disk's.
  const storage = new lib.StoreRunStorage(store);
  let commitMs = 0;
  let commits = 0;
  const commitSamples = [];
  const syncSamples = [];
  const timedStorage = {
    commit(c) {
      const t = performance.now();
      const synced = syncMs;
      storage.commit(c);
      const d = performance.now() - t;
      commitMs += d;
      commits++;
      commitSamples.push(d);
      syncSamples.push(syncMs - synced);
    },
    load: (id) => storage.load(id),
    saveCheckpoint: (id, c) => storage.saveCheckpoint(id, c),
    checkpoints: (id) => storage.checkpoints(id),
  };
  const engineOnly = [];
  // CPU time of this process per transition (user + system, all its threads): on a shared
  // machine wall time also counts the time other processes held the cores.
  const cpuPer = [];
  let cpuAtLast = process.cpuUsage();
  const commitsPer = [];
  let commitsAtLast = 0;
  // The alternative the engine had before: a commit per claim and per finished packet, besides the transition's.
  let perPacketCommits = 0;
  let commitAtLast = 0;
  const engine = new lib.AlgorithmEngine({
    storage: timedStorage,
    models: router,
    worker,
    verifier,
    effort,
    prdFor: () => ({ path: 'bench.md', read: async () => prdText, write: async (t) => void (prdText = t) }),
    onEvent: (e) => {
      if (e.kind === 'criterion' && / claimed pkt-|pkt-\S+ (done|ended)/.test(e.message)) perPacketCommits++;
      if (e.kind === 'phase' && / → /.test(e.message)) {
        const now = performance.now();
        transitions.push(now - last);
        engineOnly.push(now - last - (commitMs - commitAtLast));
        commitsPer.push(commits - commitsAtLast);
        const cpu = process.cpuUsage(cpuAtLast);
        cpuPer.push((cpu.user + cpu.system) / 1000);
        cpuAtLast = process.cpuUsage();
        commitsAtLast = commits;
        commitAtLast = commitMs;
        last = now;
      }
    },
  });
  const started = performance.now();
  last = started;
  cpuAtLast = process.cpuUsage();
  const result = await engine.start({ request: 'Write out.txt with eight marker lines', effort: 'STANDARD' });
  const total = performance.now() - started;
  if (result.state !== 'COMPLETE' || result.run.iteration !== ITERATIONS) throw new Error(`bench run ended ${result.state} at iteration ${result.run.iteration}: ${result.reason}`);

  // The alternative: a prompt that carries the whole history (every decision and report) at iteration 8.
  const history = JSON.stringify({ decisions: store.decisions.where('run_id = ?', [result.run.id]), reports: store.reports.where('run_id = ?', [result.run.id]).filter((r) => r.iteration < 8) });
  const fullHistoryIter8 = tokensByIteration.get(8) + lib.estimateTokens(history) * 3; // THINK, PLAN and BUILD would each carry it
  const reloaded = store.events.where('run_id = ?', [result.run.id], 'seq');
  store.close();
  return { transitions, engineOnly, cpuPer, commitsPer, commits, perPacketCommits, commitSamples, syncSamples, total, result, tokensByIteration, fullHistoryIter8, reloaded };
}

// Several runs, their transitions pooled: one run is half a second, short enough for a busy
// machine to skew its median either way.
const runs = [];
for (let r = 0; r < RUNS; r++) runs.push(await oneRun());
const pool = (key) => runs.flatMap((r) => r[key]);
const transitions = pool('transitions');
const engineOnly = pool('engineOnly');
const cpuPer = pool('cpuPer');
const commitsPer = pool('commitsPer');
const commitSamples = pool('commitSamples');
const syncSamples = pool('syncSamples');
const commits = runs.reduce((n, r) => n + r.commits, 0);
const perPacketCommits = runs.reduce((n, r) => n + r.perPacketCommits, 0);
const { total, result, tokensByIteration, fullHistoryIter8, reloaded } = runs[runs.length - 1];

const pctOf = (list, p) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const pct = (p) => pctOf(transitions, p);
const round = (n) => Math.round(n * 1000) / 1000;

// The statement cache against its alternative, on the same rows and schema: the run's events
// upserted into an in-memory database, preparing the statement per row (as every commit did)
// or once.
const SQL = await lib.loadSqlJs();
const upsert = (prepareEach) => {
  const db = new SQL.Database();
  for (const m of lib.MIGRATIONS) db.exec(m.sql);
  db.exec('INSERT INTO runs (id, state, effort, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?, ?)', [result.run.id, 'RUNNING', 'STANDARD', '', '', JSON.stringify(result.run)]);
  const table = lib.runEventTable({ query: () => [] }, { commit: () => undefined });
  // The run's events five times over (new sequence numbers), so each figure covers a few hundred rows.
  const rows = [0, 1, 2, 3, 4].flatMap((k) => reloaded.map((e) => table.upsertStatement({ ...e, seq: e.seq + k * reloaded.length })));
  const sql = rows[0].sql;
  const t = performance.now();
  db.exec('BEGIN');
  const cached = prepareEach ? undefined : db.prepare(sql);
  for (const r of rows) {
    if (prepareEach) db.run(r.sql, r.params);
    else cached.run(r.params);
  }
  cached?.free();
  db.exec('COMMIT');
  const us = ((performance.now() - t) * 1000) / rows.length;
  db.close();
  return us;
};
upsert(true);
upsert(false); // warm both paths
// Interleaved, and the least of five each: the figure least disturbed by other processes.
const prepared = [];
const cachedRuns = [];
for (let i = 0; i < 5; i++) {
  prepared.push(upsert(true));
  cachedRuns.push(upsert(false));
}
const perRowPrepareUs = Math.min(...prepared);
const cachedUs = Math.min(...cachedRuns);

// The engine's own rows are not parsed by zod again on the way in (they were built typed from
// validated input; reads still validate): the statement for each of the run's events built
// with that re-parse and without it, interleaved, the least of five each.
const eventTable = lib.runEventTable({ query: () => [] }, { commit: () => undefined });
const statements = (validate) => {
  lib.setValidateTrustedWrites(validate);
  const t = performance.now();
  for (let k = 0; k < 5; k++) for (const e of reloaded) eventTable.upsertTrustedStatement(e);
  return ((performance.now() - t) * 1000) / (5 * reloaded.length);
};
statements(true);
statements(false);
const validatedRuns = [];
const trustedRuns = [];
for (let i = 0; i < 5; i++) {
  validatedRuns.push(statements(true));
  trustedRuns.push(statements(false));
}
lib.setValidateTrustedWrites(false);
const validatedUs = Math.min(...validatedRuns);
const trustedUs = Math.min(...trustedRuns);

const figures = {
  runs: RUNS,
  transitions: transitions.length,
  transition_overhead_ms_p50: round(pct(50)),
  transition_overhead_ms_p95: round(pct(95)),
  engine_only_ms_p50: round(pctOf(engineOnly, 50)),
  engine_only_ms_p95: round(pctOf(engineOnly, 95)),
  transition_cpu_ms_p50: round(pctOf(cpuPer, 50)),
  durable_commits: commits,
  commits_per_transition: round(commits / transitions.length),
  commits_per_transition_max: Math.max(...commitsPer),
  commits_per_transition_if_per_packet: round((commits + perPacketCommits) / transitions.length),
  durable_commit_ms_p50: round(pctOf(commitSamples, 50)),
  fdatasync_ms_p50: round(pctOf(syncSamples, 50)),
  commit_cpu_ms_p50: round(pctOf(commitSamples.map((c, i) => c - syncSamples[i]), 50)),
  upsert_us_per_row_prepared_each: round(perRowPrepareUs),
  upsert_us_per_row_cached_statement: round(cachedUs),
  row_statement_us_validated_again: round(validatedUs),
  row_statement_us_trusted: round(trustedUs),
  row_statement_speedup: round(validatedUs / trustedUs),
  run_ms: Math.round(total),
  prompt_tokens_iter2: tokensByIteration.get(2),
  prompt_tokens_iter8: tokensByIteration.get(8),
  prompt_growth_iter8_over_iter2: round(tokensByIteration.get(8) / tokensByIteration.get(2)),
  full_history_prompt_tokens_iter8: fullHistoryIter8,
  load_average_1m: Math.round(os.loadavg()[0] * 10) / 10,
  targets: { transition_overhead_ms_p50: '< 5', prompt_tokens_iter8: '<= 1.25 x iter2' },
};
console.log(`transition overhead p50 ${figures.transition_overhead_ms_p50} ms (p95 ${figures.transition_overhead_ms_p95} ms) over ${transitions.length} transitions; without the durable commits ${figures.engine_only_ms_p50} ms; CPU time per transition p50 ${figures.transition_cpu_ms_p50} ms`);
console.log(`${commits} durable commits (${figures.commits_per_transition} per transition, at most ${figures.commits_per_transition_max}; a commit per claim and finished packet would make ${figures.commits_per_transition_if_per_packet}), p50 ${figures.durable_commit_ms_p50} ms each, of which fdatasync ${figures.fdatasync_ms_p50} ms and our CPU ${figures.commit_cpu_ms_p50} ms`);
console.log(`upsert per row: ${figures.upsert_us_per_row_prepared_each} µs preparing the statement each time, ${figures.upsert_us_per_row_cached_statement} µs with the cached statement (load average ${os.loadavg()[0].toFixed(1)})`);
console.log(`statement per written row: ${figures.row_statement_us_validated_again} µs parsing it with zod again, ${figures.row_statement_us_trusted} µs without (×${figures.row_statement_speedup})`);
console.log(`prompt tokens per iteration: ${[...tokensByIteration].map(([i, t]) => `${i}:${t}`).join(' ')}; whole-history prompt at iteration 8 would be ${fullHistoryIter8}`);
console.log(JSON.stringify(figures));
