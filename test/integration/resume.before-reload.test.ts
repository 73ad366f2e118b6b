import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { RunResult } from '../../src/algorithm/engine';
import { activateIdealState, handoffFile } from './ideal-state';
import { OBSERVE, onceRun, said, PLAN, THINK, BUILD, useScript } from './scripted-runs';

// Runs last in the first launch (see index.ts): a run is left in the middle of BUILD's model
// call when the window reloads. resume.after-reload.test.ts resumes it in the second launch.

const RELOAD_HANDOFF = 'run-cut-by-reload.json';

describe('a run going when the window reloads (before the reload)', function () {
  this.timeout(60_000);

  it('is in the middle of BUILD, its steps up to PLAN committed', async () => {
    const api = await activateIdealState();
    // BUILD's answer takes ten minutes: the reload comes first.
    await useScript('reload-first', [OBSERVE, THINK, PLAN, { ...BUILD, delayMs: 600_000 }]);
    const atBuild = new Promise<string>((resolve) => onceRun(api, (c) => said(c, 'PLAN → BUILD'), (c) => resolve(c.runId)));
    // Not awaited: the run is still going when this launch ends.
    void vscode.commands.executeCommand<RunResult | undefined>('idealState.runAlgorithm', { request: 'greet keeps its contract across a reload', effort: 'FAST' });
    const runId = await atBuild;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const store = await api.store();
    assert.equal(store.runs.get(runId)?.state, 'RUNNING');
    assert.equal(store.runs.get(runId)?.phase, 'BUILD');
    assert.ok(api.runs.activeRuns().some((r) => r.runId === runId && r.phase === 'BUILD'));
    fs.writeFileSync(handoffFile(RELOAD_HANDOFF), JSON.stringify({ runId }));
  });
});
