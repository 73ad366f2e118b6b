import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { classifyEffort } from '../../../src/algorithm/effort-classifier';
import { decayedSteps, decideAfterVerify } from '../../../src/algorithm/iteration';
import { shippedPhaseGraph } from '../../../src/algorithm/phase-graph';
import { emptyMemo } from '../../../src/model/algorithm-state';
import { shippedEffortTable } from '../../../src/model/effort-table';
import type { FailureLabel, VerificationReport } from '../../../src/model';
import { BudgetLedger } from '../../../src/llm/budgets';
import { aCriterion } from '../support/builders';
import { stringify } from 'yaml';
import { harness, managerSteps, markerCriteria, markerFile, specialistSteps, tempDir, type Step } from '../support/algorithm-helpers';

function failing(label: FailureLabel, id = 'ISC-1'): VerificationReport {
  return { id: 'r', runId: 'run-x', iteration: 1, criteriaVersion: 1, passed: false, summary: '', createdAt: '2026-11-01T10:00:00.000Z', results: [{ criterionId: id, outcome: 'FAIL', evidence: 'no', durationMs: 1, failureLabel: label, locations: [] }] };
}

describe('algorithm: iteration, budgets and fail-closed exits', () => {
  const graph = shippedPhaseGraph();
  const criteria = [aCriterion({ id: 'ISC-1' })];
  const decide = (label: FailureLabel, memo = emptyMemo(), iteration = 1, maxIterations: number | null = 5) => decideAfterVerify({ report: failing(label), criteria, graph, memo, iteration, maxIterations });

  it('loops back by failure label: unclear requirement → THINK, wrong approach → PLAN, execution error → EXECUTE', () => {
    assert.deepEqual(decide('AMBIGUITY'), { kind: 'loop', to: 'THINK', label: 'AMBIGUITY', streak: 1, replan: false });
    assert.equal((decide('REQUIREMENT_COVERAGE') as { to: string }).to, 'THINK');
    assert.equal((decide('SCOPE_ERROR') as { to: string }).to, 'PLAN');
    assert.equal((decide('EXECUTION_ERROR') as { to: string }).to, 'EXECUTE');
  });

  it('re-plans when the same label fails replan_after iterations in a row', () => {
    const memo = { ...emptyMemo(), failureStreak: { label: 'EXECUTION_ERROR' as const, count: 1 } };
    assert.deepEqual(decide('EXECUTION_ERROR', memo, 2), { kind: 'loop', to: 'PLAN', label: 'EXECUTION_ERROR', streak: 2, replan: true });
  });

  it('stops at max iterations and when compressed; completes only on a passing report', () => {
    assert.equal(decide('EXECUTION_ERROR', emptyMemo(), 2, 2).kind, 'stop');
    assert.equal(decide('EXECUTION_ERROR', { ...emptyMemo(), compressed: true }).kind, 'stop');
    const pass: VerificationReport = { ...failing('AMBIGUITY'), passed: true, results: [{ criterionId: 'ISC-1', outcome: 'PASS', evidence: 'ok', durationMs: 1, locations: [] }] };
    assert.equal(decideAfterVerify({ report: pass, criteria, graph, memo: emptyMemo(), iteration: 1, maxIterations: 1 }).kind, 'complete');
    // A report that says passed while a CRITICAL criterion has no PASS is not complete.
    assert.notEqual(decideAfterVerify({ report: { ...pass, results: [] }, criteria, graph, memo: emptyMemo(), iteration: 1, maxIterations: 1 }).kind, 'complete');
  });

  it('decays agent steps in long loops, never under 2', () => {
    assert.deepEqual([1, 2, 3, 10, 40].map((i) => decayedSteps(10, i)), [10, 8, 6, 2, 2]);
  });

  it('classifies effort for Auto by cues, and an explicit "effort LEVEL:" prefix wins', () => {
    const table = shippedEffortTable();
    assert.deepEqual(classifyEffort('effort THOROUGH: add dark mode', table), { level: 'EXTENDED', request: 'add dark mode', reasons: ['explicit prefix "THOROUGH"'] });
    assert.equal(classifyEffort('fix typo in readme', table).level, 'INSTANT');
    assert.equal(classifyEffort('Research and compare auth libraries, then integrate one across all the files with a database migration', table).level, 'DEEP');
    assert.equal(classifyEffort('Add a settings page with a dark mode toggle', table).level, 'STANDARD');
  });

  it('loops back to THINK after a failing verification, then completes on iteration 2', async function () {
    this.timeout(30_000);
    const c = markerCriteria(4);
    const m = managerSteps(c);
    const steps: Step[] = [...m, ...specialistSteps('out.txt', 'marker-1\n'), m[1]!, m[2]!, m[3]!, ...specialistSteps('out.txt', markerFile(4))];
    const h = await harness(steps);
    try {
      const result = await h.engine.start({ request: 'Write out.txt', effort: 'STANDARD' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.equal(result.run.iteration, 2);
      assert.ok(h.events.some((e) => /failing ISC-2, ISC-3, ISC-4 \(REQUIREMENT_COVERAGE\); back to THINK/.test(e.message)));
      const reports = h.store.reports.where('run_id = ?', [result.run.id], 'iteration');
      assert.deepEqual(reports.map((r) => [r.iteration, r.passed]), [[1, false], [2, true]]);
    } finally {
      h.close();
    }
  });

  it('ends BUDGET_EXHAUSTED at max iterations with the best candidate and the unmet criteria', async function () {
    this.timeout(30_000);
    const m = managerSteps(markerCriteria(4));
    const steps: Step[] = [...m, ...specialistSteps('out.txt', 'marker-1\nmarker-2\n'), m[1]!, m[2]!, m[3]!, ...specialistSteps('out.txt', 'marker-1\n')];
    const h = await harness(steps);
    try {
      const result = await h.engine.start({ request: 'Write out.txt', effort: 'STANDARD' });
      assert.equal(result.state, 'BUDGET_EXHAUSTED');
      assert.match(result.reason!, /reached the level's 2 iterations/);
      assert.deepEqual(result.unmet.map((c) => c.id), ['ISC-2', 'ISC-3', 'ISC-4']);
      // Iteration 1 passed two criteria, iteration 2 only one: the best is iteration 1's.
      const best = h.store.reports.where('run_id = ?', [result.run.id]).find((r) => r.id === result.bestReportId)!;
      assert.equal(best.iteration, 1);
      assert.equal(best.results.filter((r) => r.outcome === 'PASS').length, 2);
    } finally {
      h.close();
    }
  });

  it('ends BUDGET_EXHAUSTED when the token cap refuses a call', async function () {
    this.timeout(30_000);
    const steps: Step[] = [...managerSteps(markerCriteria(4)), ...specialistSteps('out.txt', markerFile(4))];
    const budget = new BudgetLedger({ call: {}, phase: {}, run: { tokens: 4000 } });
    const h = await harness(steps, { budget });
    try {
      const result = await h.engine.start({ request: 'Write out.txt', effort: 'STANDARD' });
      assert.equal(result.state, 'BUDGET_EXHAUSTED');
      assert.match(result.reason!, /token cap/);
      assert.ok(h.events.some((e) => e.kind === 'budget'));
      assert.equal(h.store.runs.get(result.run.id)!.state, 'BUDGET_EXHAUSTED');
      assert.ok(h.model.inner.stepsLeft > 0, 'calls past the cap were not made');
    } finally {
      h.close();
    }
  });

  it('past 150 % of the wall-time budget compresses: no new work, straight to VERIFY, then BUDGET_EXHAUSTED', async function () {
    this.timeout(30_000);
    const asked = { count: 0 };
    // The clock jumps 200 s (of STANDARD's 120 s) once BUILD has asked its model.
    const clock = { now: () => new Date(Date.now() + (asked.count >= 4 ? 200_000 : 0)) };
    const steps: Step[] = [...managerSteps(markerCriteria(4)), ...specialistSteps('out.txt', markerFile(4))];
    const h = await harness(steps, { clock });
    const requests = h.model.requests;
    const push = requests.push.bind(requests);
    requests.push = (...r) => ((asked.count += r.length), push(...r));
    try {
      const result = await h.engine.start({ request: 'Write out.txt', effort: 'STANDARD' });
      assert.equal(result.state, 'BUDGET_EXHAUSTED');
      assert.match(result.reason!, /compress/);
      assert.ok(h.events.some((e) => e.kind === 'budget' && /compressing/.test(e.message)));
      assert.ok(!h.events.some((e) => /^EXECUTE started/.test(e.message)), 'no packet was worked after compressing');
      assert.equal(h.model.requests.length, 4, 'the specialist was never asked');
      assert.equal(result.report!.passed, false);
      assert.ok(h.store.runs.get(result.run.id)!.elapsedMs >= 180_000);
    } finally {
      h.close();
    }
  });

  it('a model that claims success while the workspace misses a criterion never makes COMPLETE', async function () {
    this.timeout(30_000);
    const m = managerSteps(markerCriteria(4));
    const claim = JSON.stringify({ summary: 'All criteria are met. ISC-1 PASS, ISC-2 PASS, ISC-3 PASS, ISC-4 PASS. Verified.', evidence: ['I checked every criterion'] });
    const steps: Step[] = [...m, { toolCalls: [{ name: 'create_file', arguments: { path: 'out.txt', text: 'marker-1\nmarker-2\nmarker-3\n' } }] }, { text: claim }];
    const h = await harness(steps);
    try {
      const result = await h.engine.start({ request: 'Write out.txt', effort: 'FAST' });
      assert.notEqual(result.state, 'COMPLETE');
      assert.equal(result.state, 'BUDGET_EXHAUSTED');
      assert.deepEqual(result.unmet.map((c) => c.id), ['ISC-4']);
      assert.equal(result.report!.passed, false);
      assert.equal(fs.readFileSync(path.join(h.workspace, 'out.txt'), 'utf8'), 'marker-1\nmarker-2\nmarker-3\n');
    } finally {
      h.close();
    }
  });
});

describe('algorithm: a workspace phase graph, and loop-back to EXECUTE', () => {
  it('follows .ideal-state/phase-graph.yaml: REQUIREMENT_COVERAGE back to EXECUTE re-works only the failing packet', async function () {
    this.timeout(30_000);
    const shipped = shippedPhaseGraph;
    const workspace = tempDir('ws');
    fs.mkdirSync(path.join(workspace, '.ideal-state'));
    fs.writeFileSync(path.join(workspace, '.ideal-state/phase-graph.yaml'), stringify({ ...shipped(), loop_back: { ...shipped().loop_back, REQUIREMENT_COVERAGE: 'EXECUTE' } }));
    const c = markerCriteria(4);
    const m = managerSteps(c);
    const plan: Step = { object: { packets: [{ title: 'First half', criterionIds: ['ISC-1', 'ISC-2'] }, { title: 'Second half', criterionIds: ['ISC-3', 'ISC-4'] }] } };
    const steps: Step[] = [
      m[0]!, m[1]!, plan, m[3]!,
      ...specialistSteps('a.txt', 'marker-1\nmarker-2\n'),
      ...specialistSteps('b.txt', 'marker-3\n'),
      ...specialistSteps('b.txt', 'marker-3\nmarker-4\n'),
    ];
    const methods = (m[3] as { object: { methods: { criterionId: string; verify: { glob: string } }[] } }).object.methods;
    for (const x of methods) x.verify.glob = '*.txt';
    const h = await harness(steps, { workspace });
    try {
      const result = await h.engine.start({ request: 'Write two files', effort: 'STANDARD' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.equal(result.run.iteration, 2);
      assert.ok(h.events.some((e) => /failing ISC-4 \(REQUIREMENT_COVERAGE\); back to EXECUTE/.test(e.message)));
      const packets = h.store.packets.where('run_id = ?', [result.run.id], 'id');
      assert.deepEqual(packets.map((p) => [p.id, p.iteration, p.criterionIds.join(','), p.status]), [
        ['pkt-1-1', 1, 'ISC-1,ISC-2', 'DONE'],
        ['pkt-1-2', 1, 'ISC-3,ISC-4', 'DONE'],
        ['pkt-2-1', 2, 'ISC-3,ISC-4', 'DONE'],
      ]);
      assert.equal(h.model.inner.stepsLeft, 0, 'the manager was not asked again');
    } finally {
      h.close();
    }
  });
});

describe('algorithm: criteria the verifier found unmet', () => {
  it('cannot be reviewed away by THINK on the next iteration', async function () {
    this.timeout(30_000);
    const m = managerSteps(markerCriteria(4));
    const dropping: Step = { object: { criteria: markerCriteria(4).slice(0, 1).map((c) => ({ id: 'ISC-1', text: c.text })) } };
    const steps: Step[] = [...m, ...specialistSteps('out.txt', 'marker-1\n'), dropping, m[2]!, m[3]!, ...specialistSteps('out.txt', 'marker-1\n')];
    const h = await harness(steps);
    try {
      const result = await h.engine.start({ request: 'Write out.txt', effort: 'STANDARD' });
      assert.equal(result.state, 'BUDGET_EXHAUSTED');
      assert.deepEqual(result.criteria.map((c) => c.id).sort(), ['ISC-1', 'ISC-2', 'ISC-3', 'ISC-4']);
      assert.deepEqual(result.unmet.map((c) => c.id), ['ISC-2', 'ISC-3', 'ISC-4']);
      assert.ok(h.events.some((e) => /THINK tried to drop unmet ISC-2, ISC-3, ISC-4; kept/.test(e.message)));
    } finally {
      h.close();
    }
  });
});
