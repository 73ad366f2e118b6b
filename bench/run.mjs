// `npm run bench`: runs every bench/*.mjs except this one, each printing a JSON line last.
// `npm run bench -- table verify` runs the ones whose names start so. `--smoke` runs each at a
// small size (bench/harness/smoke.mjs) and checks that it exits 0 with one JSON object as its
// last line: what `npm test` runs, so a benchmark that no longer measures the product fails there.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const dir = path.dirname(new URL(import.meta.url).pathname);
const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const only = args.filter((a) => !a.startsWith('--'));
const benches = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs')
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)));
if (benches.length === 0) {
  console.error(`no bench/*.mjs starts with ${only.join(' or ')}`);
  process.exit(2);
}

/** The bench's exit code and stdout, its output passed through as it comes. */
function runBench(file) {
  const env = smoke ? { ...process.env, IDEAL_STATE_BENCH_SMOKE: '1' } : process.env;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--max-old-space-size=4096', path.join(dir, file)], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      process.stdout.write(chunk);
    });
    child.on('close', (code, signal) => resolve({ code: code ?? signal, out }));
  });
}

/** Why the last line is not one JSON object, or undefined when it is. */
function jsonLineProblem(out) {
  const last = out.trimEnd().split('\n').at(-1) ?? '';
  try {
    const value = JSON.parse(last);
    if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length === 0) return `its last line is not a JSON object with figures: ${last.slice(0, 200)}`;
    return undefined;
  } catch {
    return `its last line is not JSON: ${last.slice(0, 200) || '(no output)'}`;
  }
}

const results = [];
for (const bench of benches) {
  console.log(`== bench/${bench}${smoke ? ' (smoke)' : ''}`);
  const started = performance.now();
  const { code, out } = await runBench(bench);
  const problem = code !== 0 ? `exited with ${code}` : jsonLineProblem(out);
  results.push({ bench, seconds: (performance.now() - started) / 1000, problem });
}
console.log(`\n== ${smoke ? 'smoke ' : ''}summary`);
for (const r of results) console.log(`${r.problem ? 'FAIL' : 'ok  '} bench/${r.bench} (${r.seconds.toFixed(1)} s)${r.problem ? `: ${r.problem}` : ''}`);
// For npm test's summary (test/run-all.mjs): one test per benchmark.
if (process.env.IDEAL_STATE_BENCH_TALLY) {
  const failed = results.filter((r) => r.problem).length;
  fs.writeFileSync(process.env.IDEAL_STATE_BENCH_TALLY, JSON.stringify({ passed: results.length - failed, failed, skipped: 0 }));
}
process.exit(results.some((r) => r.problem) ? 1 : 0);
