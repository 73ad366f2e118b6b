// One cold process, as the gate is: what one verification costs the store (bench/gate.mjs).
// Loads the bundled bench/gate-lib.ts given as argv[2], verifies nothing itself: it records a
// 10-criterion verification of the PRD at argv[3] in the store at argv[4] and prints, as JSON,
//   - wasm_ms: loading and compiling sql.js's WASM (with --liftoff-only, as a one-shot command compiles it);
//   - open_ms, commit_ms, close_ms: opening the store, the verification's commit, the close;
//   - pending_ms: the same verification left as a pending record (what the gate does now);
//   - spawn_cpu_ms: this process's CPU per check spawned through runCommand (`sh -c true`),
//     timed before sql.js loads, so no thread but the main one works; and bare_spawn_cpu_ms
//     for Node's own child_process.spawn of /bin/true with nothing around it.
const { setFlagsFromString } = require('node:v8');
setFlagsFromString('--liftoff-only');
const fs = require('node:fs');
const path = require('node:path');
const cp = require('node:child_process');
const [lib, prdFile, storeFile, spawnsArg] = process.argv.slice(2);
const { Store, loadSqlJs, recordVerification, recordVerificationLater, preparePrd, shippedEffortTable, runCommand } = require(lib);

(async () => {
  // The spawns first, before sql.js: V8 compiles a WASM module further on threads of its own, whose
  // CPU process.cpuUsage() counts too (on Node 24 it made each spawn look five times dearer).
  const spawns = Number(spawnsArg ?? 10);
  await runCommand({ command: 'true', cwd: path.dirname(storeFile), timeoutMs: 10_000 });
  let cpu = process.cpuUsage();
  for (let i = 0; i < spawns; i++) await runCommand({ command: 'true', cwd: path.dirname(storeFile), timeoutMs: 10_000 });
  let used = process.cpuUsage(cpu);
  const spawnCpu = (used.user + used.system) / 1000 / spawns;
  cpu = process.cpuUsage();
  for (let i = 0; i < spawns; i++) await new Promise((resolve) => cp.spawn('/bin/true', [], { stdio: 'ignore' }).on('close', resolve));
  used = process.cpuUsage(cpu);
  const bareCpu = (used.user + used.system) / 1000 / spawns;
  const table = shippedEffortTable();
  const text = fs.readFileSync(prdFile, 'utf8');
  const prd = preparePrd(text, { name: prdFile, effortTable: table });
  if (!prd.ok) throw new Error(`the probe's PRD: ${prd.summary}`);
  const results = prd.criteria.map((c) => ({ criterionId: c.id, outcome: 'PASS', evidence: `${c.id} seen`, durationMs: 3, locations: [] }));
  const set = { results, passed: true, summary: `${results.length} of ${results.length} criteria pass`, counts: { PASS: results.length, FAIL: 0, PARTIAL: 0, UNKNOWN: 0 }, coverage: {} };
  const input = { prdPath: '.ideal-state/prds/PRD.md', document: prd.document, text, criteria: prd.criteria, set, effortTable: table, effort: prd.level };
  const t = [performance.now()];
  await loadSqlJs();
  t.push(performance.now());
  const store = await Store.open({ file: storeFile });
  t.push(performance.now());
  const stored = recordVerification(store, input);
  if (!stored.stored) throw new Error(stored.reason);
  t.push(performance.now());
  store.close();
  t.push(performance.now());
  const pendingStore = path.join(path.dirname(storeFile), 'pending-only.sqlite');
  const p0 = performance.now();
  recordVerificationLater(pendingStore, input);
  const pendingMs = performance.now() - p0;
  fs.rmSync(`${pendingStore}.pending`, { recursive: true, force: true });

  const ms = (a, b) => Number((t[b] - t[a]).toFixed(2));
  console.log(JSON.stringify({ wasm_ms: ms(0, 1), open_ms: ms(1, 2), commit_ms: ms(2, 3), close_ms: ms(3, 4), pending_ms: Number(pendingMs.toFixed(2)), spawn_cpu_ms: Number(spawnCpu.toFixed(2)), bare_spawn_cpu_ms: Number(bareCpu.toFixed(2)) }));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
