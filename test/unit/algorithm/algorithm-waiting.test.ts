import * as assert from 'node:assert/strict';
import { ApprovalPolicy, type Approver } from '../../../src/agent/approvals';
import { BudgetTracker, WaitingTime } from '../../../src/algorithm/budget-tracker';
import { NodeDeadline } from '../../../src/algorithm/node-budget';
import { describeProgress, describeWait } from '../../../src/vscode/run/progress-text';
import { answerOffers, type LearnedCriterion } from '../../../src/learning/memory';
import type { LearningService } from '../../../src/learning/service';
import type { RunLearning } from '../../../src/algorithm/ports';
import { LEARNED_QUESTION, runLearning } from '../../../src/algorithm/run-learning';
import { harness, levelMin, managerSteps, markerCriteria, markerFile, specialistSteps } from '../support/algorithm-helpers';

/** A clock that moves only when told. */
function fakeClock(start = Date.parse('2026-11-24T10:00:00.000Z')) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

describe('waiting for a person is not the run spending its budget', () => {
  it('a wait counts once however many approvals overlap, and a wait under way counts as it goes', () => {
    const clock = fakeClock();
    const waits = new WaitingTime(clock);
    assert.equal(waits.waitingMs(), undefined);
    const first = waits.begin();
    clock.advance(10_000);
    const second = waits.begin();
    clock.advance(20_000);
    first();
    first();
    assert.equal(waits.waitingMs(), 30_000, 'still waiting for the second');
    clock.advance(5_000);
    second();
    assert.equal(waits.waitingMs(), undefined);
    assert.equal(waits.waitedMs(), 35_000);
    clock.advance(60_000);
    assert.equal(waits.waitedMs(), 35_000, 'time after the answer is not waiting');
  });

  it('the budget tracker leaves the wait out of elapsed time and percent, and keeps it apart', () => {
    const clock = fakeClock();
    const waits = new WaitingTime(clock);
    // Resumed: 20 s spent and 5 s waited before.
    const tracker = new BudgetTracker(120, 150, clock, 20_000, waits, 5_000);
    clock.advance(10_000);
    const done = waits.begin();
    clock.advance(150_000);
    assert.equal(tracker.elapsedMs(), 30_000, 'a 2.5 min wait under way does not count');
    done();
    clock.advance(6_000);
    assert.equal(tracker.elapsedMs(), 36_000);
    assert.equal(tracker.percent(), 30);
    assert.equal(tracker.shouldCompress(), false);
    assert.equal(tracker.waitedMs(), 155_000);
  });

  it('the approval policy times how long the person took, and only that', async () => {
    const clock = fakeClock();
    const person: Approver = {
      ask: async () => {
        clock.advance(150_000);
        return 'approve';
      },
    };
    const policy = new ApprovalPolicy(person, { trusted: true, allowCommands: ['npm test'] }, undefined, new WaitingTime(clock));
    assert.equal(await policy.approve({ kind: 'command', title: 'Run npm test', detail: 'npm test', command: 'npm test' }, new AbortController().signal), true);
    assert.equal(policy.waiting.waitedMs(), 0, 'an allow-listed command asks no one');
    assert.equal(await policy.approve({ kind: 'edit', title: 'Edit a.js', detail: '+1' }, new AbortController().signal), true);
    assert.equal(policy.waiting.waitedMs(), 150_000);
    assert.equal(policy.waiting.waitingMs(), undefined);
  });

  it("a node's deadline does not pass while a person is being waited for, and moves on by the wait", async function () {
    this.timeout(10_000);
    const waits = new WaitingTime();
    const tracker = new BudgetTracker(1, 150, { now: () => new Date() }, 0, waits);
    const done = waits.begin();
    const deadline = new NodeDeadline('EXECUTE', { budget: 0, role: 'specialist' }, tracker, new AbortController().signal, 30);
    try {
      // Far past its 30 ms, with the wait still open: never up, whatever the machine's speed.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(deadline.timeUp(), false);
      done();
      // After the answer the node has its 30 ms again, and then its time is up.
      while (!deadline.timeUp()) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(deadline.cut(), true);
    } finally {
      deadline.dispose();
    }
  });

  it('a run that waited 2.5 min for a person stores that apart and does not spend its budget on it', async function () {
    this.timeout(60_000);
    let offset = 0;
    const clock = { now: () => new Date(Date.now() + offset) };
    // The person takes 150 s (the clock jumps) to approve the edit: longer than STANDARD's whole budget.
    const person: Approver = {
      ask: async () => {
        offset += 150_000;
        return 'approve';
      },
    };
    const n = levelMin('STANDARD');
    const h = await harness([...managerSteps(markerCriteria(n)), ...specialistSteps('out.txt', markerFile(n))], { approver: person, autoApproveEdits: false, clock });
    try {
      const result = await h.engine.start({ request: 'Write the markers into out.txt', effort: 'STANDARD' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.ok((result.run.waitedMs ?? 0) >= 150_000, `waited ${result.run.waitedMs}`);
      assert.ok(result.run.elapsedMs < 60_000, `elapsed ${result.run.elapsedMs} ms should leave the 150 s wait out`);
      assert.deepEqual(h.events.filter((e) => e.kind === 'budget').map((e) => e.message), [], 'no compressing for time a person took');
      assert.deepEqual(h.store.runs.get(result.run.id)!.waitedMs, result.run.waitedMs, 'stored on the run, for a reload or resume');
    } finally {
      h.close();
    }
  });
});

describe("a run's progress while it waits", () => {
  const change = (budget: { percent: number; waitedMs: number; waitingMs?: number }) => ({ phase: 'EXECUTE' as const, iteration: 1, maxIterations: 3, budget: { seconds: 120, elapsedMs: 0, ...budget } });

  it('says "waiting for approval" with how long, beside a percent that leaves the wait out', () => {
    assert.equal(describeProgress(change({ percent: 47, waitedMs: 0 })), 'EXECUTE 1/3 · 47%');
    assert.equal(describeProgress(change({ percent: 47, waitedMs: 150_000, waitingMs: 150_000 })), 'EXECUTE 1/3 · 47% · waiting for approval 2 min 30 s');
    assert.deepEqual([describeWait(42_900), describeWait(120_000), describeWait(3_900_000)], ['42 s', '2 min', '1 h 5 min']);
  });
});

describe('a question the run asks is waiting time too (issue 28 §1)', () => {
  const offer = (text: string): LearnedCriterion => ({ text, provenance: { kind: 'past-run', runId: 'run-past01', rating: 3, similarity: 0.8, why: 'unproven', criterionId: 'ISC-5' } } as unknown as LearnedCriterion);
  /** The LearningService's part runLearning uses: one learned offer, no reflection (STANDARD would write one). */
  const service = (offers: LearnedCriterion[]) => ({ memoryFor: () => offers, reflectAfterRun: async () => undefined, finishedRuns: () => [] }) as unknown as LearningService;

  it('a run whose person reads the learned-criteria pick for 2.5 min does not spend its budget on it, and shows it as waiting', async function () {
    this.timeout(60_000);
    let offset = 0;
    const clock = { now: () => new Date(Date.now() + offset) };
    const seen: (string | undefined)[] = [];
    let waits: WaitingTime | undefined;
    const learning = runLearning(service([offer('farewell trims spaces around the name')]), {
      chooseLearned: async () => {
        offset += 150_000;
        seen.push(waits?.waitingFor());
        return [];
      },
    });
    // The engine's own WaitingTime: capture it through the asking port it passes on.
    const spy: RunLearning = { ...learning, memoryFor: (request, signal, asking) => ((waits = asking as WaitingTime), learning.memoryFor(request, signal, asking)) };
    const n = levelMin('STANDARD');
    const h = await harness([...managerSteps(markerCriteria(n)), ...specialistSteps('out.txt', markerFile(n))], { clock, learning: spy });
    try {
      const result = await h.engine.start({ request: 'Write the markers into out.txt', effort: 'STANDARD' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.ok((result.run.waitedMs ?? 0) >= 150_000, `waited ${result.run.waitedMs}`);
      assert.ok(result.run.elapsedMs < 60_000, `elapsed ${result.run.elapsedMs} ms should leave the 150 s of reading out`);
      assert.deepEqual(seen, [LEARNED_QUESTION], 'while the pick is open the run says what it waits for');
      assert.equal(describeProgress({ phase: 'OBSERVE', iteration: 1, maxIterations: 2, budget: { seconds: 120, elapsedMs: 0, percent: 3, waitedMs: 1000, waitingMs: 12_000, waitingFor: LEARNED_QUESTION } }), 'OBSERVE 1/2 · 3% · waiting for your answer: keep learned criteria? 12 s');
    } finally {
      h.close();
    }
  });

  it('a pick closed without an answer keeps the offers, and the run says it took the default', async () => {
    const offers = await answerOffers([offer('a')], async () => undefined, new AbortController().signal);
    assert.deepEqual(offers.map((o) => o.answer), ['unanswered']);
  });
});
