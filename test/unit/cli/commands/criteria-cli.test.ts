import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readLock } from '../../../../src/app/gate';
import { criteriaCommand } from '../../../../src/cli/commands/criteria';
import type { TerminalOpen } from '../../../../src/cli/shared/terminal';
import { BUILT_CLI } from '../../support/cli-helpers';
import { claudeStop, decision, DEMO_PRD, demoWorkspace, edit, runGate, stateDir } from '../../support/gate-lock-helpers';
import { prdWorkspace } from '../../support/lock-choice-helpers';

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

describe('command line: criteria lock with no file, or several (a lock is per PRD)', function () {
  this.timeout(60_000);
  const noTerminal = (): TerminalOpen => ({ ok: false, reason: 'there is no controlling terminal' });
  const A = '.ideal-state/prds/PRD-20261201-a.md';
  const B = '.ideal-state/prds/PRD-20261202-b.md';
  const DONE = '.ideal-state/prds/PRD-20261101-done.md';
  const lockedPaths = async (ws: string, state: string) => {
    const read = await readLock(ws, 'lock', { IDEAL_STATE_STATE_DIR: state });
    return read.ok && read.record ? read.record.prds.map((p) => [p.path, p.criteria.map((c) => c.id)]) : [];
  };
  const twoOpen = () =>
    prdWorkspace([
      { name: 'PRD-20261202-b.md', criteria: ['- [ ] ISC-B-1: B works | Verify: Read: README.md', '- [ ] ISC-B-2: B is documented | Verify: Grep: B works'] },
      { name: 'PRD-20261201-a.md', criteria: ['- [ ] ISC-X-1: A works | Verify: Read: README.md'] },
      { name: 'PRD-20261101-done.md', status: 'COMPLETE', criteria: ['- [x] ISC-OLD-1: Done long ago | Verify: Read: README.md'] },
    ]);

  it('one unfinished PRD with criteria (beside a finished one): it is the one shown and locked, after its confirmation', async () => {
    const ws = prdWorkspace([
      { name: 'PRD-20261201-a.md', criteria: ['- [ ] ISC-X-1: A works | Verify: Read: README.md'] },
      { name: 'PRD-20261101-done.md', status: 'COMPLETE', criteria: ['- [x] ISC-OLD-1: Done long ago | Verify: Read: README.md'] },
    ]);
    const state = stateDir();
    const someone = person(['y']);
    const r = await run(['lock', '--workspace', ws], state, someone.open);
    assert.equal(r.code, 0, r.err);
    const shown = someone.shown.join('');
    assert.match(shown, /PRD-20261201-a\.md — criteria version 1\n {2}ISC-X-1: \[CRITICAL\] A works/);
    assert.doesNotMatch(shown, /ISC-OLD-1|PRD-20261101-done/, 'the finished PRD is neither shown nor locked');
    assert.deepEqual(await lockedPaths(ws, state), [[A, ['ISC-X-1']]]);
  });

  it('several unfinished PRDs and no terminal: exit 2, naming each PRD (newest first, the finished one marked) and how to name one; nothing locked', async () => {
    const ws = twoOpen();
    const state = stateDir();
    const r = await run(['lock', '--workspace', ws], state, noTerminal);
    assert.equal(r.code, 2);
    assert.match(r.err, /^ideal-state criteria lock: 2 PRDs with criteria here are not finished, so which one to lock is yours to say: run `ideal-state criteria lock FILE` on your terminal with one of \(newest first\):\n/);
    const listed = r.err.split('\n').filter((l) => l.startsWith('  '));
    assert.deepEqual(listed, [`  ${B}  (2 criteria · status: CRITERIA_DEFINED)`, `  ${A}  (1 criterion · status: CRITERIA_DEFINED)`, `  ${DONE}  (1 criterion · status: COMPLETE · finished (status: COMPLETE))`]);
    assert.deepEqual(await lockedPaths(ws, state), []);
    // A named file without a terminal is still refused as before: only a person locks.
    const named = await run(['lock', A, '--workspace', ws], state, noTerminal);
    assert.equal(named.code, 3);
  });

  it('several unfinished PRDs on a terminal: a numbered list, the chosen one alone is shown and locked; no answer locks nothing', async () => {
    const ws = twoOpen();
    const state = stateDir();
    const none = person(['']);
    assert.equal((await run(['lock', '--workspace', ws], state, none.open)).code, 1);
    assert.deepEqual(await lockedPaths(ws, state), []);
    const someone = person(['2', 'y']);
    const r = await run(['lock', '--workspace', ws], state, someone.open);
    assert.equal(r.code, 0, r.err);
    const shown = someone.shown.join('');
    assert.match(shown, new RegExp(`PRDs with criteria here, newest first:\\n {2}1\\. ${B.replace(/\./g, '\\.')} {2}\\(2 criteria · status: CRITERIA_DEFINED\\)\\n {2}2\\. ${A.replace(/\./g, '\\.')}`));
    assert.match(shown, /Which one do you lock\? \[1-3, Enter: none\]/);
    const question = shown.slice(shown.indexOf('Which one'));
    assert.match(question, /ISC-X-1/);
    assert.doesNotMatch(question, /ISC-B-|ISC-OLD-/, 'only the chosen PRD\'s criteria are shown to confirm');
    assert.deepEqual(await lockedPaths(ws, state), [[A, ['ISC-X-1']]]);
  });

  it('several files named: one confirmation per PRD, each listing only its criteria; the declined one is not locked', async () => {
    const ws = twoOpen();
    const state = stateDir();
    const asked: string[] = [];
    let block = '';
    const answers = ['y', 'n'];
    const open = (): TerminalOpen => ({
      ok: true,
      terminal: {
        write: (t) => void (block += t),
        ask: (q) => {
          asked.push(`${block}${q}`);
          block = '';
          return answers.shift() ?? '';
        },
        close: () => undefined,
      },
    });
    const r = await run(['lock', B, A, '--workspace', ws], state, open);
    assert.equal(r.code, 0, r.err);
    assert.equal(asked.length, 2, 'one question per PRD');
    assert.match(asked[0]!, /ISC-B-1[\s\S]*ISC-B-2[\s\S]*Lock these criteria of \.ideal-state\/prds\/PRD-20261202-b\.md\? An agent is then held to them\. \[y\/N\] $/);
    assert.doesNotMatch(asked[0]!, /ISC-X-1/);
    assert.match(asked[1]!, /ISC-X-1[\s\S]*Lock these criteria of \.ideal-state\/prds\/PRD-20261201-a\.md\?/);
    assert.doesNotMatch(asked[1]!, /ISC-B-/);
    assert.match(r.err, /not locked \(declined\): \.ideal-state\/prds\/PRD-20261201-a\.md/);
    assert.deepEqual(await lockedPaths(ws, state), [[B, ['ISC-B-1', 'ISC-B-2']]]);
  });

  it('names a CRITICAL Custom criterion no model judges at the gate before the person says yes, and locks it on yes', async () => {
    const ws = prdWorkspace([{ name: 'PRD-20261201-a.md', criteria: ['- [ ] ISC-X-1: The greeting reads warmly | Verify: Custom', '- [ ] ISC-X-2: It is there | Verify: Read: README.md'] }]);
    const state = stateDir();
    const someone = person(['y']);
    const r = await run(['lock', '--workspace', ws], state, someone.open);
    assert.equal(r.code, 0, r.err);
    const shown = someone.shown.join('');
    assert.match(shown, /This CRITICAL criterion cannot be decided by the done gate[^\n]*\n {2}ISC-X-1: Custom: the done gate verifies outside the editor, where no model judges Custom criteria\. To fix: make it a command or a Grep, or lower its priority\.\nLock these criteria\?/);
    assert.doesNotMatch(shown, /ISC-X-2: (Custom|its command)/);
    assert.deepEqual(await lockedPaths(ws, state), [[A, ['ISC-X-1', 'ISC-X-2']]]);
  });
});
