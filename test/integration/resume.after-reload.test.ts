import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { RunResult } from '../../src/algorithm/engine';
import { activateIdealState, handoffFile } from './ideal-state';
import { BUILD, dropScripts, EXECUTE, useScript } from './scripted-runs';

// The second launch on the same profile and workspace (a window reload): the run that
// resume.before-reload.test.ts left in the middle of BUILD goes on with "Resume Run".

describe('a run cut off by a window reload (after the reload)', function () {
  this.timeout(60_000);

  after(async () => {
    await dropScripts();
  });

  it('Resume Run continues from the last committed step and finishes, nothing done twice', async () => {
    const { runId } = JSON.parse(fs.readFileSync(handoffFile('run-cut-by-reload.json') /* written by resume.before-reload */, 'utf8')) as { runId: string };
    const api = await activateIdealState();
    let store = await api.store();
    const cut = store.runs.get(runId);
    assert.ok(cut, 'the run is in the store after the reload');
    // The reload ends the extension host: the run either stopped with no word (RUNNING) or
    // its cancellation on deactivation was committed in time (CANCELLED) — both resumable, at BUILD.
    assert.ok(cut.state === 'RUNNING' || cut.state === 'CANCELLED', cut.state);
    assert.equal(cut.phase, 'BUILD');
    const stepsOf = () => store.steps.where('run_id = ?', [runId], 'seq').map((s) => `${s.phase}${s.next ? `→${s.next}` : ' end'}`);
    const before = stepsOf();
    assert.deepEqual(before.slice(0, 3), ['OBSERVE→THINK', 'THINK→PLAN', 'PLAN→BUILD']);
    assert.deepEqual(api.runs.activeRuns(), [], 'nothing is going in the new window');

    // A script that starts at BUILD: a step done again would get an answer that does not fit it.
    await useScript('reload-second', [BUILD, EXECUTE]);
    const result = await vscode.commands.executeCommand<RunResult | undefined>('idealState.resumeRun', runId);
    assert.ok(result);
    assert.equal(result.state, 'COMPLETE', `${result.reason}\n${JSON.stringify(result.report?.results, null, 1)}`);

    store = await api.store();
    assert.deepEqual(stepsOf(), [...before, 'BUILD→EXECUTE', 'EXECUTE→VERIFY', 'VERIFY→LEARN', 'LEARN end']);
    const events = store.events.where('run_id = ?', [runId], 'seq');
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i), 'one event per sequence number');
    assert.deepEqual(['OBSERVE', 'THINK', 'PLAN', 'BUILD'].map((phase) => events.filter((e) => e.kind === 'model' && e.phase === phase).length), [1, 1, 1, 1], 'each manager phase asked once');
    assert.ok(events.some((e) => e.message === 'run resumed at BUILD (iteration 1)'));
    assert.ok(store.criteria.list(runId).every((c) => c.outcome === 'PASS'));
  });
});
