import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chooseSessionPrd, lockCriteria, prdStandings, promptNames, readLock, standingOf } from '../../../../src/app/gate';
import { claudePrompt, claudeStop, decision, DEMO_PRD, runGate, stateDir } from '../../support/gate-lock-helpers';
import { REPO_ROOT } from '../../support/repo-root';

const SAMPLE = path.resolve(REPO_ROOT, 'test/fixtures/sample-workspace');
const PRDS = '.ideal-state/prds';
const GREETING = `${PRDS}/PRD-20261121-greeting.md`;
const VERIFICATION = `${PRDS}/PRD-20261122-verification-demo.md`;

/** The whole sample workspace, every PRD in it: old ones fail (a Custom criterion no model judges, a deliberately failing demo). */
function sampleWorkspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-held-'));
  fs.cpSync(SAMPLE, dir, { recursive: true });
  return dir;
}

/** Sets a PRD's modification time, so "newest" is what the test says and not the copy's order. */
function touch(ws: string, relative: string, minutesAgo: number): void {
  const when = new Date(Date.now() - minutesAgo * 60_000);
  fs.utimesSync(path.join(ws, relative), when, when);
}

const EASY_PRD = `---
prd: true
id: PRD-20261128-easy
status: CRITERIA_DEFINED
---

# Easy

## Ideal State Criteria

- [ ] ISC-1: The greeting module exists in the source folder | Verify: Read: src/greet.js
`;

describe('which PRD holds an agent where nothing is locked: the session’s, not every PRD in the folder', function () {
  this.timeout(120_000);
  const gate = (ws: string, state: string, stdin: string, extra: string[] = []) => runGate(['--host', 'claude-code', '--no-store', '--no-log', '--workspace', ws, ...extra], stdin, { state });

  it('the README’s example in the sample workspace: the prompt names ISC-DEMO-004, the fix is let through at the first stop', async () => {
    const ws = sampleWorkspace();
    const state = stateDir();
    // The greeting PRD is the newest file: without the prompt's id it would be the session's PRD.
    touch(ws, GREETING, 0);
    await gate(ws, state, claudePrompt(ws, 'Make ISC-DEMO-004 of the verify demo pass.'));
    const baseline = await readLock(ws, 'baseline', { IDEAL_STATE_STATE_DIR: state });
    assert.deepEqual(baseline.ok && baseline.record?.prds.map((p) => p.path), [DEMO_PRD]);

    const before = decision(await gate(ws, state, claudeStop(ws)));
    assert.equal(before.blocked, true, before.text);
    assert.match(before.text, /ISC-DEMO-004/);
    assert.match(before.text, /held: the PRD the person's prompt names \(ISC-DEMO-004\), as when the person last spoke/);
    assert.doesNotMatch(before.text, /PRD-20261121-greeting|verification-demo/, 'the old PRDs are not held');

    fs.writeFileSync(path.join(ws, 'CHANGELOG.md'), '# Changelog\n\n## 0.1.0\n\n- First release.\n');
    const after = decision(await gate(ws, state, claudeStop(ws, { stop_hook_active: true })));
    assert.equal(after.blocked, false, after.text);
    assert.match(after.text, new RegExp(`${DEMO_PRD.replace(/\./g, '\\.')} \\(held: the PRD the person's prompt names`), 'the answer names the PRD held and why');
  });

  it('with no id in the prompt, the newest unfinished PRD as the person spoke; one the agent writes later is never it', async () => {
    const ws = sampleWorkspace();
    const state = stateDir();
    touch(ws, GREETING, 30);
    touch(ws, VERIFICATION, 20);
    touch(ws, DEMO_PRD, 10);
    await gate(ws, state, claudePrompt(ws, 'Add a changelog.'));
    fs.writeFileSync(path.join(ws, PRDS, 'PRD-20261128-easy.md'), EASY_PRD);
    const stop = decision(await gate(ws, state, claudeStop(ws)));
    assert.equal(stop.blocked, true, stop.text);
    assert.match(stop.text, /PRD-20261122-verify-demo\.md \(held: the newest unfinished PRD with criteria, as when the person last spoke\)/);
    assert.doesNotMatch(stop.text, /easy/);
  });

  it('a finished PRD (status COMPLETE) is passed over; the newest open one is held', async () => {
    const ws = sampleWorkspace();
    const state = stateDir();
    const demo = path.join(ws, DEMO_PRD);
    fs.writeFileSync(demo, fs.readFileSync(demo, 'utf8').replace('status: CRITERIA_DEFINED', 'status: COMPLETE'));
    touch(ws, GREETING, 30);
    touch(ws, VERIFICATION, 20);
    touch(ws, DEMO_PRD, 10);
    // No prompt hook ever ran: the gate chooses at the stop.
    const stop = decision(await gate(ws, state, claudeStop(ws)));
    assert.match(stop.text, /PRD-20261122-verification-demo\.md \(held: the newest unfinished PRD with criteria \(no lock, no session baseline\)\)/);
    assert.doesNotMatch(stop.text, /verify-demo\.md/);
  });

  it('the workspace setting names the PRD when the person speaks; the agent writing it afterwards changes nothing', async () => {
    const ws = sampleWorkspace();
    const state = stateDir();
    fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'idealState.gate.prd': DEMO_PRD }));
    await gate(ws, state, claudePrompt(ws, 'Add a changelog.'));
    fs.writeFileSync(path.join(ws, PRDS, 'PRD-20261128-easy.md'), EASY_PRD);
    fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'idealState.gate.prd': `${PRDS}/PRD-20261128-easy.md` }));
    const stop = decision(await gate(ws, state, claudeStop(ws)));
    assert.equal(stop.blocked, true, stop.text);
    assert.match(stop.text, /verify-demo\.md \(held: named by the workspace setting idealState\.gate\.prd, as when the person last spoke\)/);
  });

  it('--prd on the hook holds that PRD, compared with the baseline where it has it', async () => {
    const ws = sampleWorkspace();
    const state = stateDir();
    await gate(ws, state, claudePrompt(ws, 'Work on the verify demo.'), ['--prd', DEMO_PRD]);
    const demo = path.join(ws, DEMO_PRD);
    fs.writeFileSync(demo, fs.readFileSync(demo, 'utf8').replace(/^- \[ \] ISC-DEMO-004:.*\n/m, ''));
    const stop = decision(await gate(ws, state, claudeStop(ws), ['--prd', DEMO_PRD]));
    assert.equal(stop.blocked, true, stop.text);
    assert.match(stop.text, /ISC-DEMO-004 TAMPERED/);
    assert.match(stop.text, /held: named by the gate hook \(--prd\)/);
  });

  it('a lock holds exactly the PRDs a person locked, and the answer says who locked them', async () => {
    const ws = sampleWorkspace();
    const state = stateDir();
    await lockCriteria(ws, { files: [DEMO_PRD], by: 'ana', how: 'terminal', now: new Date('2026-11-28T10:00:00Z'), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    const stop = decision(await gate(ws, state, claudeStop(ws)));
    assert.equal(stop.blocked, true, stop.text);
    assert.match(stop.text, /held: locked by ana on 2026-11-28, criteria version 1/);
    assert.doesNotMatch(stop.text, /PRD-20261121-greeting|verification-demo/);
  });
});

describe('what a PRD says of itself, and what a prompt names', () => {
  it('finished: COMPLETE or ARCHIVED status, or an ISA at phase: complete with every claim checked', () => {
    const prd = (status: string) => `---\nprd: true\nid: PRD-1\nstatus: ${status}\n---\n\n# T\n\n## Ideal State Criteria\n\n- [ ] ISC-1: A thing exists in the workspace folder | Verify: Read: a\n`;
    assert.equal(standingOf(prd('COMPLETE'), 'PRD-1.md').finished, 'status: COMPLETE');
    assert.equal(standingOf(prd('ARCHIVED'), 'PRD-1.md').finished, 'status: ARCHIVED');
    assert.equal(standingOf(prd('IN_PROGRESS'), 'PRD-1.md').finished, undefined);
    assert.deepEqual(standingOf(prd('COMPLETE'), 'PRD-1.md').criterionIds, ['ISC-1']);
  });

  it('a prompt names a PRD by a criterion id only one PRD has, its id, or its file name; a shared id names both (and so chooses neither)', () => {
    const standings = [
      { file: '/w/a.md', relative: 'p/PRD-a.md', mtimeMs: 2, id: 'PRD-20261128-a', criterionIds: ['ISC-1', 'ISC-DEMO-004'] },
      { file: '/w/b.md', relative: 'p/PRD-b.md', mtimeMs: 1, id: 'PRD-20261127-b', criterionIds: ['ISC-1', 'ISC-B-2'] },
    ];
    assert.deepEqual(promptNames('Make ISC-DEMO-004 pass.', standings), [{ relative: 'p/PRD-a.md', by: 'ISC-DEMO-004' }]);
    assert.deepEqual(promptNames('Finish PRD-20261127-b, please', standings), [{ relative: 'p/PRD-b.md', by: 'PRD-20261127-b' }]);
    assert.deepEqual(promptNames('see PRD-b.md', standings), [{ relative: 'p/PRD-b.md', by: 'PRD-b.md' }]);
    assert.equal(promptNames('Make ISC-1 pass', standings).length, 2, 'an id both PRDs have names both: the newest open one is chosen instead');
  });
});

describe('Copilot CLI gets its session baseline from its own prompt hook', function () {
  this.timeout(60_000);

  it('userPromptSubmitted (timestamp, cwd, prompt) records the baseline; deleting the failing criterion afterwards is TAMPERED', async () => {
    const ws = sampleWorkspace();
    const state = stateDir();
    const copilot = (stdin: string, extra: string[] = []) => runGate(['--host', 'copilot', '--no-store', '--no-log', '--workspace', ws, ...extra], stdin, { state });
    // https://docs.github.com/en/copilot/reference/hooks-configuration, "User prompt submitted hook".
    const prompt = await copilot(JSON.stringify({ timestamp: 1764316800000, cwd: ws, prompt: 'Make ISC-DEMO-004 pass.' }), ['--prompt']);
    assert.deepEqual([prompt.code, prompt.out], [0, ''], prompt.err);
    const demo = path.join(ws, DEMO_PRD);
    fs.writeFileSync(demo, fs.readFileSync(demo, 'utf8').replace(/^- \[ \] ISC-DEMO-004:.*\n/m, ''));
    const stop = await copilot(JSON.stringify({ timestamp: 1764316860000, cwd: ws, sessionId: 's-1' }));
    const answer = JSON.parse(stop.out) as { decision?: string; reason?: string };
    assert.equal(answer.decision, 'block', stop.out);
    assert.match(answer.reason ?? '', /ISC-DEMO-004 TAMPERED: ISC-DEMO-004 was removed since the person last spoke/);
  });
});

describe('the newest PRD of a fresh copy', () => {
  it('files written within the same second: the latest dated name is the newest, whatever order the copy wrote them in', async () => {
    const ws = sampleWorkspace();
    const now = Math.floor(Date.now() / 1000) * 1000;
    // The copy wrote the verify demo first and the greeting last, within one second.
    for (const [file, ms] of [[DEMO_PRD, 100], [VERIFICATION, 200], [GREETING, 900]] as const) fs.utimesSync(path.join(ws, file), new Date(now + ms), new Date(now + ms));
    const standings = await prdStandings(ws);
    assert.deepEqual(standings.map((s) => s.relative), [DEMO_PRD, VERIFICATION, GREETING]);
    assert.equal((await chooseSessionPrd(ws))?.relative, DEMO_PRD);
  });
});
