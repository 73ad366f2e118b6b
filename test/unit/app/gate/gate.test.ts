import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gateStateFile } from '../../../../src/app/gate';
import { BUILT_CLI } from '../../support/cli-helpers';
import { REPO_ROOT } from '../../support/repo-root';

const FIXTURES = path.resolve(REPO_ROOT, 'test/unit/fixtures/gate');

/** A documented payload with its cwd (or Cline's workspaceRoots) pointed at `workspace`. */
function payload(name: string, workspace: string, changes: Record<string, unknown> = {}): string {
  const p = JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as Record<string, unknown>;
  if ('workspaceRoots' in p) p.workspaceRoots = [workspace];
  else p.cwd = workspace;
  return JSON.stringify({ ...p, ...changes });
}

/** The gate's state (block counter, lock) goes to a folder of this test run, never the user's. */
const STATE = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-gate-state-'));

function gate(args: readonly string[], stdin: string | undefined, cwd?: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const { CLAUDE_PROJECT_DIR: _notOurs, ...env } = process.env;
    const proc = spawn(process.execPath, [BUILT_CLI, 'gate', ...args], { cwd: cwd ?? os.tmpdir(), env: { ...env, IDEAL_STATE_STATE_DIR: STATE }, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('close', (code) => resolve({ code, out, err }));
    if (stdin !== undefined) proc.stdin!.end(stdin);
  });
}

const PRD = [
  '---',
  'prd: true',
  'id: PRD-20261124-gate',
  'status: IN_PROGRESS',
  'effort_level: INSTANT',
  '---',
  '',
  '# Gate fixture',
  '',
  '## Problem Space',
  'The agent must write a changelog before it may say it is done.',
  '',
  '## Ideal State Criteria',
  '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md',
  '- [ ] ISC-2: [IMPORTANT] The readme mentions the gate | Verify: Grep: stop gate',
  '- [ ] ISC-3: The source file exists | Verify: Read: src/app.js',
  '',
  '## LOG',
  '',
].join('\n');

function workspace(prd = PRD): { dir: string; prd: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-gate-'));
  fs.mkdirSync(path.join(dir, '.ideal-state', 'prds'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'app.js'), 'module.exports = 1;\n');
  fs.writeFileSync(path.join(dir, 'README.md'), '# App\n');
  const file = path.join(dir, '.ideal-state', 'prds', 'PRD-20261124-gate.md');
  fs.writeFileSync(file, prd);
  return { dir, prd: file };
}

describe('command line: gate (stop hooks)', function () {
  this.timeout(60_000);

  it('Claude Code Stop: blocks with the failing CRITICAL criterion and what it needs, then lets the agent stop once it passes', async () => {
    const ws = workspace();
    const blocked = await gate(['--host', 'claude-code', '--no-store', '--workspace', ws.dir], payload('claude-code-stop.json', ws.dir, { stop_hook_active: false }));
    assert.equal(blocked.code, 0, blocked.err);
    const answer = JSON.parse(blocked.out);
    assert.equal(answer.decision, 'block');
    assert.match(answer.reason, /1 CRITICAL criterion of \.ideal-state\/prds\/PRD-20261124-gate\.md \(held: the newest unfinished PRD with criteria \(no lock, no session baseline\)\) does not pass: ISC-1\./);
    assert.match(answer.reason, /- ISC-1 FAIL \[REQUIREMENT_COVERAGE\]: CHANGELOG\.md does not exist\n {2}needs: CHANGELOG\.md exists/);
    assert.match(answer.reason, /Also not passing \(not CRITICAL\):\n- ISC-2 FAIL/);
    assert.doesNotMatch(answer.reason, /ISC-3/, 'a passing criterion is not named');
    assert.match(answer.reason, /block 1 of 3/);

    fs.writeFileSync(path.join(ws.dir, 'CHANGELOG.md'), '# Changelog\n');
    const allowed = await gate(['--host', 'claude-code', '--no-store', '--workspace', ws.dir], payload('claude-code-stop.json', ws.dir, { stop_hook_active: true }));
    assert.equal(allowed.code, 0, allowed.err);
    // Every CRITICAL passes; ISC-2 (IMPORTANT) still fails, which the user is told and the agent is not kept for.
    assert.deepEqual(JSON.parse(allowed.out), { systemMessage: 'Ideal State: .ideal-state/prds/PRD-20261124-gate.md (held: the newest unfinished PRD with criteria (no lock, no session baseline)): 2 of 3 criteria pass (1 FAIL); every CRITICAL criterion passes.' });

    const log = fs.readFileSync(ws.prd, 'utf8');
    // One LOG entry per session: its final verdict; the block before it is in the store, not the PRD (issue 25 item 3).
    const entries = [...log.matchAll(/^- Work: Verified .* with ideal-state gate \(([^)]*)\), which (.*)$/gm)];
    assert.equal(entries.length, 1, log);
    assert.match(entries[0]![0], /Work: Verified 3 criteria with ideal-state gate \(Claude Code Stop, session [0-9a-f]{8}\), which let the stop through; Claude Code lets the agent stop and shows the note to the user: 2 PASS, 1 FAIL/);
    assert.doesNotMatch(log, /which blocked the stop/);
    assert.match(log, /- \[x\] ISC-1:/, 'the outcome is written back');
    assert.equal((log.match(/^### Iteration/gm) ?? []).length, 1, 'the block\'s entry was removed whole, heading and all');

    // Another session's verdict is an entry of its own; the first session's stays.
    const other = await gate(['--host', 'claude-code', '--no-store', '--workspace', ws.dir], payload('claude-code-stop.json', ws.dir, { session_id: 'another-session', stop_hook_active: false }));
    assert.equal(other.code, 0, other.err);
    const after = fs.readFileSync(ws.prd, 'utf8');
    const sessions = [...after.matchAll(/with ideal-state gate \(Claude Code Stop, (session [0-9a-f]{8})\)/g)].map((m) => m[1]);
    assert.equal(sessions.length, 2, after);
    assert.notEqual(sessions[0], sessions[1]);
  });

  it("holds the agent to the newest PRD with criteria, never to a loop's PRD written after it (it has none of its own)", async () => {
    const ws = workspace();
    const loopPrd = path.join(ws.dir, '.ideal-state', 'prds', 'PRD-20261124-loop-1.md');
    fs.writeFileSync(loopPrd, ['---', 'prd: true', 'id: PRD-20261124-loop-1', 'loop: loop-1', 'status: COMPLETE', '---', '', '# Loop over docs/**/*.md against docs.page', '', '## Problem Space', 'Every page.', ''].join('\n'));
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(loopPrd, later, later);
    const blocked = await gate(['--host', 'claude-code', '--no-store', '--workspace', ws.dir], payload('claude-code-stop.json', ws.dir, { stop_hook_active: false }));
    assert.equal(blocked.code, 0, blocked.err);
    const answer = JSON.parse(blocked.out);
    assert.equal(answer.decision, 'block');
    assert.match(answer.reason, /of \.ideal-state\/prds\/PRD-20261124-gate\.md \(held: the newest unfinished PRD with criteria \(no lock, no session baseline\)\) does not pass: ISC-1\./);
  });

  it('VS Code Stop: blocks through hookSpecificOutput; when every criterion passes, only a note naming the PRD held', async () => {
    const ws = workspace();
    const blocked = await gate(['--host', 'vscode', '--no-store', '--workspace', ws.dir], payload('vscode-stop.json', ws.dir));
    assert.equal(blocked.code, 0, blocked.err);
    const answer = JSON.parse(blocked.out);
    assert.equal(answer.hookSpecificOutput.hookEventName, 'Stop');
    assert.equal(answer.hookSpecificOutput.decision, 'block');
    assert.match(answer.hookSpecificOutput.reason, /ISC-1 FAIL/);

    fs.writeFileSync(path.join(ws.dir, 'CHANGELOG.md'), '# Changelog\n');
    fs.writeFileSync(path.join(ws.dir, 'README.md'), '# App\nThe stop gate holds the agent.\n');
    const allowed = await gate(['--host', 'vscode', '--no-store', '--workspace', ws.dir], payload('vscode-stop.json', ws.dir));
    assert.equal(allowed.code, 0, allowed.err);
    assert.deepEqual(JSON.parse(allowed.out), { systemMessage: 'Ideal State: .ideal-state/prds/PRD-20261124-gate.md (held: the newest unfinished PRD with criteria (no lock, no session baseline)): 3 of 3 criteria pass.' });
  });

  it('Kiro Agent Stop (no payload): exit 1 with the reason on stderr, exit 0 when done; the workspace is the current folder', async () => {
    const ws = workspace();
    const blocked = await gate(['--host', 'kiro', '--no-store'], undefined, ws.dir);
    assert.equal(blocked.code, 1);
    assert.match(blocked.err, /Ideal State: not done\. 1 CRITICAL criterion .* ISC-1\./);
    fs.writeFileSync(path.join(ws.dir, 'CHANGELOG.md'), '# Changelog\n');
    const allowed = await gate(['--host', 'kiro', '--no-store'], undefined, ws.dir);
    assert.equal(allowed.code, 0, allowed.err);
    assert.match(allowed.out, /every CRITICAL criterion passes/);
  });

  it('Cline TaskComplete (runs after the task completed): reports the reason, never claims to cancel, and the LOG says nothing was held', async () => {
    const ws = workspace();
    const blocked = await gate(['--no-store', '--workspace', ws.dir], payload('cline-task-complete.json', ws.dir));
    assert.equal(blocked.code, 0, blocked.err);
    const answer = JSON.parse(blocked.out);
    assert.equal(answer.cancel, false, 'told Cline by the payload’s shape, without --host; a cancel could not hold a completed task');
    assert.match(answer.contextModification, /needs: CHANGELOG\.md exists/);
    assert.match(fs.readFileSync(ws.prd, 'utf8'), /\(Cline TaskComplete, session [0-9a-f]{8}\), which .*; Cline does not read the answer .*nothing was held/);
    fs.writeFileSync(path.join(ws.dir, 'CHANGELOG.md'), '# Changelog\n');
    const allowed = await gate(['--no-store', '--workspace', ws.dir], payload('cline-task-complete.json', ws.dir));
    assert.equal(JSON.parse(allowed.out).cancel, false);
  });

  it('SubagentStop blocks with top-level decision and reason (Claude Code and VS Code alike)', async () => {
    const ws = workspace();
    const r = await gate(['--no-store', '--workspace', ws.dir], payload('claude-code-subagent-stop.json', ws.dir));
    const answer = JSON.parse(r.out);
    assert.equal(answer.decision, 'block');
    assert.match(answer.reason, /ISC-1/);
    const v = await gate(['--host', 'vscode', '--no-store', '--workspace', ws.dir], payload('vscode-stop.json', ws.dir, { hookEventName: 'SubagentStop' }));
    assert.equal(JSON.parse(v.out).decision, 'block');
  });

  it('loop guard: after --max-blocks blocks in a row it lets the agent stop with a warning; stop_hook_active false starts a new count', async () => {
    const ws = workspace();
    const stop = (active: boolean) => gate(['--host', 'claude-code', '--max-blocks', '2', '--no-store', '--no-log', '--workspace', ws.dir], payload('claude-code-stop.json', ws.dir, { stop_hook_active: active }));
    assert.match(JSON.parse((await stop(false)).out).reason, /block 1 of 2/);
    assert.match(JSON.parse((await stop(true)).out).reason, /block 2 of 2/);
    const third = JSON.parse((await stop(true)).out);
    assert.equal(third.decision, undefined, 'the third stop goes through');
    assert.match(third.systemMessage, /ISC-1[\s\S]*kept working 2 times in a row \(--max-blocks 2\) and may stop now, with this not done/);
    assert.match(JSON.parse((await stop(false)).out).reason, /block 1 of 2/, 'a new turn is gated again');
    // The counter lives beside the lock in the user's state folder, not in the workspace an agent edits.
    assert.equal(fs.existsSync(path.join(ws.dir, '.ideal-state', 'gate-state.json')), false);
    const state = JSON.parse(fs.readFileSync(await gateStateFile(ws.dir, { IDEAL_STATE_STATE_DIR: STATE }), 'utf8'));
    assert.deepEqual(Object.keys(state.sessions), ['claude-code:abc123:']);
    assert.equal(PRD, fs.readFileSync(ws.prd, 'utf8'), '--no-log leaves the PRD alone');
  });

  it('a command the allow-list does not name is not run: its criterion is UNKNOWN and the reason says where to allow it', async () => {
    const ws = workspace(PRD.replace('- [ ] ISC-3: The source file exists | Verify: Read: src/app.js', '- [ ] ISC-3: The tests pass | Verify: CLI: node -e "process.exit(0)"'));
    fs.writeFileSync(path.join(ws.dir, 'CHANGELOG.md'), '# Changelog\n');
    const r = await gate(['--host', 'claude-code', '--no-store', '--workspace', ws.dir], payload('claude-code-stop.json', ws.dir));
    const reason = JSON.parse(r.out).reason as string;
    assert.match(reason, /- ISC-3 UNKNOWN/);
    assert.match(reason, /Commands not run, so their criteria are UNKNOWN \(the user allows them in \.ideal-state\/verify-commands\.yaml\):\n- node -e "process\.exit\(0\)"/);
    fs.writeFileSync(path.join(ws.dir, '.ideal-state', 'verify-commands.yaml'), 'commands:\n  - node -e "process.exit(0)"\n');
    const allowed = await gate(['--host', 'claude-code', '--no-store', '--workspace', ws.dir], payload('claude-code-stop.json', ws.dir));
    assert.equal(JSON.parse(allowed.out).decision, undefined, allowed.out);
  });

  it('a broken PRD blocks with its problems at their lines; no PRD at all lets the agent stop', async () => {
    const ws = workspace(PRD.replace('- [ ] ISC-3: The source file exists | Verify: Read: src/app.js', '- [ ] ISC-1: A second criterion with the same id | Verify: Read: x'));
    const r = await gate(['--host', 'claude-code', '--no-store', '--workspace', ws.dir], payload('claude-code-stop.json', ws.dir));
    const reason = JSON.parse(r.out).reason as string;
    assert.match(reason, /^Ideal State: \.ideal-state\/prds\/PRD-20261124-gate\.md \(held: the newest unfinished PRD with criteria \(no lock, no session baseline\)\) has 1 error; fix it before verifying\n/);
    assert.match(reason, /- \.ideal-state\/prds\/PRD-20261124-gate\.md:16:7: error: ISC-1 is used by an earlier criterion/);

    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-gate-empty-'));
    const none = await gate(['--host', 'claude-code', '--no-store', '--workspace', empty], payload('claude-code-stop.json', empty));
    assert.equal(none.code, 0);
    assert.match(JSON.parse(none.out).systemMessage, /no open PRD with criteria in .* and nothing locked; nothing to verify/);
  });

  it('finds the workspace above a hook started in a subfolder, the PRD folder from the editor setting, or the PRD named with --prd', async () => {
    const ws = workspace();
    fs.mkdirSync(path.join(ws.dir, '.vscode'));
    fs.mkdirSync(path.join(ws.dir, 'specs'));
    fs.writeFileSync(path.join(ws.dir, '.vscode', 'settings.json'), '{\n  // PRDs live with the specs\n  "idealState.prd.folder": "specs",\n}\n');
    fs.writeFileSync(path.join(ws.dir, 'specs', 'PRD-other.md'), PRD.replace('Read: CHANGELOG.md', 'Read: NEWS.md').replace('CHANGELOG.md', 'NEWS.md'));
    // A host that starts the hook in a subfolder (and says nothing else): the workspace is found above it.
    const fromSubfolder = await gate(['--host', 'claude-code', '--no-store', '--no-log'], payload('claude-code-stop.json', os.tmpdir()), path.join(ws.dir, 'src'));
    assert.match(JSON.parse(fromSubfolder.out).reason, /of specs\/PRD-other\.md \(held: [^\n]*\) does not pass: ISC-1\.\n- ISC-1 FAIL \[REQUIREMENT_COVERAGE\]: NEWS\.md does not exist/);
    const named = await gate(['--host', 'claude-code', '--no-store', '--no-log', '--prd', '.ideal-state/prds/PRD-20261124-gate.md', '--workspace', ws.dir], payload('claude-code-stop.json', ws.dir, { session_id: 'other' }));
    assert.match(JSON.parse(named.out).reason, /of \.ideal-state\/prds\/PRD-20261124-gate\.md \(held: named by the gate hook \(--prd\) \(no lock, no session baseline\)\) does not pass/);
    assert.doesNotMatch(JSON.parse(named.out).reason, /PRD-other/, 'with nothing locked, --prd names the one PRD held');
  });

  it('refuses a payload it cannot read, with exit 2 (a non-blocking error for every host)', async () => {
    const r = await gate(['--host', 'claude-code'], '{not json');
    assert.equal(r.code, 2);
    assert.match(r.err, /the hook payload on stdin is not JSON/);
    const unknown = await gate([], '{"event":"x"}');
    assert.match(unknown.err, /pass --host [a-z|-]*claude-code[a-z|-]*/);
  });
});
