import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lockCriteria } from '../../../../src/app/gate/lock';
import { claudeStop, decision, demoWorkspace, DEMO_PRD, runGate } from '../../support/gate-lock-helpers';

/**
 * The person keeps state in a folder of their own (IDEAL_STATE_STATE_DIR where their host
 * starts) and locked the criteria there. The agent overrides the variable (a host's `env`
 * replaces the one it started with) and adds an easy PRD that passes: the gate refuses the
 * agent's folder, and before this fell back to the default folder, which holds no lock, and let
 * the stop through. It now blocks, says what was refused and what to do.
 */
const EASY_PRD = ['---', 'prd: true', 'id: PRD-20261201-easy', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# Easy', '', '## Ideal State Criteria', '- [ ] ISC-EASY-1: The readme exists | Verify: Read: README.md', ''].join('\n');

const stop = (ws: string) => ['--host', 'claude-code', '--no-store', '--no-log', '--workspace', ws, '--max-blocks', '2'];

/** The workspace with the person's lock in their own folder, then only the easy PRD left open (the demo's gone, as an agent might). */
async function personLockedElsewhere(): Promise<{ ws: string; theirs: string; xdg: string }> {
  const ws = demoWorkspace();
  const theirs = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-their-state-'));
  const xdg = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-xdg-'));
  await lockCriteria(ws, { files: [DEMO_PRD], by: 'a person', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: theirs } });
  fs.writeFileSync(path.join(ws, '.ideal-state', 'prds', 'PRD-20261201-easy.md'), EASY_PRD);
  fs.rmSync(path.join(ws, DEMO_PRD));
  return { ws, theirs, xdg };
}

describe('the gate with a refused state folder variable', function () {
  this.timeout(60_000);

  it('one inside the workspace, which replaced the person\'s own: the stop is blocked, not let through on the default folder; the answer says what was refused and what to do', async () => {
    const { ws, xdg } = await personLockedElsewhere();
    const mine = path.join(ws, '.state');
    const run = await runGate(stop(ws), claudeStop(ws), { state: mine, env: { XDG_STATE_HOME: xdg } });
    const d = decision(run);
    assert.equal(d.blocked, true, run.out + run.err);
    assert.match(d.text, /^Ideal State: not verified against the person's lock: a state folder variable was refused/);
    assert.match(d.text, /refused: IDEAL_STATE_STATE_DIR \(.*\.state\) names a folder inside the workspace/);
    assert.match(d.text, /Remove that variable from the workspace settings/);
    assert.match(run.err, /IDEAL_STATE_STATE_DIR .* names a folder inside the workspace/);
    // Counted as any block: at the limit the stop goes through, with the refusal said to the user.
    const again = claudeStop(ws, { stop_hook_active: true });
    assert.equal(decision(await runGate(stop(ws), again, { state: mine, env: { XDG_STATE_HOME: xdg } })).blocked, true);
    const third = decision(await runGate(stop(ws), again, { state: mine, env: { XDG_STATE_HOME: xdg } }));
    assert.equal(third.blocked, false, third.text);
    assert.match(third.text, /not verified against the person's lock.*\n.*kept working 2 times in a row \(--max-blocks 2\) and may stop now, unverified/);
  });

  it('one outside the workspace that the workspace\'s .claude/settings.local.json sets in its env is refused too, and blocks', async () => {
    const { ws, xdg } = await personLockedElsewhere();
    const agents = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-agent-state-'));
    fs.mkdirSync(path.join(ws, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.claude', 'settings.local.json'), JSON.stringify({ env: { IDEAL_STATE_STATE_DIR: agents } }));
    // With the PRD's LOG written: it says the stop was blocked, never "let the stop through".
    const run = await runGate(stop(ws).filter((a) => a !== '--no-log'), claudeStop(ws), { state: agents, env: { XDG_STATE_HOME: xdg } });
    const d = decision(run);
    assert.equal(d.blocked, true, run.out + run.err);
    const log = fs.readFileSync(path.join(ws, '.ideal-state', 'prds', 'PRD-20261201-easy.md'), 'utf8');
    assert.match(log, /which blocked the stop \(1 of 2\): a state folder variable was refused/, log);
    assert.doesNotMatch(log, /let the stop through/, log);
    assert.match(d.text, /IDEAL_STATE_STATE_DIR \(.*ideal-state-agent-state-.*\) is set by \.claude\/settings\.local\.json in the workspace, which the agent can write/);
  });

  it('an honest run is not blocked: no variable set, or the person\'s own one, and the easy PRD passes', async () => {
    const { ws, theirs, xdg } = await personLockedElsewhere();
    // The person's folder holds the lock of the demo PRD, which the agent removed: that is TAMPERED, as ever.
    const own = decision(await runGate(stop(ws), claudeStop(ws), { state: theirs, env: { XDG_STATE_HOME: xdg } }));
    assert.equal(own.blocked, true, own.text);
    assert.doesNotMatch(own.text, /refused/);
    // A workspace no one locked, no variable: the passing PRD lets the stop through.
    const fresh = demoWorkspace();
    fs.rmSync(path.join(fresh, DEMO_PRD));
    fs.writeFileSync(path.join(fresh, '.ideal-state', 'prds', 'PRD-20261201-easy.md'), EASY_PRD);
    // (an empty IDEAL_STATE_STATE_DIR is no variable: the state goes to XDG_STATE_HOME's folder)
    const honest = await runGate(stop(fresh), claudeStop(fresh), { state: '', env: { XDG_STATE_HOME: xdg } });
    const h = decision(honest);
    assert.equal(h.blocked, false, honest.out + honest.err);
    assert.doesNotMatch(h.text, /refused/);
  });
});
