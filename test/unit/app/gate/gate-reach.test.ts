import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gateStateFolder, lockCriteria } from '../../../../src/app/gate';
import { gateCommand } from '../../../../src/cli/gate/stop';
import { releaseFifos, startWatchdog, watchdogSeconds } from '../../../../src/cli/gate/watchdog';
import { BUILT_CLI } from '../../support/cli-helpers';
import { claudeStop, decision, demoWorkspace, DEMO_PRD, stateDir, type GateRun } from '../../support/gate-lock-helpers';

/**
 * What an agent can put in the gate's way and the gate ignores: a FIFO where a file was (the
 * gate answers within its --deadline, blocking), and a watchdog for whatever still hangs.
 */

const DEADLINE = 8;

/** The built gate as a host runs it, killed if it outlives its deadline by far: how long it took, and what it answered. */
function gateWithin(args: readonly string[], stdin: string, options: { state: string; env?: Record<string, string> }): Promise<GateRun & { seconds: number; killed: boolean }> {
  return new Promise((resolve) => {
    const { CLAUDE_PROJECT_DIR: _ignored, ...inherited } = process.env;
    const started = Date.now();
    const proc = spawn(process.execPath, [BUILT_CLI, 'gate', ...args], { cwd: os.tmpdir(), env: { ...inherited, IDEAL_STATE_STATE_DIR: options.state, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let out = '';
    let err = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      process.kill(-proc.pid!, 'SIGKILL');
    }, (DEADLINE + 10) * 1000);
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err, seconds: (Date.now() - started) / 1000, killed });
    });
    proc.stdin.end(stdin);
  });
}

function mkfifo(file: string): void {
  fs.rmSync(file, { force: true });
  execFileSync('mkfifo', [file]);
}

const STOP = (ws: string) => ['--host', 'claude-code', '--no-store', '--no-log', '--workspace', ws, '--deadline', String(DEADLINE)];

async function lockedDemo(): Promise<{ ws: string; state: string }> {
  const ws = demoWorkspace();
  const state = stateDir();
  await lockCriteria(ws, { files: [DEMO_PRD], by: 'a person', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
  return { ws, state };
}

function answeredInTime(run: GateRun & { seconds: number; killed: boolean }): void {
  assert.equal(run.killed, false, `the gate hung: ${run.err}`);
  assert.ok(run.seconds < DEADLINE, `answered after ${run.seconds} s, past its --deadline ${DEADLINE}`);
}

describe('the gate out of the agent’s reach: files that are not regular files', function () {
  this.timeout(60_000);

  it('a FIFO as .vscode/settings.json does not hang the gate: it answers within its deadline, blocking', async () => {
    const ws = demoWorkspace();
    mkfifo(path.join(ws, '.vscode', 'settings.json'));
    const run = await gateWithin(STOP(ws), claudeStop(ws), { state: stateDir() });
    answeredInTime(run);
    assert.equal(decision(run).blocked, true, run.out + run.err);
  });

  it('a FIFO in place of the locked PRD is TAMPERED: "not a regular file", never read', async () => {
    const { ws, state } = await lockedDemo();
    mkfifo(path.join(ws, DEMO_PRD));
    const run = await gateWithin(STOP(ws), claudeStop(ws), { state });
    answeredInTime(run);
    const answer = decision(run);
    assert.equal(answer.blocked, true, run.out + run.err);
    assert.match(answer.text, /the locked PRD \.ideal-state\/prds\/PRD-20261122-verify-demo\.md is not a regular file \(a FIFO\)/);
  });

  it('a FIFO as a locked .gitignore (and one in src/ beside the searched files) is TAMPERED and hangs no Grep', async () => {
    const { ws, state } = await lockedDemo();
    mkfifo(path.join(ws, '.gitignore'));
    mkfifo(path.join(ws, 'src', 'pipe.js'));
    const run = await gateWithin(STOP(ws), claudeStop(ws), { state });
    answeredInTime(run);
    const answer = decision(run);
    assert.equal(answer.blocked, true, run.out + run.err);
    assert.match(answer.text, /the \.gitignore \.gitignore is not a regular file \(a FIFO\) since a person locked it/);
    assert.doesNotMatch(answer.text, /ISC-DEMO-003|ISC-A-DEMO-001/, 'the Greps searched the regular files and passed');
  });

  it('a FIFO as .vscode/tasks.json where nothing is locked: the task check says what it is, within the deadline', async () => {
    const ws = demoWorkspace();
    mkfifo(path.join(ws, '.vscode', 'tasks.json'));
    const run = await gateWithin(STOP(ws), claudeStop(ws), { state: stateDir() });
    answeredInTime(run);
    assert.equal(decision(run).blocked, true, run.out + run.err);
  });

  it('a FIFO in the state folder the verification reads is refused at once, a block that names it, well before the deadline', async () => {
    const { ws, state } = await lockedDemo();
    mkfifo(path.join(await gateStateFolder(ws, { IDEAL_STATE_STATE_DIR: state }), 'proposed-commands.json'));
    const run = await gateWithin(STOP(ws), claudeStop(ws), { state });
    answeredInTime(run);
    const answer = decision(run);
    assert.equal(answer.blocked, true, run.out + run.err);
    assert.match(answer.text, /proposed-commands\.json is not a regular file \(a FIFO\); it is not read; move it aside to start over/);
  });
});

describe('the gate’s watchdog', () => {
  it('fires between the budget and the host’s deadline, answers whatever is pending, then ends the process; once answered it keeps nothing alive', async () => {
    assert.equal(watchdogSeconds(600), 585);
    assert.equal(watchdogSeconds(10), 9);
    const ended: (number | undefined)[] = [];
    const fired: number[] = [];
    const pending = new Promise(() => undefined);
    const dog = startWatchdog(3, (s) => (fired.push(s), { code: 0, after: pending }), (code) => ended.push(code));
    await new Promise((resolve) => setTimeout(resolve, 3200));
    assert.deepEqual(fired, [2], 'fired at 2 s of a 3 s deadline (budget 1 s)');
    assert.deepEqual(ended, [0], 'ended with the answer’s code although the counter write never finished');
    const quiet = startWatchdog(3, () => ({ code: 2 }), (code) => void ended.push(code ?? -1));
    quiet.answered();
    await new Promise((resolve) => setTimeout(resolve, 2300));
    assert.deepEqual(ended, [0, -1], 'after an answer, the process is ended with its own exit code (none given)');
    void dog;
  }).timeout(10_000);

  it('a stop whose payload never comes is blocked (exit 2, the reason on stderr); a prompt hook never answers with a block', async () => {
    const never = () => new Promise<string>(() => undefined);
    const stop = { out: [] as string[], err: [] as string[] };
    void gateCommand(['--deadline', '3', '--no-store'], { out: (s) => stop.out.push(s), err: (s) => stop.err.push(s), readStdin: never, exit: () => undefined });
    const prompt = { out: [] as string[], err: [] as string[] };
    void gateCommand(['--deadline', '3', '--prompt'], { out: (s) => prompt.out.push(s), err: (s) => prompt.err.push(s), readStdin: never, exit: () => undefined });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.deepEqual(stop.out, []);
    assert.match(stop.err.join('\n'), /^Ideal State: verification did not finish within 2 s: the host's payload was still being read/);
    assert.deepEqual(prompt.out, [], 'nothing a host would read as an answer to the prompt');
    assert.match(prompt.err.join('\n'), /the session baseline was not recorded within 2 s/);
  }).timeout(10_000);

  it('lets go of a reader waiting to open a FIFO, so the process can end', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-fifo-'));
    mkfifo(path.join(dir, 'settings.json'));
    const reading = fs.promises.readFile(path.join(dir, 'settings.json'), 'utf8');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(releaseFifos([dir]), [path.join(dir, 'settings.json')]);
    assert.equal(await reading, '');
  });
});
