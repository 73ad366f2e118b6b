// Ratings figures over a 10,000-rating history: the store-backed figures (count + last 10
// rows) and the incremental RollingRatings, each against the naive recompute that reads
// every rating again after each new one. Also the import of a 10,000-line ratings.jsonl.
// Last line: one JSON object with the figures.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { knob } from './harness/smoke.mjs';
import { yamlData } from '../build/yaml-data.mjs';

const HISTORY = knob('BENCH_RATINGS', 10_000, 500);
const ROUNDS = knob('BENCH_RATINGS_ROUNDS', 100, 5);

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const outfile = path.join(root, 'out', 'bench', 'learning-lib.js');
await esbuild.build({ entryPoints: [path.join(root, 'bench', 'learning-lib.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, loader: { '.yaml': 'text' }, plugins: [yamlData], logLevel: 'warning' });
const require = createRequire(import.meta.url);
const { Store, LearningService, RollingRatings, ratingFigures, ratingsToJsonl, ratingId } = require(outfile);

const now = () => performance.now();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (x) => Math.round(x * 1000) / 1000;
let seed = 7;
const nextRating = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), 1 + (seed % 10));
const rating = (i) => {
  const timestamp = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
  const value = nextRating();
  return { id: ratingId(timestamp, 'bench', value), timestamp, rating: value, sessionId: 'bench', type: 'explicit' };
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-bench-learning-'));
const store = await Store.open({ file: path.join(dir, 'ideal-state.sqlite'), wasmPath: path.join(root, 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm'), checkpointIdleMs: 600_000 });
const learning = new LearningService(store, { version: 'bench' });

const history = Array.from({ length: HISTORY }, (_, i) => rating(i));
const jsonl = ratingsToJsonl(history);
let t = now();
const imported = learning.importRatings(jsonl);
const importMs = now() - t;
if (imported.added !== HISTORY) throw new Error(`imported ${imported.added}, expected ${HISTORY}`);
t = now();
const reimported = learning.importRatings(jsonl);
const reimportMs = now() - t;
if (reimported.added !== 0) throw new Error('re-import added ratings');

// Each round: one new rating, then the figures the status bar shows.
const storeMs = [];
const naiveStoreMs = [];
for (let i = 0; i < ROUNDS; i++) {
  store.ratings.save(rating(HISTORY + i));
  t = now();
  const fast = learning.figures();
  storeMs.push(now() - t);
  t = now();
  const all = learning.ratings().map((r) => r.rating);
  const naive = ratingFigures(all.slice(-10), all.length);
  naiveStoreMs.push(now() - t);
  if (JSON.stringify(fast) !== JSON.stringify(naive)) throw new Error(`figures differ: ${JSON.stringify(fast)} vs ${JSON.stringify(naive)}`);
}

// In memory: the incremental figures against a recompute over the whole array.
const values = history.map((r) => r.rating);
const rolling = new RollingRatings(values);
const incrementalUs = [];
const naiveMemoryUs = [];
for (let i = 0; i < ROUNDS; i++) {
  const v = nextRating();
  values.push(v);
  t = now();
  rolling.add(v);
  const a = rolling.figures;
  incrementalUs.push((now() - t) * 1000);
  t = now();
  const copy = values.slice();
  const b = ratingFigures(copy.slice(-10), copy.length);
  naiveMemoryUs.push((now() - t) * 1000);
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error('incremental figures differ');
}
store.close();
fs.rmSync(dir, { recursive: true, force: true });

console.log(
  JSON.stringify({
    bench: 'learning',
    ratings: HISTORY + ROUNDS,
    importMs: round(importMs),
    reimportMs: round(reimportMs),
    figuresFromStoreMedianMs: round(median(storeMs)),
    naiveReadAllMedianMs: round(median(naiveStoreMs)),
    storeSpeedup: round(median(naiveStoreMs) / median(storeMs)),
    incrementalMedianUs: round(median(incrementalUs)),
    naiveRecomputeMedianUs: round(median(naiveMemoryUs)),
  }),
);
