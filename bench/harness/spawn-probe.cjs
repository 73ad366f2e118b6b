// What starting a check's process holds up the main thread for, in a process as large as VS
// Code's extension host (bench/gate.mjs; src/vscode/processes-host.ts). Node's spawn forks, which
// copies the forking process's page tables, and waits until the child has started its program,
// all on the calling thread. This process first holds argv[4] MB of its own memory, touched (the
// extension host of the integration tests held 289 MB), then starts `sh -c true` argv[5] times
// through runCommand, and as many times through the process host (dist/process-host.cjs at
// argv[3], as the editor and the MCP server do), and prints as JSON the median time the call held
// the main thread (the call until it returned its promise) for each, and the memory it held.
const [lib, cwd, hostEntry, mbArg, spawnsArg] = process.argv.slice(2);
const { runCommand, ProcessHost } = require(lib);

const held = [];
for (let i = 0; i < Number(mbArg); i++) held.push(Buffer.alloc(1 << 20, i & 0xff));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function heldFor(run, spawns) {
  await run({ command: 'true', cwd, timeoutMs: 10_000 });
  const times = [];
  for (let i = 0; i < spawns; i++) {
    const started = performance.now();
    const done = run({ command: 'true', cwd, timeoutMs: 10_000 });
    times.push(performance.now() - started);
    const r = await done;
    if (r.kind !== 'exited' || r.exitCode !== 0) throw new Error(`sh -c true: ${JSON.stringify(r)}`);
  }
  return median(times);
}

(async () => {
  const spawns = Number(spawnsArg);
  const direct = await heldFor(runCommand, spawns);
  const host = ProcessHost.start(hostEntry, (s) => console.error(s));
  if (!host) throw new Error(`no process host at ${hostEntry}`);
  const viaHost = await heldFor((o) => host.runCommand(o), spawns);
  host.dispose();
  const anon = Number(/RssAnon:\s+(\d+)/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
  console.log(JSON.stringify({ held_mb: Math.round(anon), direct_ms: Number(direct.toFixed(2)), process_host_ms: Number(viaHost.toFixed(3)), spawns, kept: held.length }));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
