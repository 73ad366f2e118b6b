// The ISC table webview in headless Chromium, loaded from its built bundle
// (media/dist/isc-table.js/.css) with a stub acquireVsCodeApi: first paint of a 1,000-row
// run, and the time to apply one row update as a delta (what the extension sends) against
// a full re-render with the same change (a whole snapshot) in the same page.
// first_paint_ms_1000 is the first frame after the snapshot arrives (the first screen of rows
// is built before it, the rest right after: all_rows_ms_1000); first_render_ms_1000 is the
// synchronous part (message handled and laid out), without waiting for the frame.
// Last line: one JSON object with first_paint_ms_1000 and row_update_ms_p50.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser } from '../test/harness/browser.mjs';
import { repoRoot } from '../test/harness/paths.mjs';

const ROWS = 1000;
const UPDATES = Number(process.env.IDEAL_STATE_BENCH_UPDATES ?? 200);
const PAINTS = Number(process.env.IDEAL_STATE_BENCH_PAINTS ?? 7);

const dist = join(repoRoot, 'media', 'dist');
if (!existsSync(join(dist, 'isc-table.js'))) {
  const built = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: repoRoot, stdio: 'inherit' });
  if (built.status !== 0) process.exit(1);
}
const script = readFileSync(join(dist, 'isc-table.js'), 'utf8');
const style = readFileSync(join(dist, 'isc-table.css'), 'utf8');

/** A run with `n` rows: a realistic mix of outcomes, domains and evidence with file:line mentions. */
function snapshot(n) {
  const outcomes = ['PASS', 'FAIL', 'PARTIAL', 'UNKNOWN', undefined];
  const rows = Array.from({ length: n }, (_, i) => ({
    id: i % 10 === 9 ? `ISC-A-${i + 1}` : `ISC-${i + 1}`,
    kind: i % 10 === 9 ? 'anti-criterion' : 'criterion',
    text: `Criterion ${i + 1}: the settings page keeps the chosen theme after a reload`,
    priority: ['CRITICAL', 'IMPORTANT', 'NICE'][i % 3],
    source: 'EXPLICIT',
    domain: ['ui', 'api', 'storage', 'security'][i % 4],
    verify: `Grep: theme-${i}`,
    status: i % 7 === 0 ? 'ACTIVE' : 'PENDING',
    ...(outcomes[i % 5] ? { outcome: outcomes[i % 5] } : {}),
    stale: i % 13 === 0,
    evidence: `src/settings/theme-${i}.ts:${(i % 90) + 1}: const theme = load()`,
    locations: [{ file: `src/settings/theme-${i}.ts`, line: (i % 90) + 1 }],
    durationMs: (i * 37) % 4000,
    ...(i % 5 === 0 ? { claimedBy: `specialist-${i % 3}` } : {}),
  }));
  return {
    header: { runId: 'run-bench01', request: 'Keep the chosen theme across reloads', effort: 'EXTENDED', state: 'RUNNING', phase: 'EXECUTE', iteration: 2, criteriaVersion: 3, finished: false, budget: { seconds: { used: 400, limit: 1200 }, tokens: { used: 500_000, limit: 4_000_000 }, usd: { used: 1.2, limit: 8 } } },
    rows,
    approvals: [],
    abilities: { verify: true, edit: true, cancel: true, resume: false, rate: false },
  };
}

const PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"><style>${style}</style></head><body class="vscode-dark"></body></html>`;

async function openPage(browser) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.setContent(PAGE);
  await page.evaluate(() => {
    window.__posted = [];
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), getState: () => undefined, setState: () => {} });
  });
  await page.addScriptTag({ content: script });
  await page.waitForFunction(() => window.__posted.some((m) => m.kind === 'ready'));
  return page;
}

/**
 * From the message to the first frame after it (the first screen of rows is painted), and
 * to the moment all rows are in the DOM and laid out.
 */
async function firstPaint(page, body) {
  return page.evaluate(
    (body) =>
      new Promise((resolve) => {
        const start = performance.now();
        let render = 0;
        // Registered before the view's own frame callback, so this timer is the first task
        // after the frame is painted — before the view builds the rows off screen.
        requestAnimationFrame(() =>
          setTimeout(() => {
            const paint = performance.now() - start;
            const all = () => {
              if (document.querySelectorAll('.body .row').length < body.rows.length) return setTimeout(all, 0);
              void document.body.offsetHeight;
              resolve({ render, paint, all: performance.now() - start });
            };
            all();
          }, 0),
        );
        window.dispatchEvent(new MessageEvent('message', { data: { kind: 'event', type: 'snapshot', body } }));
        void document.body.offsetHeight;
        render = performance.now() - start;
      }),
    body,
  );
}

/**
 * One row changed, `count` times. As a delta: the handler plus layout (all of it is
 * synchronous). As a full re-render: a whole snapshot, until every row is rebuilt and laid out.
 */
async function updates(page, kind, count) {
  return page.evaluate(
    async ({ kind, count }) => {
      const times = [];
      const base = window.__benchSnapshot;
      const allBuilt = () =>
        new Promise((resolve) => {
          const check = () => (document.querySelectorAll('.body .row').length < base.rows.length ? setTimeout(check, 0) : resolve());
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
  );
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const p95 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)];
const round = (n) => Math.round(n * 100) / 100;

const browser = await launchBrowser();
try {
  const body = snapshot(ROWS);
  const paints = [];
  const alls = [];
  const renders = [];
  for (let i = 0; i < PAINTS; i++) {
    const page = await openPage(browser);
    const { render, paint, all } = await firstPaint(page, body);
    renders.push(render);
    paints.push(paint);
    alls.push(all);
    await page.close();
  }
  const page = await openPage(browser);
  await firstPaint(page, body);
  await page.evaluate((b) => (window.__benchSnapshot = b), body);
  const shownRows = await page.evaluate(() => document.querySelectorAll('.body .row').length);
  if (shownRows !== ROWS) throw new Error(`the table shows ${shownRows} rows, not ${ROWS}`);
  // Warm both paths once, then measure them in turn on the same page.
  await updates(page, 'delta', 20);
  await updates(page, 'snapshot', 3);
  const delta = await updates(page, 'delta', UPDATES);
  const full = await updates(page, 'snapshot', Math.max(10, Math.floor(UPDATES / 10)));
  // The delta path really changed the row in the DOM.
  const last = await page.evaluate(() => document.querySelector('.body .row [data-outcome]')?.getAttribute('data-outcome'));
  if (!last) throw new Error('no outcome cell after the updates');
  await page.close();

  const result = {
    rows: ROWS,
    first_paint_ms_1000: round(median(paints)),
    first_paint_ms_1000_max: round(Math.max(...paints)),
    first_render_ms_1000: round(median(renders)),
    all_rows_ms_1000: round(median(alls)),
    row_update_ms_p50: round(median(delta)),
    row_update_ms_p95: round(p95(delta)),
    full_rerender_ms_p50: round(median(full)),
    full_rerender_ms_p95: round(p95(full)),
    speedup_p50: round(median(full) / median(delta)),
    updates: UPDATES,
    targets: { first_paint_ms_1000: 150, row_update_ms_p50: 16 },
  };
  console.log(`first paint of a ${ROWS}-row run: ${result.first_paint_ms_1000} ms, all rows built ${result.all_rows_ms_1000} ms (median of ${PAINTS}); one row update: ${result.row_update_ms_p50} ms p50 as a delta vs ${result.full_rerender_ms_p50} ms as a full re-render`);
  console.log(JSON.stringify(result));
} finally {
  await browser.close();
}
