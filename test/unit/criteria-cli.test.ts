import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readLock } from '../../src/app/gate';
import { criteriaCommand } from '../../src/cli/criteria';
import type { TerminalOpen } from '../../src/cli/terminal';
import { BUILT_CLI } from './cli-helpers';
import { claudeStop, decision, DEMO_PRD, demoWorkspace, edit, runGate, stateDir } from './gate-lock-helpers';

/** A person at a terminal who answers each question in turn (and what they were shown). */
function person(answers: string[]): { open: () => TerminalOpen; shown: string[] } {
  const shown: string[] = [];
  return {
    shown,
    open: () => ({
      ok: true,
      terminal: {
        write: (t) => void shown.push(t),
        ask: (q) => {
          shown.push(q);
          return answers.shift() ?? '';
        },
        close: () => undefined,
      },
    }),
  };
}

async function run(argv: string[], state: string, terminal?: () => TerminalOpen): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await criteriaCommand(argv, { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`), env: { ...process.env, IDEAL_STATE_STATE_DIR: state }, ...(terminal ? { terminal } : {}) });
  return { code, out, err };
}

/** The built CLI in a session of its own: no controlling terminal, as an agent's shell tool runs it. */
function detached(args: string[], state: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [BUILT_CLI, ...args], { env: { ...process.env, IDEAL_STATE_STATE_DIR: state }, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('close', (code) => resolve({ code, out, err }));
    // What an agent would pipe in: it must not count as an answer.
    proc.stdin.end('y\ny\n');
  });
}

describe('command line: criteria lock | approve | status (a person on a terminal)', function () {
  this.timeout(120_000);

  it('refuses lock and approve without a controlling terminal (exit 3), even with "y" piped in; nothing is locked', async () => {
    const ws = demoWorkspace();
    const state = stateDir();
    for (const action of ['lock', 'approve']) {
      const r = await detached(['criteria', action, '--workspace', ws], state);
      assert.equal(r.code, 3, r.err);
      assert.match(r.err, new RegExp(`criteria ${action}: refused: there is no controlling terminal\\. Only a person locks or approves criteria`));
    }
    const lock = await readLock(ws, 'lock', { IDEAL_STATE_STATE_DIR: state });
    assert.equal(lock.ok && lock.record, undefined, 'no lock was written');
    const yes = await detached(['criteria', 'lock', '--yes', '--workspace', ws], state);
    assert.equal(yes.code, 2, 'there is no --yes');
  });

  it('locks through a real pseudo-terminal (script from util-linux): shows what is locked and records it as a terminal lock', async () => {
    const ws = demoWorkspace();
    const state = stateDir();
    const r = spawnSync('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(BUILT_CLI)} criteria lock --workspace ${JSON.stringify(ws)}`, '/dev/null'], { input: 'y\n', env: { ...process.env, IDEAL_STATE_STATE_DIR: state }, encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /ISC-DEMO-004: \[CRITICAL\] A changelog file at the top level records the releases \| Verify: Task: check: changelog exists/);
    assert.match(r.stdout, /Lock these criteria\? An agent is then held to them\. \[y\/N\]/);
    assert.match(r.stdout, /Locked \.ideal-state\/prds\/PRD-20261122-verify-demo\.md \(criteria version 1\)/);
    const lock = await readLock(ws, 'lock', { IDEAL_STATE_STATE_DIR: state });
    assert.equal(lock.ok && lock.record?.prds[0]?.how, 'terminal');
  });

  it('approve shows the diff, asks, makes a new criteria version and logs who and when; status tells before and after', async () => {
    const ws = demoWorkspace();
    const state = stateDir();
    assert.equal((await run(['lock', '--workspace', ws], state, person(['y']).open)).code, 0);
    edit(ws, DEMO_PRD, (t) => t.replace('ISC-DEMO-004: A changelog', 'ISC-DEMO-004: [NICE] A changelog'));

    const status = await run(['status', '--workspace', ws], state);
    assert.equal(status.code, 1, 'a change since the lock');
    assert.match(status.out, /locked as criteria version 1 by .*; 1 change since, TAMPERED until approved or put back:\n {2}ISC-DEMO-004 was changed \(priority CRITICAL → NICE\)/);

    const declined = person(['n']);
    assert.equal((await run(['approve', '--workspace', ws], state, declined.open)).code, 1);
    assert.match(declined.shown.join(''), /- ISC-DEMO-004: \[CRITICAL\] A changelog[\s\S]*\+ ISC-DEMO-004: \[NICE\] A changelog[\s\S]*Approve these changes\?/);
    const stop = () => runGate(['--host', 'claude-code', '--no-store', '--no-log', '--workspace', ws], claudeStop(ws), { state });
    assert.match(decision(await stop()).text, /ISC-DEMO-004 TAMPERED/, 'declined: still held to the lock');

    const approved = await run(['approve', '--workspace', ws], state, person(['y']).open);
    assert.equal(approved.code, 0, approved.err);
    assert.match(approved.out, /Approved: \.ideal-state\/prds\/PRD-20261122-verify-demo\.md is criteria version 2/);
    const prd = fs.readFileSync(path.join(ws, DEMO_PRD), 'utf8');
    assert.match(prd, /^criteria_version: 2$/m);
    assert.match(prd, /- Phase: CRITERIA APPROVED\n- Criteria: version 2\n- Work: Criteria changes approved by .+ on a terminal at \d{4}-\d\d-\d\dT[\d:.]+Z: ISC-DEMO-004 was changed \(priority CRITICAL → NICE\)/);
    assert.equal((await run(['status', '--workspace', ws], state)).code, 0);
    // Approved as NICE: the gate lets the agent stop, telling the user what still fails.
    const after = decision(await stop());
    assert.equal(after.blocked, false, after.text);
    assert.match(after.text, /every CRITICAL criterion passes/);
  });
});
