// Loop mode at scale (issue 18): 100 artifacts (pages that all fail their criteria at first),
// each worked by a sub-run of the real Algorithm (composeRun, the durable store, the GREP
// verifier) whose specialist is the scripted provider (a test tool, labelled scripted) with a
// fixed delay standing in for a model's time; the validator answers at once. Run at 1 agent
// and at 4: wall time against the ideal (serial / 4), and, per acknowledged artifact result,
// the store commit's time and the heap, first against last (flat means the cost does not grow
// with the results already kept). The machine may be shared: the load average is printed.
// Last line: one JSON object with the figures of the 4-agent run.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { knob } from './harness/smoke.mjs';
import { yamlData } from '../build/yaml-data.mjs';

// A full collection before each heap reading, so the figures are live memory, not garbage.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const ARTIFACTS = knob('IDEAL_STATE_BENCH_ARTIFACTS', 100, 6);
// 2 s: a specialist's turn with a real model (a tool call after reading the file) takes seconds.
// Shorter delays are reported in docs/loop.md: below about 1 s the loop's own work on the one JS
// thread (about 60 ms per artifact) and its first verification of every file, which four agents
// do not divide, weigh more than the waiting they do divide.
const DELAY_MS = knob('IDEAL_STATE_BENCH_DELAY_MS', 2000, 20);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const outfile = path.join(root, 'out', 'bench', 'loop-lib.js');
await esbuild.build({ entryPoints: [path.join(root, 'bench', 'loop-lib.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, loader: { '.yaml': 'text' }, plugins: [yamlData], logLevel: 'warning' });
const require = createRequire(import.meta.url);
const lib = require(outfile);
// The store's durable commit ends in a synchronous fdatasync on this (the only JS) thread, which
// no agent's work overlaps: timing it shows how much of each artifact is serial by design.
const nodeFs = require('node:fs');
const fdatasync = nodeFs.fdatasyncSync;
let syncMs = 0;
let syncs = 0;
nodeFs.fdatasyncSync = (fd) => {
  const t = performance.now();
  try {
    return fdatasync(fd);
  } finally {
    syncMs += performance.now() - t;
    syncs++;
  }
};

// GREP in JS starts a worker thread per search (a V8 isolate: tens of ms of CPU each); the
// editor's GREP uses VS Code's ripgrep. IDEAL_STATE_BENCH_RG=PATH names one; else rg on PATH,
// else the copy in the test VS Code (.vscode-test), else the JS search (said on the first line).
function findVsCodeRipgrep() {
  const base = path.join(root, '.vscode-test');
  const stack = [base];
  while (stack.length > 0) {
    const dir = stack.pop();
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.name === 'rg' && p.includes(`${process.platform}-${process.arch === 'x64' ? 'x64' : process.arch}`) && !e.isDirectory()) return p;
      if (e.isDirectory() || e.isSymbolicLink()) if (p.split(path.sep).length - base.split(path.sep).length < 12) stack.push(p);
    }
  }
  return undefined;
}
const onPath = (process.env.PATH ?? '').split(path.delimiter).some((d) => fs.existsSync(path.join(d, 'rg')));
const ripgrep = process.env.IDEAL_STATE_BENCH_RG || (onPath ? undefined : findVsCodeRipgrep());

const IDS = ['ISC-LOOP-001', 'ISC-LOOP-002', 'ISC-LOOP-003', 'ISC-A-LOOP-001'];
const definition = lib.IscDefinition.parse({
  artifactType: 'bench.page',
  version: '1.0.0',
  description: 'A page the loop bench works on.',
  minCriteria: 3,
  scaleTier: 'SIMPLE',
  idealCriteria: [
    { id: IDS[0], text: 'Page holds the done marker line', verify: { type: 'GREP', pattern: '^done$' } },
    { id: IDS[1], text: 'Page heading names the page ${name}', verify: { type: 'GREP', pattern: '^# ${name}$', glob: '${file}' } },
    { id: IDS[2], text: 'Page ends with the footer marker line', verify: { type: 'GREP', pattern: '^footer$' } },
  ],
  antiCriteria: [{ id: IDS[3], text: 'No placeholder TODO text remains on the page', verify: { type: 'GREP', pattern: 'TODO', expect: 'absent' } }],
});

function steps(file) {
  const name = path.posix.basename(file, '.md');
  const drafts = [
    { id: IDS[0], text: 'Page holds the done marker line', source: 'EXPLICIT' },
    { id: IDS[1], text: `Page heading names the page ${name}`, source: 'EXPLICIT' },
    { id: IDS[2], text: 'Page ends with the footer marker line', source: 'EXPLICIT' },
    { id: IDS[3], text: 'No placeholder TODO text remains on the page', source: 'EXPLICIT', anti: true },
  ];
  const methods = [{ type: 'GREP', pattern: '^done$', glob: file }, { type: 'GREP', pattern: `^# ${name}$`, glob: file }, { type: 'GREP', pattern: '^footer$', glob: file }, { type: 'GREP', pattern: 'TODO', glob: file, expect: 'absent' }];
  return [
    { object: { criteria: drafts, decisions: [] } },
    { object: { criteria: drafts } },
    { object: { packets: [{ title: `Fix ${file}`, criterionIds: IDS }] } },
    { object: { methods: IDS.map((criterionId, i) => ({ criterionId, verify: methods[i] })) } },
    { toolCalls: [{ name: 'create_file', arguments: { path: file, text: `# ${name}\n\ndone\n\nfooter\n` } }], delayMs: DELAY_MS },
    { text: JSON.stringify({ summary: `Rewrote ${file}`, evidence: [`${file} written`] }) },
    ...IDS.map(() => ({ object: { outcome: 'PASS', evidence: 'holds' } })),
  ];
}

const config = lib.LlmConfig.parse({ version: 1, providers: [{ id: 'scripted', kind: 'scripted', script: 'bench-loop.yaml' }], models: [{ id: 'bench', provider: 'scripted', model: 'bench' }], routing: { default: 'bench' } });
const routerOf = (model) => new lib.ModelRouter({ config, slots: new Map([['bench', { ok: true, model }]]), source: 'config' });

async function oneLoop(agents) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-bench-loop-'));
  const workspace = path.join(dir, 'ws');
  fs.mkdirSync(path.join(workspace, 'docs'), { recursive: true });
  for (let i = 0; i < ARTIFACTS; i++) {
    const name = `page-${String(i + 1).padStart(3, '0')}`;
    fs.writeFileSync(path.join(workspace, 'docs', `${name}.md`), `# ${name}\n\nTODO write me\n`);
  }
  const store = await lib.Store.open({ file: path.join(dir, 'db.sqlite') });
  // Each acknowledged result is one commit of its row: timed whole, and without its fdatasync
  // (the disk's share, which a shared machine makes noisy) to show our own cost stays flat.
  const ownMs = [];
  const save = store.loops.saveArtifacts.bind(store.loops);
  store.loops.saveArtifacts = (...rows) => {
    const sync0 = syncMs;
    const t = performance.now();
    save(...rows);
    ownMs.push(performance.now() - t - (syncMs - sync0));
  };
  const commits = [];
  const heap = [];
  let verifiedAt = 0;
  try {
    const engine = new lib.LoopEngine({
      run: {
        files: new lib.NodeWorkspace(workspace),
        store,
        models: routerOf(new lib.ScriptedModel('bench-loop.yaml', lib.Script.parse({ steps: [{ text: 'unused' }] }))),
        effort: lib.shippedEffortTable(),
        approver: lib.denyAll,
        trusted: true,
        autoApproveEdits: true,
        readOverride: async () => undefined,
        learning: false,
        ...(ripgrep ? { verify: { ripgrepPath: ripgrep } } : {}),
      },
      definition,
      modelsFor: (file) => routerOf(new lib.ScriptedModel('bench-loop.yaml', lib.Script.parse({ name: 'bench-loop', steps: steps(file) }))),
      onCommitMs: (ms, n) => {
        commits.push(ms);
        // The first ARTIFACTS results are the initial verification (the same at 1 and 4 agents: the level's parallel verifiers).
        if (n === ARTIFACTS) verifiedAt = performance.now();
        // Live heap early in the work (5 results acknowledged) and at the last result.
        if (n === ARTIFACTS + 5 || n === 2 * ARTIFACTS) {
          gc();
          heap.push(process.memoryUsage().heapUsed / 2 ** 20);
        }
      },
    });
    gc();
    syncMs = 0;
    syncs = 0;
    const cpu0 = process.cpuUsage();
    const began = performance.now();
    const result = await engine.start({ glob: 'docs/*.md', isc: 'bench.page', agents, effort: 'STANDARD', maxIterations: 1 });
    const wall = (performance.now() - began) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    if (result.state !== 'COMPLETE') throw new Error(`the loop ended ${result.state}: ${result.loop.reason}`);
    // Every artifact's outcome is in the store and in the loop's PRD, or the figures mean nothing.
    const rows = store.loops.artifactsOf(result.loop.id);
    const criteria = result.loop.criterionIds;
    const unpassed = rows.filter((a) => a.status !== 'PASSING' || criteria.some((id) => a.outcomes[id] !== 'PASS'));
    if (rows.length !== ARTIFACTS || unpassed.length > 0) throw new Error(`the store has ${rows.length} artifacts, ${unpassed.length} not passing every criterion`);
    const prd = fs.readFileSync(path.join(workspace, result.loop.prdPath), 'utf8');
    const prdRows = prd.split('\n').filter((line) => /^\| docs\/page-\d+\.md \| PASSING \|/.test(line) && !/FAIL|UNKNOWN|PARTIAL/.test(line));
    if (prdRows.length !== ARTIFACTS) throw new Error(`the loop PRD ${result.loop.prdPath} shows ${prdRows.length} of ${ARTIFACTS} artifacts passing every criterion`);
    // The first acknowledged results are the 100 initial verifications; the worked ones follow.
    const worked = commits.slice(ARTIFACTS);
    // Claims and acknowledgements alike (each is one row's commit), the initial verification's left out.
    const own = ownMs.slice(ARTIFACTS);
    // The median of the first and of the last tenth: a commit ends in fdatasync, and one slow disk flush is not a trend.
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const decile = Math.max(1, Math.floor(worked.length / 10));
    return { wall, verify: (verifiedAt - began) / 1000, cpuPerArtifact: cpuMs / ARTIFACTS, syncPerArtifact: syncMs / ARTIFACTS, syncsPerArtifact: syncs / ARTIFACTS, commitFirst: median(worked.slice(0, decile)), commitLast: median(worked.slice(-decile)), ownFirst: median(own.slice(0, 2 * decile)), ownLast: median(own.slice(-2 * decile)), heapFirst: heap[0], heapLast: heap[heap.length - 1] };
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const round = (x, d = 2) => Number(x.toFixed(d));
console.log(`loop bench: ${ARTIFACTS} artifacts, specialist delay ${DELAY_MS} ms, GREP by ${ripgrep ?? 'rg on PATH, else the JS search'}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}, ${os.cpus().length} CPUs`);
const one = await oneLoop(1);
console.log(`1 agent:  wall ${one.wall.toFixed(2)} s (initial verification ${one.verify.toFixed(2)} s)  commit ${one.commitFirst.toFixed(2)} → ${one.commitLast.toFixed(2)} ms (without fdatasync ${one.ownFirst.toFixed(3)} → ${one.ownLast.toFixed(3)} ms)  heap ${one.heapFirst.toFixed(1)} → ${one.heapLast.toFixed(1)} MB`);
const four = await oneLoop(4);
const ideal = one.wall / 4;
console.log(`4 agents: wall ${four.wall.toFixed(2)} s (initial verification ${four.verify.toFixed(2)} s)  ideal ${ideal.toFixed(2)} s  ratio ${(four.wall / ideal).toFixed(3)}  commit ${four.commitFirst.toFixed(2)} → ${four.commitLast.toFixed(2)} ms (without fdatasync ${four.ownFirst.toFixed(3)} → ${four.ownLast.toFixed(3)} ms)  heap ${four.heapFirst.toFixed(1)} → ${four.heapLast.toFixed(1)} MB`);
console.log(`per artifact at 1 agent: ${((one.wall * 1000) / ARTIFACTS).toFixed(0)} ms wall, of which ${DELAY_MS} ms the specialist's stand-in delay; this process's CPU ${one.cpuPerArtifact.toFixed(0)} ms and fdatasync ${one.syncPerArtifact.toFixed(0)} ms (${one.syncsPerArtifact.toFixed(0)} durable commits) per artifact, all on the one JS thread`);
// Four agents overlap only the waiting: the thread's own work per artifact (CPU + fdatasync) bounds the wall time from below.
const serialBound = (ARTIFACTS * (four.cpuPerArtifact + four.syncPerArtifact)) / 1000;
console.log(`4 agents: this thread's work ${serialBound.toFixed(2)} s of the ${four.wall.toFixed(2)} s wall (the lower bound whatever the agent count); load average now ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(
  JSON.stringify({
    artifacts: ARTIFACTS,
    agents: 4,
    delay_ms: DELAY_MS,
    wall_s: round(four.wall),
    ideal_s: round(ideal),
    ratio: round(four.wall / ideal, 3),
    wall_s_1_agent: round(one.wall),
    verify_s: round(four.verify),
    work_ratio: round((four.wall - four.verify) / ((one.wall - one.verify) / 4), 3),
    commit_ms_first: round(four.commitFirst, 3),
    commit_ms_last: round(four.commitLast, 3),
    commit_cpu_ms_first: round(four.ownFirst, 3),
    commit_cpu_ms_last: round(four.ownLast, 3),
    heap_mb_first: round(four.heapFirst, 1),
    heap_mb_last: round(four.heapLast, 1),
    cpu_ms_per_artifact: round(four.cpuPerArtifact, 1),
    fsync_ms_per_artifact: round(four.syncPerArtifact, 1),
    load_average: round(os.loadavg()[0], 2),
  }),
);
