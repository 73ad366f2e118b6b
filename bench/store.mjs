// Commit latency of the durable store, small vs. large (≥ 100 MB of history), against the
// naive "export the whole database and write the file" commit on the same large data.
// Last line: one JSON object with the figures.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { knob } from './harness/smoke.mjs';
import { yamlData } from '../build/yaml-data.mjs';

const TARGET_MB = knob('BENCH_STORE_MB', 100, 2);
const COMMITS = knob('BENCH_STORE_COMMITS', 500, 20);
const NAIVE_COMMITS = knob('BENCH_STORE_NAIVE_COMMITS', 10, 2);

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const outfile = path.join(root, 'out', 'bench', 'store-lib.js');
await esbuild.build({
  entryPoints: [path.join(root, 'bench', 'store-lib.ts')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile,
  loader: { '.yaml': 'text' },
  plugins: [yamlData],
  logLevel: 'warning',
});
const require = createRequire(import.meta.url);
const { Store, createRun, shippedEffortTable, loadSqlJs } = require(outfile);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-bench-'));
const now = () => performance.now();
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const round = (x) => Math.round(x * 1000) / 1000;
const at = new Date('2026-11-01T10:00:00.000Z').toISOString();

function criterion(id) {
  return { kind: 'criterion', id, text: 'Settings page shows a dark mode toggle switch', priority: 'CRITICAL', source: 'EXPLICIT', status: 'PENDING', createdAt: at, updatedAt: at, verify: { type: 'GREP', pattern: 'dark-mode', expect: 'present' } };
}

/** A run with 16 criteria; returns the function that flips one criterion's status (the measured change). */
function seedRun(store) {
  const run = createRun({ request: 'Add a dark mode toggle to settings' }, shippedEffortTable());
  const criteria = Array.from({ length: 16 }, (_, i) => criterion(`ISC-${i + 1}`));
  store.batch((tx) => {
    tx.runs.save(run);
    tx.criteria.saveVersion(run.id, 1, criteria);
  });
  let i = 0;
  return () => {
    const c = criteria[i % criteria.length];
    const status = i % 2 === 0 ? 'ACTIVE' : 'DONE';
    store.criteria.update(run.id, 1, { ...c, status, updatedAt: new Date().toISOString() });
    i++;
  };
}

function measure(commit, n) {
  for (let i = 0; i < 20; i++) commit(); // warm-up
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = now();
    commit();
    times.push(now() - t);
  }
  return times;
}

function fill(store, targetBytes) {
  // History: finished runs with criteria, reports and events, each event ~1 KB.
  const filler = 'evidence: '.padEnd(900, 'x');
  let runs = 0;
  let batches = 0;
  const size = () => (fs.existsSync(store.location) ? fs.statSync(store.location).size : 0);
  while (size() < targetBytes) {
    store.batch((tx) => {
      for (let r = 0; r < 20; r++) {
        const run = { ...createRun({ request: `historic request ${runs}` }, shippedEffortTable()), id: `run-hist${String(runs).padStart(7, '0')}` };
        runs++;
        tx.runs.save(run);
        tx.criteria.saveVersion(run.id, 1, Array.from({ length: 12 }, (_, i) => criterion(`ISC-${i + 1}`)));
        for (let e = 0; e < 40; e++) tx.events.save({ runId: run.id, seq: e, at, kind: 'tool', message: filler, inputTokens: 100, outputTokens: 50, costUsd: 0.001 });
      }
    });
    // Fold into the file every ~16 MB of history, so the size check sees the real file.
    if (++batches % 20 === 0) store.checkpoint();
  }
  return runs;
}

// Small store.
const small = await Store.open({ file: path.join(dir, 'small.sqlite'), checkpointIdleMs: 600_000 });
const smallTimes = measure(seedRun(small), COMMITS);
small.close();

// Large store.
const largeFile = path.join(dir, 'large.sqlite');
const filling = await Store.open({ file: largeFile, checkpointIdleMs: 600_000, checkpointJournalBytes: 1 << 30 });
const t0 = now();
const historicRuns = fill(filling, TARGET_MB * 1024 * 1024);
const fillSeconds = (now() - t0) / 1000;
filling.close();
const largeBytes = fs.statSync(largeFile).size;

const openStart = now();
const large = await Store.open({ file: largeFile, checkpointIdleMs: 600_000, checkpointJournalBytes: 1 << 30 });
const openMs = now() - openStart;
const largeTimes = measure(seedRun(large), COMMITS);
const checkpointStart = now();
large.checkpoint();
const checkpointMs = now() - checkpointStart;
large.close();

// Naive: every commit exports the whole database and writes it out (temp file, fsync, rename).
const SQL = await loadSqlJs();
const naiveDb = new SQL.Database(fs.readFileSync(largeFile));
const naiveTimes = [];
for (let i = 0; i < NAIVE_COMMITS; i++) {
  const t = now();
  naiveDb.run("UPDATE criteria SET status = ? WHERE rowid = (SELECT min(rowid) FROM criteria)", [i % 2 ? 'DONE' : 'ACTIVE']);
  const bytes = naiveDb.export();
  const tmp = path.join(dir, 'naive.sqlite.tmp');
  const fd = fs.openSync(tmp, 'w');
  fs.writeSync(fd, bytes);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, path.join(dir, 'naive.sqlite'));
  naiveTimes.push(now() - t);
}
naiveDb.close();
fs.rmSync(dir, { recursive: true, force: true });

const result = {
  bench: 'store',
  commits_measured: COMMITS,
  commit_p50_ms_small: round(percentile(smallTimes, 50)),
  commit_p99_ms_small: round(percentile(smallTimes, 99)),
  commit_p50_ms_large: round(percentile(largeTimes, 50)),
  commit_p99_ms_large: round(percentile(largeTimes, 99)),
  naive_commit_p50_ms_large: round(percentile(naiveTimes, 50)),
  large_over_small_p50: round(percentile(largeTimes, 50) / percentile(smallTimes, 50)),
  naive_over_journal_p50_large: round(percentile(naiveTimes, 50) / percentile(largeTimes, 50)),
  large_db_mb: round(largeBytes / 1024 / 1024),
  historic_runs: historicRuns,
  fill_seconds: round(fillSeconds),
  open_ms_large: round(openMs),
  idle_checkpoint_ms_large: round(checkpointMs),
};
console.log(`store commit p50: small ${result.commit_p50_ms_small} ms, large ${result.commit_p50_ms_large} ms (${result.large_db_mb} MB), naive ${result.naive_commit_p50_ms_large} ms`);
console.log(JSON.stringify(result));
