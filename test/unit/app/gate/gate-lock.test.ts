import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lockCriteria } from '../../../../src/app/gate/lock';
import { claudeStop, decision, DEMO_PRD, demoWorkspace, edit, runGate, stateDir } from '../../support/gate-lock-helpers';

/**
 * Issue 23's cheats, each as an agent under the gate would try it: the criteria are locked by
 * a person (here the lock's own function, as `criteria lock` on a terminal calls it), ISC-DEMO-004
 * fails (there is no CHANGELOG.md), and the agent changes what it can reach instead of the work.
 * Every one of them must keep the stop blocked.
 */
describe('the criteria lock: cheats of issue 23 through the CLI gate (Claude Code payload)', function () {
  this.timeout(120_000);

  async function locked(): Promise<{ ws: string; state: string; stop: (args?: string[], payloadCwd?: string, env?: Record<string, string>) => ReturnType<typeof runGate> }> {
    const ws = demoWorkspace();
    const state = stateDir();
    await lockCriteria(ws, { by: 'a person', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    const stop = (args = ['--workspace', ws], payloadCwd = ws, env: Record<string, string> = {}) => runGate(['--host', 'claude-code', '--no-store', ...args], claudeStop(payloadCwd), { state, env });
    return { ws, state, stop };
  }

  it('0: as locked, the honest state blocks on ISC-DEMO-004 (the changelog is missing), held "as locked"', async () => {
    const { stop } = await locked();
    const before = decision(await stop());
    assert.equal(before.blocked, true, 'the honest state blocks');
    assert.match(before.text, /1 CRITICAL criterion of \.ideal-state\/prds\/PRD-20261122-verify-demo\.md \(held: locked by a person on \d{4}-\d\d-\d\d, criteria version 1\) does not pass: ISC-DEMO-004\./);
    assert.match(before.text, /ISC-DEMO-004 FAIL/);
  });

  it('1: a locked CRITICAL criterion re-labelled [NICE] is TAMPERED and blocks, with the diff', async () => {
    const { ws, stop } = await locked();
    edit(ws, DEMO_PRD, (t) => t.replace('ISC-DEMO-004: A changelog', 'ISC-DEMO-004: [NICE] A changelog'));
    const d = decision(await stop());
    assert.equal(d.blocked, true, d.text);
    assert.match(d.text, /ISC-DEMO-004 TAMPERED: ISC-DEMO-004 was changed \(priority CRITICAL → NICE\)/);
    assert.match(d.text, /- ISC-DEMO-004: \[CRITICAL\] A changelog file/);
    assert.match(d.text, /\+ ISC-DEMO-004: \[NICE\] A changelog file/);
    assert.match(d.text, /1 CRITICAL criterion of .* does not pass: ISC-DEMO-004\./, 'TAMPERED and failing is one criterion, named once');
  });

  it("2: the task's command in .vscode/tasks.json set to `true` is TAMPERED and blocks", async () => {
    const { ws, stop } = await locked();
    edit(ws, '.vscode/tasks.json', (t) => t.replace('"test -f CHANGELOG.md"', '"true"'));
    const d = decision(await stop());
    assert.equal(d.blocked, true, d.text);
    assert.match(d.text, /check: changelog exists TAMPERED: the task check: changelog exists was changed/);
  });

  it('3: the criterion line deleted is TAMPERED and blocks', async () => {
    const { ws, stop } = await locked();
    edit(ws, DEMO_PRD, (t) => t.replace(/^- \[ \] ISC-DEMO-004:.*\n/m, ''));
    const d = decision(await stop());
    assert.equal(d.blocked, true, d.text);
    assert.match(d.text, /ISC-DEMO-004 TAMPERED: ISC-DEMO-004 was removed/);
  });

  it('4: its Verify swapped to `CLI: node --version` is TAMPERED, blocks, and the edited line is not ticked', async () => {
    const { ws, stop } = await locked();
    edit(ws, DEMO_PRD, (t) => t.replace('Verify: Task: check: changelog exists', 'Verify: CLI: node --version'));
    const d = decision(await stop());
    assert.equal(d.blocked, true, d.text);
    assert.match(d.text, /ISC-DEMO-004 was changed \(verification method\)/);
    assert.match(fs.readFileSync(path.join(ws, DEMO_PRD), 'utf8'), /- \[ \] ISC-DEMO-004:/);
  });

  it('5: a newer PRD with trivially true criteria (or a touch of another) does not replace the locked one', async () => {
    const { ws, stop } = await locked();
    const easy = ['---', 'prd: true', 'id: PRD-20261123-easy', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# Easy', '', '## Ideal State Criteria', '- [ ] ISC-1: The readme exists | Verify: Read: README.md', ''].join('\n');
    const file = path.join(ws, '.ideal-state', 'prds', 'PRD-20261123-easy.md');
    fs.writeFileSync(file, easy);
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(file, later, later);
    const d = decision(await stop());
    assert.equal(d.blocked, true, d.text);
    assert.match(d.text, /ISC-DEMO-004 FAIL/);
  });

  it('6: the PRD folder removed, the folder setting pointed elsewhere, or `loop:` added: no "no PRD"', async () => {
    const moved = await locked();
    fs.renameSync(path.join(moved.ws, '.ideal-state', 'prds'), path.join(moved.ws, '.ideal-state', 'elsewhere'));
    const gone = decision(await moved.stop());
    assert.equal(gone.blocked, true, gone.text);
    assert.match(gone.text, /TAMPERED: the locked PRD \.ideal-state\/prds\/PRD-20261122-verify-demo\.md is gone/);

    const setting = await locked();
    fs.mkdirSync(path.join(setting.ws, 'empty'));
    fs.writeFileSync(path.join(setting.ws, '.vscode', 'settings.json'), '{ "idealState.prd.folder": "empty" }\n');
    const elsewhere = decision(await setting.stop());
    assert.equal(elsewhere.blocked, true, elsewhere.text);
    assert.match(elsewhere.text, /is no longer in the PRD folder/);

    const loop = await locked();
    edit(loop.ws, DEMO_PRD, (t) => t.replace('prd: true\n', 'prd: true\nloop: loop-1\n'));
    const relabelled = decision(await loop.stop());
    assert.equal(relabelled.blocked, true, relabelled.text);
    assert.match(relabelled.text, /was relabelled as a loop's PRD/);
  });

  it("7: a payload cwd outside the workspace, or in a subfolder with its own .ideal-state or .git, is not the workspace", async () => {
    const { ws, stop } = await locked();
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-outside-'));
    // The hook as installed: the workspace in its command line.
    assert.equal(decision(await stop(['--workspace', ws], outside)).blocked, true);
    // Claude Code's own project folder variable, whatever the payload says.
    assert.equal(decision(await stop([], outside, { CLAUDE_PROJECT_DIR: ws })).blocked, true);
    fs.mkdirSync(path.join(ws, 'sub', '.ideal-state', 'prds'), { recursive: true });
    fs.mkdirSync(path.join(ws, 'sub', '.git'));
    assert.equal(decision(await stop([], path.join(ws, 'sub'), { CLAUDE_PROJECT_DIR: ws })).blocked, true);
  });

  it('8: a forged block counter (in the workspace, or beside the lock) does not let the stop through', async () => {
    const { ws, state, stop } = await locked();
    const forged = JSON.stringify({ version: 1, sessions: { 'claude-code:abc123:': { blocks: 99, updatedAt: new Date().toISOString() } } });
    fs.writeFileSync(path.join(ws, '.ideal-state', 'gate-state.json'), forged);
    const inWorkspace = await runGate(['--host', 'claude-code', '--no-store', '--workspace', ws], claudeStop(ws, { stop_hook_active: true }), { state });
    assert.equal(decision(inWorkspace).blocked, true, inWorkspace.out);
    for (const dir of fs.readdirSync(state)) fs.writeFileSync(path.join(state, dir, 'gate-state.json'), forged);
    const beside = await runGate(['--host', 'claude-code', '--no-store', '--workspace', ws], claudeStop(ws, { stop_hook_active: true }), { state });
    assert.equal(decision(beside).blocked, true, beside.out);
    assert.match(beside.err, /gate state refused: session claude-code:abc123:: 99 blocks, over the limit of 3/);
    void stop;
  });

  it("9: an anti-criterion's offending file added to .gitignore is still searched: the locked .gitignore rules decide", async () => {
    const ws = demoWorkspace();
    const state = stateDir();
    fs.writeFileSync(path.join(ws, 'CHANGELOG.md'), '# Changelog\n');
    fs.writeFileSync(path.join(ws, 'src', 'debug.js'), "console.log('here');\n");
    await lockCriteria(ws, { by: 'a person', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    const stop = () => runGate(['--host', 'claude-code', '--no-store', '--workspace', ws], claudeStop(ws), { state });
    assert.match(decision(await stop()).text, /ISC-A-DEMO-001 FAIL/);
    fs.writeFileSync(path.join(ws, '.gitignore'), 'src/debug.js\n');
    const d = decision(await stop());
    assert.equal(d.blocked, true, d.text);
    assert.match(d.text, /ISC-A-DEMO-001 FAIL \[CONSTRAINT_VIOLATION\]: 1 matching line in 1 file/);
    assert.doesNotMatch(d.text, /TAMPERED/, 'the change hides nothing, so it is not a change the person must approve');
    assert.match(d.text, /first: src\/debug\.js:1/, 'the agent is told where the match is');
  });
  it("an ISA's principal_stated_goal or frozen moved by the agent is TAMPERED and blocks (issue 27)", async () => {
    const ws = demoWorkspace();
    const state = stateDir();
    edit(ws, DEMO_PRD, (t) => t.replace(/^prd: true$/m, 'prd: true\nprincipal_stated_goal: Ship a changelog with every release\nfrozen: false'));
    await lockCriteria(ws, { by: 'a person', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    const stop = () => runGate(['--host', 'claude-code', '--no-store', '--workspace', ws], claudeStop(ws), { state, env: {} });
    edit(ws, DEMO_PRD, (t) => t.replace('Ship a changelog with every release', 'Ship whatever is there').replace('frozen: false', 'frozen: true'));
    const d = decision(await stop());
    assert.equal(d.blocked, true, d.text);
    assert.match(d.text, /principal_stated_goal was changed/);
    assert.match(d.text, /- principal_stated_goal: "Ship a changelog with every release"/);
    assert.match(d.text, /frozen was changed/);
  });
});

describe('the criteria lock names the PRD’s own criteria version', () => {
  it('a PRD a run left at criteria_version 2 is locked as criteria version 2 (the ISC table says v2), and the next lock is 3', async () => {
    const ws = demoWorkspace();
    const state = stateDir();
    const file = path.join(ws, DEMO_PRD);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^---\n/, '---\ncriteria_version: 2\n'));
    const env = { ...process.env, IDEAL_STATE_STATE_DIR: state };
    const first = await lockCriteria(ws, { by: 'a person', how: 'terminal', now: new Date(), env, files: [DEMO_PRD] });
    assert.deepEqual(first.locked.map((p) => [p.path, p.version]), [[DEMO_PRD, 2]]);
    const again = await lockCriteria(ws, { by: 'a person', how: 'terminal', now: new Date(), env, files: [DEMO_PRD] });
    assert.deepEqual(again.locked.map((p) => [p.path, p.version]), [[DEMO_PRD, 3]]);
  });
});
