import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { lockCriteria, withBlockedStatus } from '../../../../src/app/gate';
import { runCli } from '../../support/cli-helpers';
import { claudeStop, decision, DEMO_PRD, demoWorkspace, runGate, stateDir } from '../../support/gate-lock-helpers';

/**
 * The honest exit: an agent that cannot make a locked criterion pass without weakening a check
 * says so (`gate blocked`, or the MCP blocked tool) and stops. The stop is let through once, as
 * BLOCKED, never as done: the person is told why, the PRD says BLOCKED, the criteria stay unmet.
 */
describe('the honest exit: "blocked, needs a person" instead of a cheat', function () {
  this.timeout(120_000);
  const stop = (ws: string, state: string, extra: Record<string, unknown> = {}) => runGate(['--host', 'claude-code', '--no-store', '--workspace', ws], claudeStop(ws, extra), { state });

  it('a block names the way out; `gate blocked` lets the next stop through as BLOCKED, once, with the reason for the person', async () => {
    const ws = demoWorkspace();
    const state = stateDir();
    await lockCriteria(ws, { files: [DEMO_PRD], by: 'ana', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    const first = decision(await stop(ws, state));
    assert.equal(first.blocked, true);
    assert.match(first.text, /do not weaken it: say so and stop, and the person is told it is not done: `.+ gate blocked --workspace .+ --reason "what is in the way"` \(or the MCP tool ideal-state_blocked\)/);

    const said = await runCli(['gate', 'blocked', '--workspace', ws, '--reason', 'The changelog needs release notes only the maintainer has', '--tried', 'read the git log'], { env: { IDEAL_STATE_STATE_DIR: state } });
    assert.equal(said.code, 0, said.err);
    assert.match(said.out, /next stop is let through as BLOCKED, not done/);

    const second = decision(await stop(ws, state, { stop_hook_active: true }));
    assert.equal(second.blocked, false, second.text);
    assert.match(second.text, /^Ideal State: the agent stopped without done: it says it is blocked and needs a person: "The changelog needs release notes only the maintainer has" \(tried: read the git log\)\.\nIdeal State: not done\. 1 CRITICAL criterion of .* does not pass: ISC-DEMO-004\./);
    const prd = fs.readFileSync(path.join(ws, DEMO_PRD), 'utf8');
    assert.match(prd, /^status: BLOCKED$/m, 'the PRD says BLOCKED');
    assert.match(prd, /which let the stop through as BLOCKED: the agent said it needs a person \("The changelog needs release notes only the maintainer has"\)/);
    assert.doesNotMatch(prd, /- \[x\] ISC-DEMO-004/, 'never done');

    // Once: the next stop is held again.
    assert.equal(decision(await stop(ws, state, { stop_hook_active: false })).blocked, true);
  });

  it('an exit older than an hour is dropped, not used; a reason is required', async () => {
    const ws = demoWorkspace();
    const state = stateDir();
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000).toISOString();
    const said = await runCli(['gate', 'blocked', '--workspace', ws, '--reason', 'stale'], { env: { IDEAL_STATE_STATE_DIR: state } });
    assert.equal(said.code, 0, said.err);
    const folder = fs.readdirSync(state).map((d) => path.join(state, d)).find((d) => fs.existsSync(path.join(d, 'agent-blocked.json')))!;
    const file = path.join(folder, 'agent-blocked.json');
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), at: old }));
    assert.equal(decision(await stop(ws, state)).blocked, true, 'a stale exit lets nothing through');
    const none = await runCli(['gate', 'blocked', '--workspace', ws], { env: { IDEAL_STATE_STATE_DIR: state } });
    assert.equal(none.code, 2);
    assert.match(none.err, /--reason is required/);
  });

  it('sets the status in the frontmatter, adding it where there is none, and touches nothing else', () => {
    assert.equal(withBlockedStatus('---\nprd: true\nstatus: IN_PROGRESS\n---\n\n# T\nstatus: kept\n'), '---\nprd: true\nstatus: BLOCKED\n---\n\n# T\nstatus: kept\n');
    assert.equal(withBlockedStatus('---\nprd: true\n---\n# T\n'), '---\nprd: true\nstatus: BLOCKED\n---\n# T\n');
    assert.equal(withBlockedStatus('# no frontmatter\n'), '# no frontmatter\n');
  });
});
