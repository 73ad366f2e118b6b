// What an agent host pays at each stop (issue 26), in one run so the ratios hold on a busy
// machine: on a workspace whose PRD has 10 criteria (4 Grep, 3 Read, 3 `node -e` commands),
// ROUNDS rounds, each timing in turn
//   - `node -e 0` (a process start),
//   - the same 10 checks as plain commands, 4 at a time (`xargs -P4`: rg, grep, node -e),
//   - the floor under any cold hook in Node: a fresh Node process running the same checks 4 at a
//     time and nothing else (bench/harness/gate-floor.cjs); gate, verify and MCP verify over it
//     say what each costs beyond its checks and a Node start,
//   - `ideal-state gate` with a Claude Code Stop payload on stdin,
//   - `ideal-state verify --json` (a cold process, as CI runs it),
//   - `ideal-state_verify` over MCP on a warm `ideal-state mcp` server (failing if its checks do not
//     start from its process host, dist/process-host.cjs),
// each as p50 and as a ratio to the plain checks' p50. Where NODE_EXTRA_CA_CERTS is set (every Node
// start then parses that file), `node -e 0`, the plain checks, the gate and verify once more without
// it in each round (`without_extra_ca`). Also the gate's peak RSS (GNU time) against
// `node -e 0`'s, and the JavaScript the gate loads: every module file and its bytes (module hooks,
// bench/harness/loaded-register.mjs), with a check that no model SDK nor the model catalogue is
// among them. Last, one GREP criterion over a generated tree of SEARCH_FILES small files: the
// built-in search (`ideal-state verify` with no ripgrep to find) against plain `rg` on the same
// tree, same matches. Every tree is generated in a temp folder and removed; nothing is committed.
// The snapshot the gate and `verify` run their checks in (src/app/gate/snapshot.ts): its cost per
// 1,000 source files and the gate against a plain `verify`, each against BUDGET (docs/agents.md);
// `verify --in-place` beside `verify` says what the snapshot costs a cold verify end to end.
// Last line: one JSON object with the figures.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as esbuild from 'esbuild';
import { floorJobs, makeGateWorkspace, makeSamplesTree, makeSearchTree, plainChecks, PRD_FILE } from './harness/gate-fixture.mjs';
import { knob, smoke } from './harness/smoke.mjs';
import { pathWithout } from '../test/harness/hide-program.mjs';
import { yamlData } from '../build/yaml-data.mjs';

const ROUNDS = knob('IDEAL_STATE_BENCH_GATE_ROUNDS', 20, 1);
const RSS_SAMPLES = smoke ? 1 : 3;
const SOURCE_FILES = knob('IDEAL_STATE_BENCH_GATE_FILES', 1000, 200);
const SEARCH_FILES = knob('IDEAL_STATE_BENCH_SEARCH_FILES', 100_000, 2000);
const SEARCH_ROUNDS = knob('IDEAL_STATE_BENCH_SEARCH_ROUNDS', 3, 1);
const PROBES = knob('IDEAL_STATE_BENCH_GATE_PROBES', 5, 1);
const SAMPLES_ROUNDS = knob('IDEAL_STATE_BENCH_SAMPLES_ROUNDS', 5, 1);
const MCP_IDLE_MS = smoke ? 0 : 2500;
// The memory of the process a spawn is timed in for the editor's case (the integration tests' extension host held 289 MB).
const EXTHOST_MB = knob('IDEAL_STATE_BENCH_EXTHOST_MB', 290, 20);
const TARGETS = { gate_ratio: 2.0, verify_ratio: 2.0, mcp_ratio: 1.15, gate_peak_rss_mb: 80, search_ratio: 3 };
// The snapshot's budget (docs/agents.md, "What the gate verifies: a snapshot"): what the gate pays
// to verify a copy of the source instead of the live tree, the copy made, the live source walked
// again after the checks and the copy removed (its process host starts meanwhile), per 1,000
// source files; and the gate against a plain `verify` in the same rounds (both verify a snapshot).
const BUDGET = { snapshot_ms_per_1000_files: 200, gate_over_verify_ratio: 1.35 };

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
// The command line as it ships (`esbuild.mjs --production`, minified), laid out as in the
// extension: dist/ beside package.json and isc-definitions/, sql-wasm.wasm in dist/.
const shipped = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-bench-cli-'));
{
  const built = spawnSync(process.execPath, ['esbuild.mjs', '--production', '--cli-out', path.join(shipped, 'dist')], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(1);
  fs.copyFileSync(path.join(root, 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm'), path.join(shipped, 'dist', 'sql-wasm.wasm'));
  fs.cpSync(path.join(root, 'isc-definitions'), path.join(shipped, 'isc-definitions'), { recursive: true });
  fs.copyFileSync(path.join(root, 'package.json'), path.join(shipped, 'package.json'));
}
const cli = path.join(shipped, 'dist', 'cli.js');

/** ripgrep: IDEAL_STATE_BENCH_RG, else rg on PATH, else the copy in the test VS Code (.vscode-test), as bench/verify.mjs. */
function findRg() {
  if (process.env.IDEAL_STATE_BENCH_RG) return process.env.IDEAL_STATE_BENCH_RG;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir && fs.existsSync(path.join(dir, 'rg'))) return path.join(dir, 'rg');
  const arch = process.arch === 'x64' ? 'x64' : process.arch;
  const vscode = path.join(root, '.vscode-test', 'vscode', 'node_modules', 'code-server', 'lib', 'vscode', 'node_modules', '@vscode');
  return [path.join(vscode, 'ripgrep-universal', 'bin', `${process.platform}-${arch}`, 'rg'), path.join(vscode, 'ripgrep', 'bin', 'rg')].find((f) => fs.existsSync(f));
}
const rg = findRg();
if (!rg) {
  console.error('no ripgrep: put rg on PATH, set IDEAL_STATE_BENCH_RG, or run node test/harness/setup.mjs (VS Code ships one)');
  process.exit(1);
}
// Every process sees the same rg first on PATH: the gate's Grep uses it as the plain checks do.
// The lean gate and verify keep V8's code cache in a folder of this run's own (src/cli/start/code-cache.ts):
// the first run makes it, as the first stop after an install or an update does.
// The gate's records (its block counter, the pending reports) go to a state folder of this run's
// own, never the user's: a bench must not change what the user's own gate decides.
const codeCache = path.join(shipped, 'cache');
const stateDir = path.join(shipped, 'state');
const env = { ...process.env, IDEAL_STATE_CACHE_DIR: codeCache, IDEAL_STATE_STATE_DIR: stateDir, PATH: `${path.dirname(rg)}${path.delimiter}${process.env.PATH ?? ''}` };
// The search's other side: a PATH with no rg at all, so `ideal-state verify` uses its built-in
// search. Only rg is hidden: node (the criteria's `node -e`), sh and git stay, wherever rg lives.
const noRgEnv = { ...env, PATH: pathWithout('rg', path.join(shipped, 'no-rg-bin'), process.env.PATH) };

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-bench-gate-'));
const workspace = makeGateWorkspace(path.join(tmp, 'ws'), SOURCE_FILES);
const store = path.join(tmp, 'store', 'ideal-state.sqlite');
const prd = path.join(workspace, PRD_FILE);
const payload = JSON.stringify({ session_id: 'bench-gate', transcript_path: path.join(tmp, 'transcript.jsonl'), cwd: workspace, permission_mode: 'default', hook_event_name: 'Stop', stop_hook_active: false });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x, d = 2) => (x === null || x === undefined ? null : Number(x.toFixed(d)));

/** Wall time of one process from spawn to exit; its stdout, and a failure unless it exits `expect`. */
function timed(command, args, { input, cwd = workspace, environment = env, expect = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd, env: environment, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (expect !== undefined && code !== expect) reject(new Error(`${path.basename(command)} ${args.join(' ').slice(0, 120)} exited ${code}: ${err.slice(0, 800)}`));
      else resolve({ ms, out, err, code });
    });
    child.stdin.end(input ?? '');
  });
}

const checksFile = path.join(tmp, 'checks.txt');
fs.writeFileSync(checksFile, `${plainChecks(rg).join('\n')}\n`);
const floorFile = path.join(tmp, 'floor.json');
fs.writeFileSync(floorFile, JSON.stringify(floorJobs(rg)));
const floorScript = path.join(root, 'bench', 'harness', 'gate-floor.cjs');
const runs = {
  node: (environment = env) => timed(process.execPath, ['-e', '0'], { environment }),
  plain: (environment = env) => timed('sh', ['-c', `xargs -P 4 -d '\\n' -I CHECK sh -c CHECK < "$1"`, 'sh', checksFile], { environment }),
  // The least a cold hook in Node could cost: Node's start and the same checks, 4 at a time, nothing else.
  floor: (environment = env) => timed(process.execPath, [floorScript, floorFile], { environment }),
  gate: async (environment = env) => {
    const r = await timed(process.execPath, [cli, 'gate', '--store', store], { input: payload, environment });
    // Every criterion passes: Claude Code is answered with nothing that blocks the stop.
    if (/"decision":"block"/.test(r.out)) throw new Error(`the gate blocked: ${r.out}`);
    return r;
  },
  // The same gate with no code cache: its first stop after an install or an update.
  gate_uncached: async () => {
    const r = await timed(process.execPath, [cli, 'gate', '--store', store], { input: payload, environment: { ...env, IDEAL_STATE_CODE_CACHE: '0' } });
    if (/"decision":"block"/.test(r.out)) throw new Error(`the gate blocked: ${r.out}`);
    return r;
  },
  // The same gate on a machine with no ripgrep (a plain CI box, a fresh machine): its Greps use the
  // built-in search, whose worker threads the four Greps share (the plain checks keep their rg).
  gate_no_ripgrep: async () => {
    const r = await timed(process.execPath, [cli, 'gate', '--store', store], { input: payload, environment: noRgEnv });
    if (/"decision":"block"/.test(r.out)) throw new Error(`the gate blocked: ${r.out}`);
    return r;
  },
  verify: async (environment = env) => {
    const r = await timed(process.execPath, [cli, 'verify', prd, '--json', '--workspace', workspace, '--store', store], { environment });
    const json = JSON.parse(r.out);
    if (!json.passed || json.counts?.PASS !== 10) throw new Error(`verify --json: ${JSON.stringify(json.counts)}`);
    return r;
  },
  // The same verification in the workspace itself: what the snapshot costs a cold `verify`, end to end.
  verify_in_place: async () => {
    const r = await timed(process.execPath, [cli, 'verify', prd, '--json', '--in-place', '--workspace', workspace, '--store', store]);
    const json = JSON.parse(r.out);
    if (!json.passed || json.counts?.PASS !== 10) throw new Error(`verify --json --in-place: ${JSON.stringify(json.counts)}`);
    return r;
  },
};

// NODE_EXTRA_CA_CERTS makes every Node process read and parse that bundle of certificates as it
// starts (Node 20: some 70 ms on a 2-core machine), which the three `node -e` checks pay as the
// gate does. Where it is set, the same four runs again without it, so both figures are known.
const extraCa = Boolean(process.env.NODE_EXTRA_CA_CERTS);
if (extraCa) {
  const bare = { ...env };
  delete bare.NODE_EXTRA_CA_CERTS;
  const of = (name) => () => runs[name](bare);
  Object.assign(runs, { node_no_extra_ca: of('node'), plain_no_extra_ca: of('plain'), floor_no_extra_ca: of('floor'), gate_no_extra_ca: of('gate'), verify_no_extra_ca: of('verify') });
}

// The MCP server, started once and warmed by one call; each call is then timed alone.
const mcp = new Client({ name: 'ideal-state-bench', version: '1.0.0' });
const mcpTransport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--workspace', workspace, '--store', store], cwd: workspace, env, stderr: 'ignore' });
await mcp.connect(mcpTransport);
/** Whether the server starts its checks from its process host (dist/process-host.cjs): a child of it running that file (Linux's /proc; elsewhere null). */
function mcpProcessHost() {
  const children = `/proc/${mcpTransport.pid}/task/${mcpTransport.pid}/children`;
  if (!fs.existsSync(children)) return null;
  return fs
    .readFileSync(children, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .some((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('process-host.cjs');
      } catch {
        return false;
      }
    });
}
runs.mcp = async () => {
  const started = performance.now();
  const result = await mcp.callTool({ name: 'ideal-state_verify', arguments: { prd: PRD_FILE } });
  const ms = performance.now() - started;
  const answer = JSON.parse(result.content?.[0]?.text ?? '{}');
  if (result.isError || answer.allCriticalPass !== true) throw new Error(`ideal-state_verify: ${JSON.stringify(result).slice(0, 800)}`);
  // The server folds the pending reports into the store once idle (src/mcp/fold-idle.ts, 1.5 s):
  // it is given that pause, as between an agent's turns, so its fold never lands in another timing.
  await new Promise((resolve) => setTimeout(resolve, MCP_IDLE_MS));
  return { ms };
};

const names = Object.keys(runs);
// Each once to warm the page cache, then ROUNDS rounds, every command in turn in each round.
for (const name of names) await runs[name]();
const samples = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < ROUNDS; r++) for (const name of names) samples[name].push((await runs[name]()).ms);
const mcpHost = mcpProcessHost();
await mcp.close();
const p50 = Object.fromEntries(names.map((n) => [n, median(samples[n])]));

/** Peak resident set (MB) of one process, from GNU time; null where there is no /usr/bin/time. */
function peakRssMb(args, input) {
  if (!fs.existsSync('/usr/bin/time')) return null;
  const r = spawnSync('/usr/bin/time', ['-f', '%M', ...args], { cwd: workspace, env, input, encoding: 'utf8' });
  const kb = Number(r.stderr.trim().split('\n').at(-1));
  return Number.isFinite(kb) ? kb / 1024 : null;
}
const gateRss = median(Array.from({ length: RSS_SAMPLES }, () => peakRssMb([process.execPath, cli, 'gate', '--store', store], payload)));
const nodeRss = median(Array.from({ length: RSS_SAMPLES }, () => peakRssMb([process.execPath, '-e', '0'])));

// What the gate loads: one more gate run with the module hooks logging every file.
const loadedLog = path.join(tmp, 'loaded.txt');
await timed(process.execPath, ['--import', path.join(root, 'bench', 'harness', 'loaded-register.mjs'), cli, 'gate', '--store', store], { input: payload, environment: { ...env, IDEAL_STATE_LOADED_OUT: loadedLog } });
/** The JavaScript files a logged run loaded (relative to the shipped layout), and whether it compiled WebAssembly. */
const readLoaded = (log) => {
  const lines = fs.readFileSync(log, 'utf8').trim().split('\n').map((line) => line.split('\t'));
  return { files: lines.filter(([url]) => url !== 'wasm').map(([url, bytes]) => ({ file: path.relative(shipped, new URL(url).pathname), bytes: Number(bytes) })), wasm: lines.some(([url]) => url === 'wasm') };
};
const gateLoadedLog = readLoaded(loadedLog);
const loaded = gateLoadedLog.files;
const loadedBytes = loaded.reduce((n, f) => n + f.bytes, 0);
// And what a cold `verify --json` loads; neither loads SQLite (sql.js): both leave a pending record.
const verifyLoadedLog = path.join(tmp, 'verify-loaded.txt');
await timed(process.execPath, ['--import', path.join(root, 'bench', 'harness', 'loaded-register.mjs'), cli, 'verify', prd, '--json', '--workspace', workspace, '--store', store], { environment: { ...env, IDEAL_STATE_LOADED_OUT: verifyLoadedLog } });
const verifyLoadedLog2 = readLoaded(verifyLoadedLog);
const verifyLoaded = verifyLoadedLog2.files;
const verifyLoadedBytes = verifyLoaded.reduce((n, f) => n + f.bytes, 0);
// SQLite (sql.js) is the command line's only WebAssembly: compiled means the store was opened.
const storeLoaded = { gate: gateLoadedLog.wasm, verify: verifyLoadedLog2.wasm };
// A model SDK or the catalogue shows by its own words in the code that was loaded.
const loadedText = loaded.map((f) => fs.readFileSync(path.join(shipped, f.file), 'utf8')).join('\n');
const sdkLoaded = ['@anthropic-ai/sdk', 'openai/', 'anthropic-version', 'OpenAI-Organization', 'claude-opus', 'gpt-5'].filter((marker) => loadedText.includes(marker));
const shippedBytes = fs.readdirSync(path.join(shipped, 'dist')).filter((f) => /^cli.*\.(m?js|cjs)$/.test(f)).reduce((n, f) => n + fs.statSync(path.join(shipped, 'dist', f)).size, 0);

// What one verification costs the store in a cold process (sql.js WASM load and compile, open,
// commit, close) against the pending record the gate now leaves, and the main thread's CPU per
// spawned check: bench/harness/gate-probe.cjs, PROBES fresh processes, medians.
const lib = path.join(root, 'out', 'bench', 'gate-lib.js');
await esbuild.build({ entryPoints: [path.join(root, 'bench', 'gate-lib.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: lib, loader: { '.yaml': 'text' }, plugins: [yamlData], logLevel: 'warning' });
const probeStore = path.join(tmp, 'probe', 'ideal-state.sqlite');
fs.mkdirSync(path.dirname(probeStore), { recursive: true });
const probes = [];
for (let i = 0; i < PROBES; i++) probes.push(JSON.parse((await timed(process.execPath, [path.join(root, 'bench', 'harness', 'gate-probe.cjs'), lib, prd, probeStore, smoke ? '2' : '10'])).out.trim().split('\n').at(-1)));
const probe = Object.fromEntries(Object.keys(probes[0]).map((k) => [k, median(probes.map((p) => p[k]))]));
// The editor's checks (src/vscode/processes-host.ts): how long starting one holds up the main thread of a
// process as large as an extension host, started there and through the process host (bench/harness/spawn-probe.cjs).
const spawnProbe = JSON.parse((await timed(process.execPath, [path.join(root, 'bench', 'harness', 'spawn-probe.cjs'), lib, tmp, path.join(shipped, 'dist', 'process-host.cjs'), String(EXTHOST_MB), smoke ? '3' : '15'])).out.trim().split('\n').at(-1));
// What the gate pays to verify a snapshot (src/app/gate/frozen.ts), timed inside one process: copying
// the bench workspace's source (ignored folders linked), the fingerprint of the live source it
// compares after the checks, and starting its process host through a double fork; and the copy of
// this repository itself (its own .gitignore: node_modules, dist, out and the test editor linked).
const snapshotLib = createRequire(import.meta.url)(lib);
const snapshotOf = async (folder) => {
  const taken = await snapshotLib.takeSnapshot(folder);
  if (!taken.ok) throw new Error(`the snapshot of ${folder}: ${taken.message}`);
  const started = performance.now();
  await taken.snapshot.dispose();
  return { ...taken.snapshot, removeMs: performance.now() - started, place: path.dirname(taken.snapshot.root) };
};
const snapshotSamples = [];
const fingerprintSamples = [];
const removeSamples = [];
const hostSamples = [];
let snapshotFiles = 0;
let snapshotPlace = '';
// Timed on a tree of 1,000 source files in either mode: at a smoke run's 200, the fixed costs
// (the temporary folder, the mount table) would be scaled up five times into the per-1,000 figure.
const snapshotTree = SOURCE_FILES === 1000 ? workspace : makeGateWorkspace(path.join(tmp, 'snapshot-ws'), 1000);
for (let i = 0; i < (smoke ? 2 : 7); i++) {
  const snap = await snapshotOf(snapshotTree);
  snapshotFiles = snap.copied;
  snapshotPlace = snap.place;
  snapshotSamples.push(snap.ms);
  removeSamples.push(snap.removeMs);
  const started = performance.now();
  await snapshotLib.fingerprint(snapshotTree);
  fingerprintSamples.push(performance.now() - started);
  const hostStarted = performance.now();
  const host = await snapshotLib.ProcessHost.startDetached(path.join(shipped, 'dist', 'process-host.cjs'), (s) => console.error(s));
  if (!host) throw new Error('the detached process host did not start');
  hostSamples.push(performance.now() - hostStarted);
  host.dispose();
}
const repoSnapshot = await snapshotOf(root);
// What guarding the linked folders adds (src/app/gate/linked-guard.ts), on this repository: every
// node_modules/.bin entry and what it resolves to, and the package of a locked `npx mocha`.
const guardSamples = [];
let guardEntries = 0;
for (let i = 0; i < (smoke ? 2 : 7); i++) {
  const started = performance.now();
  guardEntries = snapshotLib.guardLinked(fs.realpathSync(root), ['node_modules'], ['node_modules/.bin/mocha']).entries.size;
  guardSamples.push(performance.now() - started);
}
// The snapshot's cost per 1,000 source files: copy (its walk is the fingerprint before), the walk after, the removal.
const snapshotPer1000 = ((median(snapshotSamples) + median(fingerprintSamples) + median(removeSamples)) / Math.max(snapshotFiles, 1)) * 1000;
fs.rmSync(tmp, { recursive: true, force: true });

// The real-repository figure: a generated tree of microsoft/vscode-extension-samples' shape
// (about 1,200 files) and 12 criteria, `verify --json` with rg on PATH and with none.
const samplesTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-bench-samples-'));
const samplesPrd = makeSamplesTree(samplesTmp);
const samplesFiles = fs.readdirSync(samplesTmp, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
const samplesRuns = {
  rg: (environment) => timed(process.execPath, [cli, 'verify', samplesPrd, '--json', '--no-store'], { cwd: samplesTmp, environment }),
};
const samplesSamples = { rg: [], builtin: [] };
for (let r = -1; r < SAMPLES_ROUNDS; r++) {
  for (const [name, environment] of [['rg', env], ['builtin', noRgEnv]]) {
    const result = await samplesRuns.rg(environment);
    const json = JSON.parse(result.out);
    if (json.counts?.PASS !== 12) throw new Error(`the samples tree (${name}): ${JSON.stringify(json.counts)}`);
    const engines = json.results.filter((x) => /matching line/.test(x.evidence)).map((x) => (/\(JS search\)/.test(x.evidence) ? 'builtin' : 'rg'));
    if (engines.some((e) => e !== name)) throw new Error(`the samples tree: the ${name} run used ${engines.join(', ')}`);
    if (r >= 0) samplesSamples[name].push(result.ms);
  }
}
fs.rmSync(samplesTmp, { recursive: true, force: true });

// The search: one GREP criterion over SEARCH_FILES files, the built-in search against rg.
const searchTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-bench-search-'));
const MARKER = 'X-Trace-Marker';
const tree = path.join(searchTmp, 'tree');
let generatedMs = performance.now();
const expected = makeSearchTree(tree, SEARCH_FILES, MARKER);
generatedMs = performance.now() - generatedMs;
const searchPrd = path.join(searchTmp, 'PRD-search.md');
fs.writeFileSync(searchPrd, `---\nprd: true\nid: PRD-20261126-search\nstatus: IN_PROGRESS\neffort_level: STANDARD\n---\n\n# Search\n\n## Ideal State Criteria\n- [ ] ISC-1: The trace marker is written somewhere in the sources | Verify: Grep: ${MARKER}\n`);
const searchRuns = {
  rg: async () => {
    const r = await timed(rg, ['-n', '--no-require-git', MARKER, '.'], { cwd: tree });
    return { ms: r.ms, lines: r.out.split('\n').filter(Boolean).length };
  },
  builtin: async () => {
    const r = await timed(process.execPath, [cli, 'verify', searchPrd, '--json', '--workspace', tree, '--no-store'], { cwd: tree, environment: noRgEnv });
    const result = JSON.parse(r.out).results[0];
    const lines = Number(/^(\d+) matching line/.exec(result.evidence)?.[1]);
    if (result.outcome !== 'PASS' || /ripgrep/.test(result.evidence)) throw new Error(`the built-in search: ${result.outcome} ${result.evidence.split('\n')[0]}`);
    return { ms: r.ms, lines };
  },
};
for (const name of Object.keys(searchRuns)) await searchRuns[name]();
const searchSamples = { rg: [], builtin: [] };
const found = {};
for (let r = 0; r < SEARCH_ROUNDS; r++) {
  for (const name of Object.keys(searchRuns)) {
    const { ms, lines } = await searchRuns[name]();
    searchSamples[name].push(ms);
    found[name] = lines;
  }
}
fs.rmSync(searchTmp, { recursive: true, force: true });
fs.rmSync(shipped, { recursive: true, force: true });
if (found.rg !== expected || found.builtin !== expected) throw new Error(`matching lines: rg ${found.rg}, built-in ${found.builtin}, expected ${expected}`);
if (mcpHost === false) throw new Error('the MCP server starts its checks itself: dist/process-host.cjs is not beside the command line, or did not start');
if (sdkLoaded.length > 0) throw new Error(`the gate loaded model code: ${sdkLoaded.join(', ')} in ${loaded.map((f) => f.file).join(', ')}`);

const ratio = (name) => p50[name] / (name.endsWith('_no_extra_ca') ? p50.plain_no_extra_ca : p50.plain);
const nodeOf = (name) => (name.endsWith('_no_extra_ca') ? p50.node_no_extra_ca : p50.node);
const searchRatio = median(searchSamples.builtin) / median(searchSamples.rg);
const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`gate bench: ${ROUNDS} rounds, ${SOURCE_FILES} source files, ${os.cpus().length} CPUs, load average ${load}, Node ${process.version}, rg ${rg}`);
for (const name of names) console.log(`  ${name.padEnd(16)} p50 ${p50[name].toFixed(1).padStart(7)} ms  ×${ratio(name).toFixed(2)} the plain checks  ×${(p50[name] / nodeOf(name)).toFixed(2)} node -e 0`);
console.log(`  beyond the floor (Node's start and the same checks, nothing else): gate ×${(p50.gate / p50.floor).toFixed(2)}, verify ×${(p50.verify / p50.floor).toFixed(2)}, MCP verify ×${(p50.mcp / p50.floor).toFixed(2)}`);
console.log(`  gate peak RSS ${gateRss?.toFixed(1)} MB (node -e 0: ${nodeRss?.toFixed(1)} MB); JS loaded by the gate: ${loaded.length} files, ${(loadedBytes / 1024).toFixed(0)} KB of the command line's ${(shippedBytes / 1024).toFixed(0)} KB`);
console.log(`  JS loaded by verify --json: ${verifyLoaded.length} files, ${(verifyLoadedBytes / 1024).toFixed(0)} KB; SQLite (sql.js) loaded by the gate: ${storeLoaded.gate ? 'yes' : 'no'}, by verify: ${storeLoaded.verify ? 'yes' : 'no'}`);
console.log(`  store, one verification in a cold process (median of ${PROBES}): WASM load+compile ${probe.wasm_ms} ms, open ${probe.open_ms} ms, commit ${probe.commit_ms} ms, close ${probe.close_ms} ms; the pending record the gate writes instead ${probe.pending_ms} ms`);
console.log(`  main-thread CPU per spawned check ${probe.spawn_cpu_ms} ms (Node's bare spawn of /bin/true: ${probe.bare_spawn_cpu_ms} ms); the MCP server's checks start from its process host: ${mcpHost === null ? 'unknown here' : mcpHost ? 'yes' : 'no'}`);
console.log(`  starting a check holds up the main thread of a ${spawnProbe.held_mb} MB process (an extension host) ${spawnProbe.direct_ms} ms, through the process host ${spawnProbe.process_host_ms} ms (median of ${spawnProbe.spawns})`);
console.log(`  the gate's snapshot: ${snapshotFiles} files copied in ${median(snapshotSamples)} ms, the live source's fingerprint ${median(fingerprintSamples).toFixed(0)} ms, its process host started (double fork) in ${median(hostSamples).toFixed(0)} ms; this repository: ${repoSnapshot.copied} files copied, ${repoSnapshot.linked} entries linked, in ${repoSnapshot.ms} ms`);
const gateOverVerify = p50.gate / p50.verify;
const withinBudget = snapshotPer1000 <= BUDGET.snapshot_ms_per_1000_files && gateOverVerify <= BUDGET.gate_over_verify_ratio;
console.log(`  the snapshot's cost: ${snapshotPer1000.toFixed(0)} ms per 1,000 source files (copy ${median(snapshotSamples)}, walk after ${median(fingerprintSamples).toFixed(0)}, removal ${median(removeSamples).toFixed(0)} ms for ${snapshotFiles} files, in ${snapshotPlace}; budget ${BUDGET.snapshot_ms_per_1000_files}); verify ${p50.verify.toFixed(0)} ms against ${p50.verify_in_place.toFixed(0)} ms in place; the gate ×${gateOverVerify.toFixed(2)} a plain verify (budget ×${BUDGET.gate_over_verify_ratio}); guarding the linked folders ${median(guardSamples).toFixed(1)} ms (${guardEntries} entries): ${withinBudget ? 'within' : 'OVER'} budget`);
console.log(`  samples-shaped tree (${samplesFiles} files, 12 criteria): verify ${median(samplesSamples.rg).toFixed(0)} ms with rg, ${median(samplesSamples.builtin).toFixed(0)} ms without`);
console.log(`  search over ${SEARCH_FILES} files (generated in ${(generatedMs / 1000).toFixed(1)} s): built-in ${median(searchSamples.builtin).toFixed(0)} ms, rg ${median(searchSamples.rg).toFixed(0)} ms, ×${searchRatio.toFixed(2)}; ${expected} matching lines each`);
console.log(
  JSON.stringify({
    rounds: ROUNDS,
    source_files: SOURCE_FILES,
    node_version: process.version,
    node_ms_p50: round(p50.node, 1),
    plain_checks_ms_p50: round(p50.plain, 1),
    gate_ms_p50: round(p50.gate, 1),
    gate_uncached_ms_p50: round(p50.gate_uncached, 1),
    gate_no_ripgrep_ms_p50: round(p50.gate_no_ripgrep, 1),
    verify_ms_p50: round(p50.verify, 1),
    verify_in_place_ms_p50: round(p50.verify_in_place, 1),
    mcp_verify_ms_p50: round(p50.mcp, 1),
    floor_ms_p50: round(p50.floor, 1),
    node_ratio: round(ratio('node')),
    gate_ratio: round(ratio('gate')),
    gate_uncached_ratio: round(ratio('gate_uncached')),
    gate_no_ripgrep_ratio: round(ratio('gate_no_ripgrep')),
    verify_ratio: round(ratio('verify')),
    mcp_ratio: round(ratio('mcp')),
    floor_ratio: round(ratio('floor')),
    gate_over_floor: round(p50.gate / p50.floor),
    verify_over_floor: round(p50.verify / p50.floor),
    mcp_process_host: mcpHost,
    extra_ca_certs: extraCa,
    without_extra_ca: extraCa
      ? { node_ms_p50: round(p50.node_no_extra_ca, 1), plain_checks_ms_p50: round(p50.plain_no_extra_ca, 1), floor_ms_p50: round(p50.floor_no_extra_ca, 1), gate_ms_p50: round(p50.gate_no_extra_ca, 1), verify_ms_p50: round(p50.verify_no_extra_ca, 1), node_ratio: round(ratio('node_no_extra_ca')), floor_ratio: round(ratio('floor_no_extra_ca')), gate_ratio: round(ratio('gate_no_extra_ca')), verify_ratio: round(ratio('verify_no_extra_ca')) }
      : null,
    gate_peak_rss_mb: round(gateRss, 1),
    node_peak_rss_mb: round(nodeRss, 1),
    gate_loaded_files: loaded.length,
    gate_loaded_bytes: loadedBytes,
    cli_shipped_bytes: shippedBytes,
    gate_loaded: loaded,
    verify_loaded_files: verifyLoaded.length,
    verify_loaded_bytes: verifyLoadedBytes,
    gate_loads_sqlite: storeLoaded.gate,
    verify_loads_sqlite: storeLoaded.verify,
    store_wasm_ms: probe.wasm_ms,
    store_open_ms: probe.open_ms,
    store_commit_ms: probe.commit_ms,
    store_close_ms: probe.close_ms,
    store_pending_ms: probe.pending_ms,
    spawn_main_thread_cpu_ms: probe.spawn_cpu_ms,
    bare_spawn_cpu_ms: probe.bare_spawn_cpu_ms,
    extension_host_mb: spawnProbe.held_mb,
    extension_host_spawn_held_ms: spawnProbe.direct_ms,
    process_host_spawn_held_ms: spawnProbe.process_host_ms,
    snapshot_files: snapshotFiles,
    snapshot_ms_p50: round(median(snapshotSamples), 1),
    fingerprint_ms_p50: round(median(fingerprintSamples), 1),
    detached_host_start_ms_p50: round(median(hostSamples), 1),
    snapshot_place: snapshotPlace,
    snapshot_remove_ms_p50: round(median(removeSamples), 1),
    snapshot_ms_per_1000_files: round(snapshotPer1000, 1),
    linked_guard_ms_p50: round(median(guardSamples), 2),
    linked_guard_entries: guardEntries,
    gate_over_verify_ratio: round(gateOverVerify),
    gate_over_verify_ms: round(p50.gate - p50.verify, 1),
    verify_snapshot_ms: round(p50.verify - p50.verify_in_place, 1),
    budget: BUDGET,
    within_budget: withinBudget,
    repo_snapshot_files: repoSnapshot.copied,
    repo_snapshot_linked: repoSnapshot.linked,
    repo_snapshot_ms: repoSnapshot.ms,
    samples_files: samplesFiles,
    samples_verify_rg_ms_p50: round(median(samplesSamples.rg), 1),
    samples_verify_builtin_ms_p50: round(median(samplesSamples.builtin), 1),
    search_files: SEARCH_FILES,
    search_matches: expected,
    search_builtin_ms_p50: round(median(searchSamples.builtin), 1),
    search_rg_ms_p50: round(median(searchSamples.rg), 1),
    search_ratio: round(searchRatio),
    load_average: round(os.loadavg()[0]),
    cpus: os.cpus().length,
    targets: TARGETS,
  }),
);
