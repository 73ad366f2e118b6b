// The floor under any cold stop hook written in Node (bench/gate.mjs, row `floor`): a fresh Node
// process that reads its list of checks and runs them 4 at a time, as the gate does, with nothing
// else: no PRD, no lock, no answer, no record. What a gate costs beyond this is its own.
// Usage: node gate-floor.cjs JOBS.json  (in the workspace); exits 0 when every check passed, else 1
// and names the first that did not.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');

const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const PARALLEL = 4;
let next = 0;
let running = 0;
let failed;

function settle(job, ok) {
  if (!ok && failed === undefined) failed = job;
}

function start() {
  while (running < PARALLEL && next < jobs.length) {
    const job = jobs[next++];
    if (job.kind === 'read') {
      let text = '';
      try {
        text = fs.readFileSync(job.path, 'utf8');
      } catch {
        text = '';
      }
      settle(job, text.includes(job.contains));
      continue;
    }
    running++;
    const child = job.kind === 'command' ? spawn('/bin/sh', ['-c', job.command], { stdio: 'ignore' }) : spawn(job.rg, job.args, { stdio: 'ignore' });
    child.on('error', () => settle(job, false));
    child.on('close', (code) => {
      settle(job, code === 0);
      running--;
      start();
    });
  }
}

process.on('exit', () => {
  if (failed !== undefined) {
    process.stderr.write(`gate-floor: a check did not pass: ${JSON.stringify(failed)}\n`);
    process.exitCode = 1;
  }
});
start();
