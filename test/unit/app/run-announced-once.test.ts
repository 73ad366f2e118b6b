import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { denyAll } from '../../../src/agent/approvals';
import type { StepCommit } from '../../../src/algorithm/ports';
import { WaitingTime } from '../../../src/algorithm/budget-tracker';
import { nodeAlgorithm } from '../../../src/app/node-run';
import { RunSessions, type RunDelta } from '../../../src/app/run-sessions';
import { WindowRun, type RunProgress } from '../../../src/app/window-run';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { Store } from '../../../src/store/store';
import { levelMin, managerSteps, markerCriteria, markerFile, scriptedRouter, specialistSteps, tempDir } from '../support/algorithm-helpers';

describe('a run of this window announces each commit once', () => {
  it('tells every durable commit once, as its step, and the end once; the live view is asked for, never told', async function () {
    this.timeout(60_000);
    const n = levelMin('FAST');
    const store = await Store.open({ file: path.join(tempDir('once-store'), 'db.sqlite'), checkpointIdleMs: 60_000 });
    try {
      const { router } = scriptedRouter([...managerSteps(markerCriteria(n)), ...specialistSteps('out.txt', markerFile(n))]);
      const sessions = new RunSessions(async () => store);
      const deltas: RunDelta[] = [];
      sessions.onDelta((d) => deltas.push(d));
      const started: string[] = [];
      const run = new WindowRun(sessions, { restate: () => undefined, cancel: () => undefined }, { maxIterations: 3, model: 'scripted: once', onStarted: (id) => started.push(id) });
      const commits: StepCommit[] = [];
      /** How many deltas each commit caused: a second announcement of a commit makes one of these 2. */
      const toldPerCommit: number[] = [];
      const seen: RunProgress[] = [];
      const built = await nodeAlgorithm({
        workspace: tempDir('once-ws'),
        store,
        models: router,
        effort: shippedEffortTable(),
        approver: denyAll,
        autoApproveEdits: true,
        allowCommands: [],
        learning: false,
        verifyTimeoutMs: 20_000,
        // The ports the editor's RunService gives the engine: commits go to the run, events only to the log.
        onCommit: (commit) => {
          const before = deltas.length;
          run.commit(commit);
          commits.push(commit);
          // Asking for the run as of now (the status bar, the progress notification) tells no one.
          const now = run.progress();
          if (now) seen.push(now);
          toldPerCommit.push(deltas.length - before);
        },
        onEvent: () => undefined,
      });
      const result = await built.engine.start({ request: `Write out.txt with ${n} marker lines`, effort: 'FAST' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      const runId = result.run.id;

      assert.ok(commits.length > 5, `the run committed each transition (${commits.length})`);
      assert.deepEqual(toldPerCommit, commits.map(() => 1), 'one delta per commit');
      const steps = deltas.flatMap((d) => (d.kind === 'step' ? [d] : []));
      assert.equal(steps.length, commits.length);
      steps.forEach((step, i) => {
        assert.equal(step.run, commits[i]!.run, `step ${i} is commit ${i}`);
        assert.equal(step.events, commits[i]!.events);
        assert.equal(step.subRun, undefined, 'a run of the run service is not a sub-run');
      });
      const told = steps.flatMap((s) => s.events.map((e) => e.seq));
      assert.deepEqual(told, store.events.where('run_id = ?', [runId], 'seq').map((e) => e.seq), 'every stored event told once, in order');
      assert.deepEqual(started, [runId], 'the run’s id is given once, at its first commit');

      // The live view: the last commit's run, rows with the last report's outcomes, the level's limit and the model.
      const last = seen[seen.length - 1]!;
      assert.equal(seen.length, commits.length);
      assert.equal(last.state, 'COMPLETE');
      assert.equal(last.maxIterations, 3);
      assert.equal(last.model, 'scripted: once');
      assert.deepEqual(last.criteria.map((c) => c.outcome), Array.from({ length: n }, () => 'PASS'));

      run.end(result.state);
      run.end(result.state);
      assert.deepEqual(deltas.slice(steps.length), [{ kind: 'ended', runId, state: 'COMPLETE' }], 'the end told once, even if said twice');
      assert.equal(sessions.isLive(runId), false);
    } finally {
      store.close();
    }
  });

  it('marks a loop’s sub-run in its steps and its end, so the views that follow a person’s runs can leave it to its loop', async () => {
    const store = await Store.open({ file: path.join(tempDir('once-sub'), 'db.sqlite'), checkpointIdleMs: 60_000 });
    try {
      const sessions = new RunSessions(async () => store);
      const deltas: RunDelta[] = [];
      sessions.onDelta((d) => deltas.push(d));
      const at = new Date().toISOString();
      const runOf = (id: string) => ({ id, request: 'r', effort: 'FAST' as const, state: 'RUNNING' as const, phase: 'OBSERVE' as const, iteration: 0, criteriaVersion: 0, createdAt: at, updatedAt: at, budgetSeconds: 60, elapsedMs: 0 });
      sessions.begin('run-sub', { restate: () => undefined, cancel: () => undefined, subRun: true });
      sessions.begin('run-own', { restate: () => undefined, cancel: () => undefined });
      sessions.step({ run: runOf('run-sub'), events: [] });
      sessions.step({ run: runOf('run-own'), events: [] });
      sessions.end('run-sub', 'COMPLETE');
      sessions.end('run-own', 'COMPLETE');
      assert.deepEqual(
        deltas.map((d) => [d.kind, 'runId' in d ? d.runId : '', 'subRun' in d ? d.subRun : undefined]),
        [
          ['step', 'run-sub', true],
          ['step', 'run-own', undefined],
          ['ended', 'run-sub', true],
          ['ended', 'run-own', undefined],
        ],
      );
    } finally {
      store.close();
    }
  });

  it('works a resumed run’s budget out as of now: its elapsed time goes on from the committed resume, a wait for a person left out', async () => {
    const store = await Store.open({ file: path.join(tempDir('once-budget'), 'db.sqlite'), checkpointIdleMs: 60_000 });
    try {
      const sessions = new RunSessions(async () => store);
      let now = 1_000_000;
      const waiting = new WaitingTime({ now: () => new Date(now) });
      const at = new Date().toISOString();
      const row = { id: 'run-resumed', request: 'r', effort: 'FAST' as const, state: 'CANCELLED' as const, phase: 'BUILD' as const, iteration: 1, criteriaVersion: 1, createdAt: at, updatedAt: at, budgetSeconds: 100, elapsedMs: 20_000, waitedMs: 5_000 };
      const started: string[] = [];
      const run = new WindowRun(sessions, { restate: () => undefined, cancel: () => undefined }, { maxIterations: null, model: 'm', resumed: { run: row, criteria: [] }, now: () => now, onStarted: (id) => started.push(id) });
      run.waiting = waiting;
      assert.equal(run.progress(), undefined, 'nothing to show before the engine commits the resume');
      run.commit({ run: { ...row, state: 'RUNNING', elapsedMs: 30_000 }, events: [] });
      run.commit({ run: { ...row, state: 'RUNNING', elapsedMs: 30_000 }, events: [] });
      // The progress notification follows a resumed run and its Cancel cancels that run only.
      assert.deepEqual(started, ['run-resumed'], 'whoever resumed the run learns its id once, at the first commit');
      now += 10_000;
      const done = waiting.begin('approval');
      now += 4_000;
      const asked = run.progress()!;
      assert.deepEqual(asked.budget, { seconds: 100, elapsedMs: 40_000, percent: 40, waitedMs: 9_000, waitingMs: 4_000, waitingFor: 'approval' });
      done();
      now += 1_000;
      assert.deepEqual(run.progress()!.budget, { seconds: 100, elapsedMs: 41_000, percent: 41, waitedMs: 9_000 });
      assert.equal(run.progress()!.maxIterations, null);
    } finally {
      store.close();
    }
  });
});
