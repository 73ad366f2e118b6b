// The ISC table webview in headless Chromium, loaded from its built bundle
// (media/dist/isc-table.js/.css) with a stub acquireVsCodeApi.
//
// first_paint_ms_1000: from the snapshot message of a 1,000-row run to the end of the first
// frame that contains every row (the timer queued from that frame's requestAnimationFrame
// runs once the frame's style, layout and paint are done). Nothing is forced in between:
// the view's own work decides what the frame costs. first_frame_ms_1000 is the first frame
// with anything in it; a view that paints a first screen and builds the rest later has the
// two apart, and only the second is a table a person can use whole (find, End, scrolling).
// first_render_ms_1000 is the synchronous part (the message handler alone). Rows below the
// first screen start light — one element with the row's words, found by find in page — and
// are built whole as they near the screen or while the view is idle; every_row_whole_ms_1000
// is when the last of them is whole (the view is responsive throughout: idle time only).
//
// The same run measures the table as it was before the one-pass rows (BASELINE, built from
// git into a temp folder), page for page in turn with the current one, so the ratio holds
// on a busy machine where the absolute figures drift.
//
// row_update_ms_p50: one row changed, applied as a delta (what the extension sends) until
// laid out, against the same change as a whole snapshot (full re-render), in the same page.
//
// The snapshot is built by the extension's own `tableSnapshot` from schema-checked runs,
// criteria and reports (bench/table-lib.ts), so a change to the protocol reaches the bench; an
// error thrown in the page fails the bench with that error instead of leaving it waiting.
// Last line: one JSON object with first_paint_ms_1000 and row_update_ms_p50.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser } from '../test/harness/browser.mjs';
import { repoRoot } from '../test/harness/paths.mjs';
import { knob, smoke } from './harness/smoke.mjs';
import { yamlData } from '../build/yaml-data.mjs';

const ROWS = knob('IDEAL_STATE_BENCH_ROWS', 1000, 100);
const UPDATES = knob('IDEAL_STATE_BENCH_UPDATES', 200, 10);
const PAINTS = knob('IDEAL_STATE_BENCH_PAINTS', 9, 1);
/** The table before this bench's figures were worked on: 50 rows before the first frame, the rest after it. */
const BASELINE = process.env.IDEAL_STATE_BENCH_TABLE_BASELINE ?? (smoke ? 'none' : 'eb84a8677774c0e29841921506b36fca8d46603f');

const libFile = join(repoRoot, 'out', 'bench', 'table-lib.js');
await esbuild.build({ entryPoints: [join(repoRoot, 'bench', 'table-lib.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: libFile, loader: { '.yaml': 'text' }, plugins: [yamlData], logLevel: 'warning' });
const lib = createRequire(import.meta.url)(libFile);

/** The current bundle, rebuilt when any webview source is newer than it. */
function currentBundle() {
  const dist = join(repoRoot, 'media', 'dist');
  const built = join(dist, 'isc-table.js');
  const newest = (dir) => Math.max(...readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => statSync(join(e.parentPath, e.name)).mtimeMs));
  if (!existsSync(built) || statSync(built).mtimeMs < newest(join(repoRoot, 'webviews'))) {
    const result = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: repoRoot, stdio: 'inherit' });
    if (result.status !== 0) process.exit(1);
  }
  return { script: readFileSync(built, 'utf8'), style: readFileSync(join(dist, 'isc-table.css'), 'utf8') };
}

/** The table's bundle at BASELINE, or undefined (with the reason) when git cannot give it. */
async function baselineBundle() {
  if (BASELINE === 'none') return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'isc-table-baseline-'));
  try {
    const extract = spawnSync('sh', ['-c', `git -C "$1" archive "$2" webviews | tar -x -C "$3"`, 'sh', repoRoot, BASELINE, dir], { encoding: 'utf8' });
    if (extract.status !== 0 || !existsSync(join(dir, 'webviews', 'isc-table.ts'))) {
      console.log(`no baseline: git archive ${BASELINE.slice(0, 10)} failed (${extract.stderr.trim().split('\n')[0] ?? ''})`);
      return undefined;
    }
    await esbuild.build({ entryPoints: [join(dir, 'webviews', 'isc-table.ts')], bundle: true, platform: 'browser', format: 'iife', target: 'es2022', outdir: join(dir, 'out'), logLevel: 'warning' });
    return { script: readFileSync(join(dir, 'out', 'isc-table.js'), 'utf8'), style: readFileSync(join(dir, 'out', 'isc-table.css'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A going run with `n` criteria, built as the extension builds the table's snapshot: a
 * realistic mix of outcomes, domains, claims and evidence with file:line mentions.
 */
function snapshot(n) {
  const at = (s) => new Date(Date.UTC(2026, 10, 20, 10, 0, s)).toISOString();
  const run = lib.Run.parse({ ...lib.createRun({ request: 'Keep the chosen theme across reloads', effort: 'EXTENDED' }, lib.shippedEffortTable(), new Date(at(0))), state: 'RUNNING', phase: 'EXECUTE', iteration: 2, criteriaVersion: 3, elapsedMs: 400_000 });
  const outcomes = ['PASS', 'FAIL', 'PARTIAL', 'UNKNOWN', undefined];
  const criteria = Array.from({ length: n }, (_, i) =>
    lib.AnyCriterion.parse({
      kind: i % 10 === 9 ? 'anti-criterion' : 'criterion',
      id: i % 10 === 9 ? `ISC-A-${i + 1}` : `ISC-${i + 1}`,
      text: `Criterion ${i + 1}: the settings page keeps the chosen theme after a reload`,
      priority: ['CRITICAL', 'IMPORTANT', 'NICE'][i % 3],
      source: 'EXPLICIT',
      domain: ['ui', 'api', 'storage', 'security'][i % 4],
      verify: { type: 'GREP', pattern: `theme-${i}`, expect: 'present' },
      status: i % 7 === 0 ? 'ACTIVE' : 'PENDING',
      createdAt: at(1),
      updatedAt: at(1),
      ...(i % 5 === 0 ? { claim: { by: `specialist-${i % 3}`, at: at(2) } } : {}),
    }),
  );
  const results = criteria.flatMap((c, i) => {
    const outcome = outcomes[i % 5];
    if (!outcome) return [];
    return [{ criterionId: c.id, outcome, evidence: `src/settings/theme-${i}.ts:${(i % 90) + 1}: const theme = load()`, durationMs: (i * 37) % 4000, ...(outcome === 'PASS' ? {} : { failureLabel: 'EXECUTION_ERROR' }), locations: [{ file: `src/settings/theme-${i}.ts`, line: (i % 90) + 1 }] }];
  });
  const report = lib.VerificationReport.parse({ id: 'report-bench', runId: run.id, iteration: 2, criteriaVersion: 3, results, passed: false, summary: '', createdAt: at(3) });
  const staleIds = new Set(criteria.filter((_, i) => i % 13 === 0).map((c) => c.id));
  return lib.tableSnapshot({
    run,
    criteria,
    reports: [report],
    events: [{ inputTokens: 400_000, outputTokens: 100_000, costUsd: 1.2 }],
    caps: { tokens: 4_000_000, usd: 8 },
    staleIds,
    live: { elapsedMs: 400_000, waitedMs: 0 },
    abilities: { verify: true, edit: true, cancel: true, resume: false, rate: false },
  });
}

async function openPage(browser, bundle) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (error) => {
    page.__failed = error;
  });
  await page.setContent(`<!DOCTYPE html><html><head><meta charset="utf-8"><style>${bundle.style}</style></head><body class="vscode-dark"></body></html>`);
  await page.evaluate(() => {
    window.__posted = [];
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), getState: () => undefined, setState: () => {} });
  });
  await page.addScriptTag({ content: bundle.script });
  await page.waitForFunction(() => window.__posted.some((m) => m.kind === 'ready'));
  return page;
}

/** From the snapshot message to the end of the first frame, and of the first frame holding every row. */
async function firstPaint(page, body) {
  return failFast(page, page.evaluate(
    (body) =>
      new Promise((resolve) => {
        const start = performance.now();
        let render = 0;
        let first;
        // Registered before the view's own frame callbacks, so the count is what this frame
        // paints, and the timer is the first task after it.
        const frame = () =>
          requestAnimationFrame(() => {
            const complete = document.querySelectorAll('.body .row').length >= body.rows.length;
            setTimeout(() => {
              const at = performance.now() - start;
              first ??= at;
              if (!complete) return frame();
              // Then until no row is light any more (built whole while idle, see full-rows.ts).
              const whole = () => (document.querySelector('.body .row.light') ? setTimeout(whole, 5) : resolve({ render, first, paint: at, whole: performance.now() - start }));
              whole();
            }, 0);
          });
        frame();
        window.dispatchEvent(new MessageEvent('message', { data: { kind: 'event', type: 'snapshot', body } }));
        render = performance.now() - start;
      }),
    body,
  ));
}

/** `work` in the page, or the first error the page throws meanwhile (a view that throws never paints). */
function failFast(page, work) {
  const thrown = new Promise((_, reject) => {
    const check = () => (page.__failed ? reject(new Error(`the table threw in the page: ${page.__failed.message}`)) : setTimeout(check, 50).unref());
    check();
  });
  return Promise.race([work, thrown]);
}

/**
 * One row changed, `count` times. As a delta: the handler plus layout (all of it is
 * synchronous). As a full re-render: a whole snapshot, until every row is rebuilt and laid out.
 */
async function updates(page, kind, count) {
  return failFast(page, page.evaluate(
    async ({ kind, count }) => {
      const times = [];
      const base = window.__benchSnapshot;
      const allBuilt = () =>
        new Promise((resolve) => {
          const check = () => (document.querySelectorAll('.body .row').length < base.rows.length || document.querySelector('.body .row.light') ? setTimeout(check, 0) : resolve());
          check();
        });
      for (let u = 0; u < count; u++) {
        const i = (u * 37) % base.rows.length;
        const row = { ...base.rows[i], outcome: u % 2 === 0 ? 'FAIL' : 'PASS', status: u % 2 === 0 ? 'ACTIVE' : 'DONE', durationMs: u };
        const data =
          kind === 'delta'
            ? { kind: 'event', type: 'delta', body: { type: 'row', row } }
            : { kind: 'event', type: 'snapshot', body: { ...base, rows: base.rows.map((r, j) => (j === i ? row : r)) } };
        const start = performance.now();
        window.dispatchEvent(new MessageEvent('message', { data }));
        void document.body.offsetHeight;
        if (kind !== 'delta') {
          await allBuilt();
          void document.body.offsetHeight;
        }
        times.push(performance.now() - start);
      }
      return times;
    },
    { kind, count },
  ));
}

/** The table a person gets: every row there, the browser's find reaches the last one, its outcome changed by the deltas. */
async function check(page) {
  const { shown, found, outcome } = await page.evaluate((rows) => ({
    shown: document.querySelectorAll('.body .row').length,
    found: window.find(`Criterion ${rows}: the settings page`),
    outcome: document.querySelector('.body .row [data-outcome]')?.getAttribute('data-outcome'),
  }), ROWS);
  if (shown !== ROWS) throw new Error(`the table shows ${shown} rows, not ${ROWS}`);
  if (!found) throw new Error('find in page does not reach the last row');
  if (!outcome) throw new Error('no outcome cell after the updates');
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const p95 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)];
const round = (n) => Math.round(n * 100) / 100;

const current = currentBundle();
const baseline = await baselineBundle();
const browser = await launchBrowser();
try {
  const body = snapshot(ROWS);
  const figures = { current: [], baseline: [] };
  // In turn, page for page: the two approaches see the same load.
  for (let i = 0; i < PAINTS; i++) {
    for (const [name, bundle] of [['current', current], ['baseline', baseline]]) {
      if (!bundle) continue;
      const page = await openPage(browser, bundle);
      figures[name].push(await firstPaint(page, body));
      await page.close();
    }
  }
  const of = (name, key) => figures[name].map((f) => f[key]);

  const page = await openPage(browser, current);
  await firstPaint(page, body);
  await page.evaluate((b) => (window.__benchSnapshot = b), body);
  // Warm both paths once, then measure them in turn on the same page.
  await updates(page, 'delta', 20);
  await updates(page, 'snapshot', 3);
  const delta = await updates(page, 'delta', UPDATES);
  const full = await updates(page, 'snapshot', Math.max(10, Math.floor(UPDATES / 10)));
  await check(page);
  await page.close();

  const paint = median(of('current', 'paint'));
  const before = baseline ? median(of('baseline', 'paint')) : undefined;
  const result = {
    rows: ROWS,
    first_paint_ms_1000: round(paint),
    first_paint_ms_1000_max: round(Math.max(...of('current', 'paint'))),
    first_frame_ms_1000: round(median(of('current', 'first'))),
    first_render_ms_1000: round(median(of('current', 'render'))),
    every_row_whole_ms_1000: round(median(of('current', 'whole'))),
    baseline: baseline ? BASELINE.slice(0, 10) : null,
    baseline_first_paint_ms_1000: before === undefined ? null : round(before),
    baseline_first_frame_ms_1000: baseline ? round(median(of('baseline', 'first'))) : null,
    first_paint_speedup: before === undefined ? null : round(before / paint),
    row_update_ms_p50: round(median(delta)),
    row_update_ms_p95: round(p95(delta)),
    full_rerender_ms_p50: round(median(full)),
    full_rerender_ms_p95: round(p95(full)),
    speedup_p50: round(median(full) / median(delta)),
    paints: PAINTS,
    updates: UPDATES,
    targets: { first_paint_ms_1000: 150, row_update_ms_p50: 16 },
  };
  console.log(
    `first paint of a ${ROWS}-row run, every row in it: ${result.first_paint_ms_1000} ms (median of ${PAINTS})` +
      (before === undefined ? '' : `, before ${result.baseline_first_paint_ms_1000} ms (its first 50 rows at ${result.baseline_first_frame_ms_1000} ms): ×${result.first_paint_speedup}`) +
      `; one row update: ${result.row_update_ms_p50} ms p50 as a delta vs ${result.full_rerender_ms_p50} ms as a full re-render`,
  );
  console.log(JSON.stringify(result));
} finally {
  await browser.close();
}
