// Activation time of the packaged extension in the real VS Code extension host, over
// several window loads, as VS Code itself measures it (Developer: Show Running Extensions,
// "Startup Activation: N ms", which is loading the bundle plus the synchronous activate call).
// Each load waits until VS Code has finished activating the extension: the row reads
// "Activating..." until then, and a row that never gets a time within ACTIVATION_TIMEOUT_MS
// is a failure that says so. The extension activates because the sample workspace has PRDs
// (workspaceContains), as it would for a person opening such a folder.
//
// The same run measures the extension as it was at BASELINE (built from git into a temp
// folder and packaged there), load for load in turn with the current one, so the ratio
// holds on a busy machine where the absolute figures drift. Set
// IDEAL_STATE_BENCH_ACTIVATION_BASELINE=none to measure the current extension alone.
//
// Also: the time to require each production bundle in a fresh Node process (the extension
// bundle against the engine bundle it defers), and the size of the .vsix.
// Last line: one JSON object with activate_ms_p50 and vsix_bytes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser, openWorkbench } from '../test/harness/browser.mjs';
import { repoRoot } from '../test/harness/paths.mjs';
import { copySampleWorkspace, makeProfile, removeProfile, startServer } from '../test/harness/server.mjs';
import { setup } from '../test/harness/setup.mjs';
import { installVsix, packageVsix } from '../test/harness/vsix.mjs';
import { Workbench } from '../test/harness/workbench.mjs';
import { knob, smoke } from './harness/smoke.mjs';

const LOADS = knob('IDEAL_STATE_BENCH_LOADS', 5, 1);
// Before issue 16: the engine bundle loaded at activation, which ran on every Markdown file.
const BASELINE = process.env.IDEAL_STATE_BENCH_ACTIVATION_BASELINE ?? (smoke ? 'none' : 'bf77ceba04a5464b810ac758f5daaa2554d2a30e');
const ACTIVATION_TIMEOUT_MS = 60_000;
const POLL_MS = 200;
const TARGET_MS = 50;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The .vsix of the extension at BASELINE, or undefined (with the reason) when git or packaging cannot give it. */
function baselineVsix() {
  if (BASELINE === 'none') return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'ideal-state-activation-baseline-'));
  const extract = spawnSync('sh', ['-c', 'git -C "$1" archive "$2" | tar -x -C "$3"', 'sh', repoRoot, BASELINE, dir], { encoding: 'utf8' });
  if (extract.status !== 0) {
    console.log(`no baseline: git archive ${BASELINE.slice(0, 10)} failed (${extract.stderr.trim().split('\n')[0] ?? ''})`);
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
  const pack = spawnSync('npm', ['run', 'package'], { cwd: dir, encoding: 'utf8' });
  const file = join(dir, 'ideal-state.vsix');
  if (pack.status !== 0 || !existsSync(file)) {
    console.log(`no baseline: packaging ${BASELINE.slice(0, 10)} failed (${`${pack.stdout}${pack.stderr}`.trim().split('\n').at(-1)})`);
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return { file, bytes: statSync(file).size, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A workbench on a copy of the sample workspace with this .vsix installed (Workbench.open, with any .vsix). */
async function openWith(vsix) {
  const profile = makeProfile({ trusted: true, settings: {} });
  installVsix(profile, vsix);
  const workspace = copySampleWorkspace(profile);
  const server = await startServer({ profile });
  const browser = await launchBrowser();
  const page = await openWorkbench(browser, server.url(workspace));
  return new Workbench({ profile, server, browser, page, workspace });
}

/**
 * VS Code's figure for this window load: the Running Extensions row of Ideal State, polled
 * until it carries a time. The list is virtual and sorted slowest first, so the row may need
 * scrolling into view; the editor re-renders when an extension's status changes.
 */
async function activationMs(workbench) {
  const { page } = workbench;
  await workbench.runCommand('Developer: Show Running Extensions');
  const list = page.locator('.runtime-extensions-editor .monaco-list');
  await list.waitFor({ timeout: 30_000 });
  const row = list.locator('.monaco-list-row').filter({ hasText: 'Ideal State' });
  const deadline = Date.now() + ACTIVATION_TIMEOUT_MS;
  let seen = '(no row for Ideal State: its activation has not started)';
  for (;;) {
    if ((await row.count()) > 0) {
      seen = (await row.first().innerText().catch(() => seen)).replace(/\s+/g, ' ').trim();
      const match = /Activation: (\d+)\s*ms/.exec(seen);
      if (match) return Number(match[1]);
    } else {
      // Not rendered: scroll on, and from the top again once the end is reached.
      const box = await list.boundingBox();
      if (box) {
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        const atEnd = await list.evaluate((el) => {
          const scrollable = el.querySelector('.monaco-scrollable-element');
          const rows = el.querySelector('.monaco-list-rows');
          return !scrollable || !rows || rows.getBoundingClientRect().bottom <= scrollable.getBoundingClientRect().bottom + 1;
        });
        await page.mouse.wheel(0, atEnd ? -100_000 : 400);
      }
    }
    if (Date.now() > deadline) throw new Error(`Ideal State did not finish activating within ${ACTIVATION_TIMEOUT_MS / 1000} s; its Running Extensions row: ${seen}`);
    await sleep(POLL_MS);
  }
}

/** The extension's own log says how long activate took and whether the engine bundle loaded then. */
function activationLogLines(workbench) {
  const out = [];
  const walk = (dir) => {
    for (const entry of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === 'Ideal State.log') out.push(...readFileSync(path, 'utf8').split('\n').filter((l) => /activated in/.test(l)));
    }
  };
  walk(join(workbench.profile.userDataDir, 'logs'));
  return out;
}

async function measure(label, vsix) {
  const workbench = await openWith(vsix);
  const samples = [];
  try {
    for (let load = 1; load <= LOADS; load++) {
      if (load > 1) {
        await workbench.page.reload();
        await workbench.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      }
      samples.push(await activationMs(workbench));
      console.log(`${label}, window load ${load}: activation ${samples.at(-1)} ms`);
    }
    const log = activationLogLines(workbench);
    // The activate call alone, as the extension logs it; VS Code's figure adds loading the bundle.
    const calls = log.map((l) => Number(/activated in ([\d.]+) ms/.exec(l)?.[1])).filter((n) => !Number.isNaN(n));
    return { samples, calls, engineAtActivation: log.filter((l) => /engine bundle loaded/.test(l)).length, logged: log.length };
  } finally {
    await workbench.close();
  }
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Median time to require a production bundle in a fresh Node process (with `vscode` stubbed):
 * what loading the engine at activation would add to the extension bundle alone.
 */
function requireMs(bundle, runs = smoke ? 1 : 7) {
  // `vscode` is stubbed: every name the API exports (read from its type definitions) is a
  // proxy that answers any property, call or construction (and turns into '' in a string),
  // so module-level uses such as CodeActionKind.QuickFix load as they would in the host.
  const names = [...new Set([...readFileSync(join(repoRoot, 'node_modules/@types/vscode/index.d.ts'), 'utf8').matchAll(/^\t?export (?:namespace|class|enum|const|function) (\w+)/gm)].map((m) => m[1]))];
  const script = `const p=new Proxy(function(){},{get:(t,k)=>k==='then'?undefined:k===Symbol.toPrimitive?()=>'':p,apply:()=>p,construct:()=>p});` +
    `const api=Object.fromEntries(${JSON.stringify(names)}.map((n)=>[n,p]));` +
    `const M=require('module');const l=M._load;M._load=function(r,...a){return r==='vscode'?api:l.call(this,r,...a)};` +
    `const t=performance.now();require(${JSON.stringify(bundle)});process.stdout.write(String(performance.now()-t))`;
  const times = [];
  for (let i = 0; i < runs; i++) {
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    if (result.status !== 0 || !result.stdout) throw new Error(`requiring ${bundle} failed: ${result.stderr}`);
    times.push(Number(result.stdout));
  }
  return percentile(times, 50);
}

await setup();
const baseline = baselineVsix();
// IDEAL_STATE_BENCH_VSIX: a .vsix just packaged from this tree (npm test's e2e tier makes one), not packaged again.
const vsix = process.env.IDEAL_STATE_BENCH_VSIX ? { path: process.env.IDEAL_STATE_BENCH_VSIX, bytes: statSync(process.env.IDEAL_STATE_BENCH_VSIX).size } : packageVsix();
let current;
let before;
try {
  current = await measure('current', vsix.path);
  if (baseline) before = await measure(`baseline ${BASELINE.slice(0, 10)}`, baseline.file);
} finally {
  baseline?.dispose();
}
const shellMs = requireMs(join(repoRoot, 'dist', 'extension.js'));
const engineMs = requireMs(join(repoRoot, 'dist', 'engine.js'));
const round = (n) => Math.round(n * 10) / 10;
const p50 = percentile(current.samples, 50);
const beforeP50 = before ? percentile(before.samples, 50) : undefined;
console.log(
  `activation p50 ${p50} ms over ${LOADS} loads (target under ${TARGET_MS} ms)` +
    (beforeP50 === undefined ? '' : `, baseline ${BASELINE.slice(0, 10)} ${beforeP50} ms: ×${round(beforeP50 / p50)}`) +
    `; engine bundle loaded during activation in ${current.engineAtActivation} of ${current.logged} logged activations` +
    `; require: extension bundle ${shellMs.toFixed(1)} ms, engine bundle ${engineMs.toFixed(1)} ms`,
);
console.log(JSON.stringify({
  activate_ms_p50: p50,
  activate_ms_max: Math.max(...current.samples),
  activate_ms_samples: current.samples,
  activate_call_ms_p50: current.calls.length ? percentile(current.calls, 50) : null,
  engine_loaded_at_activation: current.engineAtActivation,
  baseline: before ? BASELINE.slice(0, 10) : null,
  baseline_activate_ms_p50: beforeP50 ?? null,
  baseline_activate_ms_samples: before?.samples ?? null,
  baseline_activate_call_ms_p50: before?.calls.length ? percentile(before.calls, 50) : null,
  baseline_vsix_bytes: baseline?.bytes ?? null,
  speedup_p50: beforeP50 === undefined ? null : round(beforeP50 / p50),
  require_extension_bundle_ms: round(shellMs),
  require_engine_bundle_ms: round(engineMs),
  eager_over_lazy_require: round((shellMs + engineMs) / shellMs),
  vsix_bytes: vsix.bytes,
  loads: LOADS,
  targets: { activate_ms_p50: TARGET_MS },
}));
