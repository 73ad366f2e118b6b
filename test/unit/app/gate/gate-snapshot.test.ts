import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lockCriteria } from '../../../../src/app/gate/lock';
import { claudeStop, decision, runGate, stateDir } from '../../support/gate-lock-helpers';
import { REPO_ROOT } from '../../support/repo-root';

/**
 * The gate verifies one state of the work, not a live tree a process keeps changing while it
 * looks. Each test is an attack as an agent under the gate would leave it running: a detached
 * watcher, a module that looks at its ancestors, a loop that swaps the locked PRD. Every one ends
 * blocked. The attackers are real processes; the gate is the built command line as a host runs it.
 */

const PRD = '.ideal-state/prds/PRD-20261128-farewell.md';

function prdText(changelogCheck = 'Read: CHANGELOG.md'): string {
  return `---
prd: true
id: PRD-20261128-farewell
status: CRITERIA_DEFINED
effort_level: FAST
created: 2026-11-28
updated: 2026-11-28
---

# Farewell

## Ideal State Criteria

- [ ] ISC-FW-001: A changelog file at the top level records every release made | Verify: ${changelogCheck}
- [ ] ISC-FW-002: The farewell module prints its goodbye and exits without error | Verify: CLI: node src/farewell.js

## LOG
`;
}

/** A workspace whose farewell module works and whose changelog is missing: ISC-FW-001 fails honestly. */
function workspace(farewell = "console.log('goodbye');\n"): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-farewell-'));
  fs.mkdirSync(path.join(ws, '.ideal-state', 'prds'), { recursive: true });
  fs.mkdirSync(path.join(ws, 'src'));
  fs.writeFileSync(path.join(ws, PRD), prdText());
  fs.writeFileSync(path.join(ws, 'README.md'), '# farewell\n');
  fs.writeFileSync(path.join(ws, 'src', 'farewell.js'), farewell);
  fs.writeFileSync(path.join(ws, '.gitignore'), 'node_modules/\n');
  return ws;
}

/** A detached node process running `code`, ended (its group) after the test. */
const started: ChildProcess[] = [];
function attacker(code: string, cwd: string): ChildProcess {
  const child = spawn(process.execPath, ['-e', code], { cwd, detached: true, stdio: 'ignore' });
  child.unref();
  started.push(child);
  return child;
}

afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already ended.
    }
  }
});

/**
 * Whether a process's command line (Linux /proc) names `cli.js gate` for this workspace: the
 * attackers' own look (the workspace, as other gates may run on the machine).
 */
const GATE_LOOK = `
const fs = require('fs');
function gateRunning() {
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\\d+$/.test(pid) || Number(pid) === process.pid) continue;
    let cmd = '';
    try { cmd = fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' '); } catch { continue; }
    if (/cli\\.js gate/.test(cmd) && cmd.includes(process.cwd())) return true;
  }
  return false;
}`;

const linux = process.platform === 'linux';

describe('the gate verifies a snapshot of the workspace, not the live tree', function () {
  this.timeout(120_000);

  (linux ? it : it.skip)('a watcher that creates CHANGELOG.md only while a gate process exists: the stop stays blocked', async () => {
    const ws = workspace();
    const state = stateDir();
    attacker(`${GATE_LOOK}
const file = 'CHANGELOG.md';
let made = false;
setInterval(() => {
  const on = gateRunning();
  if (on && !made) { fs.writeFileSync(file, '# Changelog\\n'); made = true; }
  if (!on && made) { try { fs.unlinkSync(file); } catch {} made = false; }
}, 1);
fs.writeFileSync('.watching', '');`, ws);
    await waitFor(() => fs.existsSync(path.join(ws, '.watching')));
    fs.unlinkSync(path.join(ws, '.watching'));
    const run = await runGate(['--workspace', ws, '--yes', '--no-store', '--deadline', '60'], claudeStop(ws), { state });
    const d = decision(run);
    assert.equal(d.blocked, true, `the gate let the stop through: ${d.text}\n${run.err}`);
    assert.match(d.text, /ISC-FW-001|the workspace changed while the gate verified it/i);
    await waitFor(() => !fs.existsSync(path.join(ws, 'CHANGELOG.md')));
  });

  (linux ? it : it.skip)('every criterion passes, but a file is written while the gate verifies: blocked, and the LOG says so, never "let the stop through"', async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, 'CHANGELOG.md'), '# Changelog\n\n## 1.0.0\n- first release\n');
    const state = stateDir();
    attacker(`${GATE_LOOK}
let written = false;
setInterval(() => {
  if (!written && gateRunning()) { fs.writeFileSync('notes.txt', 'written while the gate verified\\n'); written = true; }
}, 1);
fs.writeFileSync('.watching', '');`, ws);
    await waitFor(() => fs.existsSync(path.join(ws, '.watching')));
    fs.unlinkSync(path.join(ws, '.watching'));
    const run = await runGate(['--workspace', ws, '--yes', '--no-store', '--deadline', '60'], claudeStop(ws), { state });
    const d = decision(run);
    assert.equal(d.blocked, true, `the gate let the stop through: ${d.text}\n${run.err}`);
    assert.match(d.text, /The workspace changed while the gate verified it: .*notes\.txt/);
    const log = fs.readFileSync(path.join(ws, PRD), 'utf8').split('## LOG')[1] ?? '';
    assert.match(log, /which blocked the stop \(1 of \d+\): the workspace changed while the gate verified it/, log);
    assert.doesNotMatch(log, /let the stop through/, log);
  });

  (linux ? it : it.skip)("a module that answers right only when an ancestor's command line names the gate: FAIL, as in a plain verify", async () => {
    // It exits 0 only when some ancestor is the gate, which a plain `verify` never is.
    const ws = workspace(`${GATE_LOOK.replace('function gateRunning', 'function unused')}
let pid = process.ppid;
let seen = false;
while (pid > 1) {
  let cmd = '';
  try { cmd = fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' '); } catch { break; }
  if (/cli\\.js gate/.test(cmd)) seen = true;
  const status = fs.readFileSync('/proc/' + pid + '/status', 'utf8');
  pid = Number(/PPid:\\s+(\\d+)/.exec(status)[1]);
}
if (!seen) { console.error('not the expected goodbye'); process.exit(1); }
console.log('goodbye');
`);
    fs.writeFileSync(path.join(ws, 'CHANGELOG.md'), '# Changelog\n');
    const state = stateDir();
    const run = await runGate(['--workspace', ws, '--yes', '--no-store', '--deadline', '60'], claudeStop(ws), { state });
    const d = decision(run);
    assert.equal(d.blocked, true, `the gate let the stop through: ${d.text}\n${run.err}`);
    assert.match(d.text, /ISC-FW-002 FAIL/);
  });

  (linux ? it : it.skip)('a loop that swaps the locked PRD with a weakened copy every 2 ms: every gate run is blocked', async () => {
    const ws = workspace();
    const state = stateDir();
    await lockCriteria(ws, { by: 'a person', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    // The weakened copy's ISC-FW-001 reads a file that is there: verified alone, it passes.
    fs.writeFileSync(path.join(ws, '.locked.md'), prdText());
    fs.writeFileSync(path.join(ws, '.weak.md'), prdText('Read: README.md'));
    attacker(`
const fs = require('fs');
const target = ${JSON.stringify(PRD)};
let weak = false;
setInterval(() => {
  weak = !weak;
  fs.copyFileSync(weak ? '.weak.md' : '.locked.md', target + '.swap');
  fs.renameSync(target + '.swap', target);
}, 2);`, ws);
    let allowed = 0;
    const texts: string[] = [];
    for (let i = 0; i < 12; i++) {
      const run = await runGate(['--workspace', ws, '--yes', '--no-store', '--no-log', '--max-blocks', '100', '--deadline', '60'], claudeStop(ws), { state });
      const d = decision(run);
      if (!d.blocked) allowed++;
      texts.push(d.text);
    }
    assert.equal(allowed, 0, `runs let through:\n${texts.filter((t) => !/not done/.test(t)).join('\n---\n')}`);
  });
});

describe('the gate on this repository\'s own layout (node_modules and the test editor linked, dist ignored)', function () {
  this.timeout(120_000);

  it('an honest stop is let through: a Read, a node_modules binary, the ignored build output and a Grep all pass in the snapshot, and the LOG entry the gate writes is not a change', async () => {
    const repo = REPO_ROOT;
    assert.ok(fs.existsSync(path.join(repo, 'node_modules', '.bin', 'tsc')), 'the repository has its dependencies installed');
    const folder = path.join(repo, '.ideal-state');
    const made = !fs.existsSync(folder);
    const relative = `.ideal-state/prds/PRD-20261128-self-${process.pid}.md`;
    fs.mkdirSync(path.join(repo, '.ideal-state', 'prds'), { recursive: true });
    fs.writeFileSync(
      path.join(repo, relative),
      `---\nprd: true\nid: PRD-20261128-self\nstatus: IN_PROGRESS\neffort_level: FAST\n---\n\n# Self\n\n## Ideal State Criteria\n\n- [ ] ISC-S-001: The package manifest names the extension at the top level | Verify: Read: package.json\n- [ ] ISC-S-002: The TypeScript compiler installed in the workspace reports its version | Verify: CLI: npx tsc --version\n- [ ] ISC-S-003: The built command line in the ignored dist folder prints its usage | Verify: CLI: node dist/cli.js --help\n\n## Anti-Criteria\n\n- [ ] ISC-A-S-001: No eval call in the source of the extension | Verify: Grep: \\beval\\(\n`,
    );
    try {
      const state = stateDir();
      for (const round of [1, 2]) {
        const run = await runGate(['--workspace', repo, '--prd', relative, '--yes', '--no-store', '--deadline', '100'], claudeStop(repo), { state });
        const d = decision(run);
        assert.equal(d.blocked, false, `round ${round}: ${d.text}\n${run.err}`);
        assert.match(d.text, /4 of 4 criteria pass/, `round ${round}`);
      }
      assert.match(fs.readFileSync(path.join(repo, relative), 'utf8'), /which let the stop through/, 'the LOG entry was written');
    } finally {
      fs.rmSync(made ? folder : path.join(repo, relative), { recursive: true, force: true });
    }
  });
});

async function waitFor(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(ok(), 'the attacker did not start');
}
