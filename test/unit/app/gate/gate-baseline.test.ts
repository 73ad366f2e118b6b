import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { blocksSoFar, lockCriteria, readLock, recordVerdict } from '../../../../src/app/gate';
import { claudePrompt, claudeStop, decision, DEMO_PRD, demoWorkspace, edit, runGate, stateDir } from '../../support/gate-lock-helpers';

describe('the session baseline (nothing locked): the criteria as they were when the person last spoke', function () {
  this.timeout(120_000);

  it("UserPromptSubmit records it silently; the agent's changes after it are TAMPERED until the person speaks again", async () => {
    const ws = demoWorkspace();
    const state = stateDir();
    const hook = (stdin: string) => runGate(['--host', 'claude-code', '--no-store', '--no-log', '--workspace', ws], stdin, { state });
    const prompt = await hook(claudePrompt(ws));
    // Claude Code adds a UserPromptSubmit hook's stdout to the model's context: nothing is printed.
    assert.deepEqual([prompt.code, prompt.out], [0, ''], prompt.err);
    const baseline = await readLock(ws, 'baseline', { IDEAL_STATE_STATE_DIR: state });
    assert.equal(baseline.ok && baseline.record?.prds[0]?.path, DEMO_PRD);

    edit(ws, DEMO_PRD, (t) => t.replace(/^- \[ \] ISC-DEMO-004:.*\n/m, ''));
    const stop = decision(await hook(claudeStop(ws)));
    assert.equal(stop.blocked, true, stop.text);
    assert.match(stop.text, /as when the person last spoke\)/);
    assert.match(stop.text, /ISC-DEMO-004 TAMPERED: ISC-DEMO-004 was removed since the person last spoke/);
    assert.match(stop.text, /wait for the person to speak again or approve it/);

    // The person speaks again: what is there now is the baseline, and the gate holds to it.
    await hook(claudePrompt(ws, 'Fine, drop that one.'));
    const after = decision(await hook(claudeStop(ws)));
    assert.doesNotMatch(after.text, /TAMPERED/);
  });

  it('a person’s lock wins over the baseline: a prompt records none where criteria are locked', async () => {
    const ws = demoWorkspace();
    const state = stateDir();
    await lockCriteria(ws, { by: 'a person', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    await runGate(['--host', 'claude-code', '--workspace', ws], claudePrompt(ws), { state });
    const baseline = await readLock(ws, 'baseline', { IDEAL_STATE_STATE_DIR: state });
    assert.equal(baseline.ok && baseline.record, undefined);
  });

  it('the block counter refuses a count over the limit and a time in the future (they read as no blocks)', async () => {
    const file = path.join(stateDir(), 'gate-state.json');
    const now = new Date('2026-11-26T12:00:00Z');
    const warnings: string[] = [];
    await recordVerdict(file, 's', 2, 3, now);
    assert.equal(await blocksSoFar(file, 's', true, 3, now), 2, 'a real count is kept');
    fs.writeFileSync(file, JSON.stringify({ version: 1, sessions: { s: { blocks: 2, updatedAt: '2027-01-01T00:00:00.000Z' }, t: { blocks: 7, updatedAt: now.toISOString() } } }));
    assert.equal(await blocksSoFar(file, 's', true, 3, now, (w) => warnings.push(w)), 0);
    assert.equal(await blocksSoFar(file, 't', true, 3, now), 0);
    assert.match(warnings.join('\n'), /session s: a time in the future \(2027-01-01T00:00:00\.000Z\)/);
    assert.match(warnings.join('\n'), /session t: 7 blocks, over the limit of 3/);
  });

});
