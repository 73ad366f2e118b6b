// Verification speed: a GREP criterion over a generated tree of ≥ 20,000 files against plain
// `rg` on the same tree in the same run (both use the same ripgrep binary), and 16 CLI
// criteria that each sleep 0.5 s at parallelism 4 against the ideal 16 × 0.5 / 4 = 2 s.
// Last line: one JSON object with the figures.
import { spawn } from 'node:child_process';
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { knob } from './harness/smoke.mjs';
import { yamlData } from '../build/yaml-data.mjs';

const FILES = knob('BENCH_VERIFY_FILES', 20_000, 500);
const ROUNDS = knob('BENCH_VERIFY_ROUNDS', 7, 1);
/** Each CLI criterion sleeps this long (s); 16 of them at parallelism 4 ideally take 4 × SLEEP_S. */
const SLEEP_S = knob('BENCH_VERIFY_SLEEP_S', 0.5, 0.1);

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const outfile = path.join(root, 'out', 'bench', 'verify-lib.js');
await esbuild.build({ entryPoints: [path.join(root, 'bench', 'verify-lib.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, loader: { '.yaml': 'text' }, plugins: [yamlData], logLevel: 'warning' });
const require = createRequire(import.meta.url);
const { verifyCriteria, searchWithJs, SearchScope, bundledRipgrep, findRipgrep } = require(outfile);

const rg = findRipgrep(bundledRipgrep(path.join(root, '.vscode-test', 'vscode', 'node_modules', 'code-server', 'lib', 'vscode')));
if (!rg) {
  console.error('no ripgrep: put rg on PATH or run node test/harness/setup.mjs (VS Code ships one)');
  process.exit(1);
}

// The tree: 200 folders of source-like files, a .gitignore'd build folder, a few matches.
const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-bench-verify-'));
const body = Array.from({ length: 40 }, (_, i) => `export function handler${i}(request) { return request.body?.items?.map((x) => x * ${i}) ?? []; }`).join('\n');
fs.writeFileSync(path.join(tree, '.gitignore'), 'build/\n*.tmp\n');
let written = 0;
for (let d = 0; written < FILES; d++) {
  const dir = path.join(tree, 'src', `module-${d}`);
  fs.mkdirSync(dir, { recursive: true });
  for (let f = 0; f < 100 && written < FILES; f++, written++) {
    const marker = written % 997 === 0 ? `\n// X-Request-Id header set here (${written})` : '';
    fs.writeFileSync(path.join(dir, `file-${f}.ts`), `${body}${marker}\n`);
  }
}
fs.mkdirSync(path.join(tree, 'build'), { recursive: true });
for (let i = 0; i < 500; i++) fs.writeFileSync(path.join(tree, 'build', `out-${i}.js`), `${body}\n// X-Request-Id in ignored output\n`);

const PATTERN = 'X-Request-Id';
const now = () => performance.now();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x) => Math.round(x * 1000) / 1000;

function plainRg() {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, ['--no-require-git', '-n', PATTERN, '.'], { cwd: tree, stdio: ['ignore', 'pipe', 'inherit'] });
    let lines = 0;
    child.stdout.on('data', (c) => (lines += c.toString().split('\n').length - 1));
    child.on('close', (code) => (code === 0 ? resolve(lines) : reject(new Error(`rg exited ${code}`))));
  });
}

const at = '2026-11-22T00:00:00.000Z';
const criterion = (id, verify) => ({ kind: 'criterion', id, text: 'Every response carries a request id header', priority: 'CRITICAL', source: 'EXPLICIT', status: 'PENDING', createdAt: at, updatedAt: at, verify });
async function ours() {
  const set = await verifyCriteria([criterion('ISC-1', { type: 'GREP', pattern: PATTERN, expect: 'present' })], { workspaceRoot: tree, ripgrepPath: rg }, { parallelism: 1, timeoutMs: 120_000 });
  const r = set.results[0];
  if (r.outcome !== 'PASS' || !/\(ripgrep\)/.test(r.evidence)) throw new Error(`unexpected GREP result: ${r.outcome} ${r.evidence.split('\n')[0]}`);
  return Number(/^(\d+) matching/.exec(r.evidence)[1]);
}

await plainRg(); // warm the page cache for both
await ours();
const rgTimes = [];
const ourTimes = [];
let rgLines = 0;
let ourLines = 0;
for (let i = 0; i < ROUNDS; i++) {
  let t = now();
  rgLines = await plainRg();
  rgTimes.push(now() - t);
  t = now();
  ourLines = await ours();
  ourTimes.push(now() - t);
}
if (rgLines !== ourLines) throw new Error(`rg found ${rgLines} lines, the GREP verifier ${ourLines}`);

let t = now();
const js = await searchWithJs({ scope: SearchScope.create(tree, undefined, [], []), pattern: PATTERN, signal: new AbortController().signal, timeoutMs: 300_000 });
const jsMs = now() - t;
if (js.kind !== 'done' || js.matchCount !== ourLines) throw new Error(`JS search found ${js.matchCount}, rg ${ourLines}`);

// 16 × sleep SLEEP_S at parallelism 4.
const sleepers = Array.from({ length: 16 }, (_, i) => criterion(`ISC-${i + 1}`, { type: 'CLI', command: `sleep ${SLEEP_S}` }));
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-bench-verify-cli-'));
t = now();
const set = await verifyCriteria(sleepers, { workspaceRoot: workspace }, { parallelism: 4, timeoutMs: 30_000 });
const parallelWall = (now() - t) / 1000;
if (set.counts.PASS !== 16) throw new Error(`expected 16 passes, got ${JSON.stringify(set.counts)}`);

fs.rmSync(tree, { recursive: true, force: true });
fs.rmSync(workspace, { recursive: true, force: true });
const ratio = median(ourTimes) / median(rgTimes);
console.log(`GREP over ${written} files (+500 ignored): verifier ${round(median(ourTimes))} ms vs plain rg ${round(median(rgTimes))} ms (median of ${ROUNDS}); JS fallback ${round(jsMs)} ms; ${ourLines} matching lines`);
const ideal = 4 * SLEEP_S;
console.log(`16 × sleep ${SLEEP_S} at parallelism 4: ${round(parallelWall)} s (ideal ${ideal} s)`);
console.log(
  JSON.stringify({
    grep_files: written,
    grep_matches: ourLines,
    grep_ours_ms: round(median(ourTimes)),
    grep_rg_ms: round(median(rgTimes)),
    grep_ratio: round(ratio),
    grep_js_fallback_ms: round(jsMs),
    ripgrep: rg,
    parallel_wall_s: round(parallelWall),
    parallel_ideal_s: ideal,
    parallel_ratio: round(parallelWall / ideal),
  }),
);
