import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gateStateFolder, lockCriteria, readLock, writeLock } from '../../../../src/app/gate';
import { BUILT_CLI, runCli } from '../../support/cli-helpers';
import { claudeStop, decision, demoWorkspace, DEMO_PRD, runGate, stateDir } from '../../support/gate-lock-helpers';

/**
 * What an agent can inject into the gate's world and the gate ignores: a state folder of its
 * own, loader variables for the checks, a lock or block counter rewritten by hand; and the
 * hook's command line, which names Node and the command line by absolute path.
 */

const EASY_PRD = ['---', 'prd: true', 'id: PRD-20261201-easy', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# Easy', '', '## Ideal State Criteria', '- [ ] ISC-EASY-1: The readme exists | Verify: Read: README.md', ''].join('\n');

const stop = (ws: string) => ['--host', 'claude-code', '--no-store', '--no-log', '--workspace', ws];

async function lockedDemo(state: string, extra: NodeJS.ProcessEnv = {}): Promise<string> {
  const ws = demoWorkspace();
  await lockCriteria(ws, { files: [DEMO_PRD], by: 'a person', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state, ...extra } });
  return ws;
}

describe('the gate out of the agent’s reach: what an agent can inject', function () {
  this.timeout(60_000);

  it('IDEAL_STATE_STATE_DIR naming a folder inside the workspace (or a symlink into it) is refused: the person’s lock still holds, and the answer says why', async () => {
    const xdg = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-xdg-'));
    const ws = demoWorkspace();
    // The person's lock, in the state folder the environment gives without IDEAL_STATE_STATE_DIR.
    const { IDEAL_STATE_STATE_DIR: _theirs, ...personEnv } = process.env;
    await lockCriteria(ws, { files: [DEMO_PRD], by: 'a person', how: 'terminal', now: new Date(), env: { ...personEnv, XDG_STATE_HOME: xdg } });
    // The agent: a newer one-criterion PRD that passes, and an empty state folder of its own.
    fs.writeFileSync(path.join(ws, '.ideal-state', 'prds', 'PRD-20261201-easy.md'), EASY_PRD);
    const mine = path.join(ws, '.ideal-state', 'state');
    fs.mkdirSync(mine);
    const inside = await runGate(stop(ws), claudeStop(ws), { state: mine, env: { XDG_STATE_HOME: xdg } });
    const answer = decision(inside);
    assert.equal(answer.blocked, true, inside.out + inside.err);
    assert.match(answer.text, /ISC-DEMO-004/);
    assert.match(answer.text, /IDEAL_STATE_STATE_DIR \(.*\.ideal-state\/state\) names a folder inside the workspace .*; the gate ignores it\.\n.*without the variable it would read .*ideal-state-xdg-/);
    assert.match(inside.err, /IDEAL_STATE_STATE_DIR .* names a folder inside the workspace/);

    const link = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-link-')), 'ws');
    fs.symlinkSync(ws, link);
    const viaLink = await runGate(stop(ws), claudeStop(ws), { state: path.join(link, 'state'), env: { XDG_STATE_HOME: xdg } });
    assert.equal(decision(viaLink).blocked, true, viaLink.out + viaLink.err);
    assert.match(decision(viaLink).text, /names a folder inside the workspace/);
  });

  it('NODE_OPTIONS=--require a hook in the gate’s environment does not reach a check: a failing CLI criterion still FAILs', async () => {
    const ws = demoWorkspace();
    const state = stateDir();
    fs.writeFileSync(path.join(ws, '.ideal-state', 'prds', 'PRD-20261201-exit.md'), ['---', 'prd: true', 'id: PRD-20261201-exit', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# Exit', '', '## Ideal State Criteria', '- [ ] ISC-EXIT-1: The check fails | Verify: CLI: node -e "process.exit(1)"', ''].join('\n'));
    // The hook every Node process would load: every exit becomes 0.
    const hook = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-hook-')), 'hook.cjs');
    fs.writeFileSync(hook, 'const real = process.exit.bind(process);\nprocess.exit = () => real(0);\nprocess.on("exit", () => { process.exitCode = 0; });\n');
    const run = await runGate([...stop(ws), '--yes', '--prd', '.ideal-state/prds/PRD-20261201-exit.md'], claudeStop(ws), { state, env: { NODE_OPTIONS: `--require ${hook}`, npm_config_script_shell: '/bin/true' } });
    const answer = decision(run);
    assert.equal(answer.blocked, true, run.out + run.err);
    assert.match(answer.text, /ISC-EXIT-1 FAIL/);
    assert.match(answer.text, /Node loaded what NODE_OPTIONS names into the gate itself/);
    assert.match(run.err, /the checks run without NODE_OPTIONS, npm_config_/);
  });

  it('a lock rewritten by hand, or removed, shows in `criteria status` and in the gate’s answer, which blocks', async () => {
    const state = stateDir();
    const ws = await lockedDemo(state);
    const env = { IDEAL_STATE_STATE_DIR: state };
    const status = await runCli(['criteria', 'status', '--workspace', ws], { env });
    assert.match(status.out, /Lock history: the criteria lock was last locked on a terminal by .* at .* \(sha256 [0-9a-f]{12}…\); the file is as recorded/);

    const lockFile = (await readLock(ws, 'lock', env)).file;
    const record = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
    record.prds[0].by = 'your-boss';
    record.prds[0].at = '2099-01-01T00:00:00.000Z';
    record.prds[0].criteria = record.prds[0].criteria.filter((c: { id: string }) => c.id !== 'ISC-DEMO-004');
    fs.writeFileSync(lockFile, JSON.stringify(record, null, 2));
    const rewritten = await runCli(['criteria', 'status', '--workspace', ws], { env });
    assert.equal(rewritten.code, 2);
    assert.match(rewritten.err, /the criteria lock .* was rewritten outside Ideal State: its SHA-256 is [0-9a-f]{12}…, and the lock history .* last records it locked on a terminal by /);
    const gate = await runGate(stop(ws), claudeStop(ws), { state });
    assert.equal(decision(gate).blocked, true, gate.out);
    assert.match(decision(gate).text, /was rewritten outside Ideal State/);

    fs.rmSync(lockFile);
    const removed = await runCli(['criteria', 'status', '--workspace', ws], { env });
    assert.match(removed.err, /the criteria lock .* was removed outside Ideal State: the lock history .* last records it locked/);
    const gone = await runGate(stop(ws), claudeStop(ws), { state });
    assert.equal(decision(gone).blocked, true, gone.out);
    assert.match(decision(gone).text, /was removed outside Ideal State/);
    assert.match((await runCli(['gate', 'doctor', '--workspace', ws], { env })).out, /Lock history: the criteria lock was removed outside Ideal State: the lock history .* last records it locked on a terminal by /);
  });

  it('a lock dated in the future is refused, even one written through Ideal State', async () => {
    const state = stateDir();
    const env = { IDEAL_STATE_STATE_DIR: state };
    const ws = await lockedDemo(state);
    const read = await readLock(ws, 'lock', env);
    assert.ok(read.ok && read.record);
    await writeLock(ws, { ...read.record, prds: read.record.prds.map((p) => ({ ...p, at: '2099-01-01T00:00:00.000Z' })) }, env);
    const again = await readLock(ws, 'lock', env);
    assert.equal(again.ok, false);
    assert.match(!again.ok ? again.message : '', /is dated in the future \(\.ideal-state\/prds\/PRD-20261122-verify-demo\.md at 2099-01-01T00:00:00\.000Z\)/);
  });

  it('a block counter set to the limit by hand after one block is refused: the stop stays blocked', async () => {
    const state = stateDir();
    const ws = await lockedDemo(state);
    const first = await runGate(stop(ws), claudeStop(ws), { state });
    assert.equal(decision(first).blocked, true);
    const counter = path.join(await gateStateFolder(ws, { IDEAL_STATE_STATE_DIR: state }), 'gate-state.json');
    const sessions = JSON.parse(fs.readFileSync(counter, 'utf8')).sessions as Record<string, { blocks: number; updatedAt: string }>;
    for (const key of Object.keys(sessions)) sessions[key] = { blocks: 3, updatedAt: new Date().toISOString() };
    fs.writeFileSync(counter, JSON.stringify({ version: 1, sessions }));
    const next = await runGate(stop(ws), claudeStop(ws, { stop_hook_active: true }), { state });
    assert.equal(decision(next).blocked, true, next.out);
    assert.match(next.err, /the block counter .* was rewritten outside Ideal State/);
  });

  it('gate install writes the hook with the absolute paths of Node and of dist/cli.js; --command on PATH is warned about, one through the workspace replaced', async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-reach-install-'));
    const installed = await runCli(['gate', 'install', 'claude-code', '--yes', '--no-mcp', '--workspace', ws]);
    assert.equal(installed.code, 0, installed.err);
    const command = JSON.parse(fs.readFileSync(path.join(ws, '.claude', 'settings.json'), 'utf8')).hooks.Stop[0].hooks[0].command as string;
    assert.equal(command, `${fs.realpathSync(process.execPath)} ${fs.realpathSync(BUILT_CLI)} gate --host claude-code --workspace ${ws} --deadline 600`);
    assert.doesNotMatch(installed.err, /warning/);

    const bare = await runCli(['gate', 'install', 'claude-code', '--yes', '--no-mcp', '--workspace', ws, '--command', 'ideal-state']);
    assert.equal(bare.code, 0, bare.err);
    assert.match(bare.err, /warning: --command: "ideal-state" is looked up on PATH at every stop/);
    // One found through the workspace is never written (gate-install-shim.test.ts).
    const npx = await runCli(['gate', 'install', 'claude-code', '--yes', '--no-mcp', '--workspace', ws, '--command', 'npx ideal-state']);
    assert.equal(npx.code, 0, npx.err);
    assert.match(npx.err, /warning: --command `npx ideal-state` is not written as given: `npx ideal-state` runs the workspace's node_modules\/\.bin\/ideal-state whenever there is one/);
  });
});
