import * as assert from 'node:assert/strict';
import { checkGate } from '../../../src/algorithm/gates';
import { emptyMemo, type AlgorithmState } from '../../../src/model/algorithm-state';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { aCriterion, aRun } from '../support/builders';
import { harness, managerSteps, markerCriteria, markerFile, specialistSteps, type Step } from '../support/algorithm-helpers';

const spec = shippedEffortTable().levels.STANDARD;

function state(overrides: Partial<AlgorithmState> = {}): AlgorithmState {
  return { run: { ...aRun(), iteration: 1 }, criteria: [], packets: [], candidates: [], decisions: [], memo: emptyMemo(), stepSeq: 0, eventSeq: 0, ...overrides };
}

describe('algorithm: gates refuse bad output', () => {
  it('OBSERVE (min-criteria): too few and too many criteria for the level', () => {
    assert.match(JSON.stringify(checkGate('min-criteria', state({ criteria: [aCriterion()] }), spec)), /needs at least 4/);
    assert.match(JSON.stringify(checkGate('min-criteria', state({ criteria: Array.from({ length: 17 }, () => aCriterion()) }), spec)), /at most 16/);
    assert.deepEqual(checkGate('min-criteria', state({ criteria: Array.from({ length: 4 }, () => aCriterion()) }), spec), { ok: true });
  });

  it('THINK (testable): vague words, questions and run-on criteria', () => {
    const bad = [aCriterion({ text: 'The page should look nice' }), aCriterion({ text: 'Is the toggle visible to users?' }), aCriterion({ text: 'ok' })];
    const r = checkGate('testable', state({ criteria: bad }), spec);
    assert.equal(r.ok, false);
    assert.equal((r as { problems: string[] }).problems.length, 3, JSON.stringify(r));
  });

  it('PLAN (covered): a criterion owned by no packet, a packet owning an unknown id', () => {
    const c = aCriterion({ id: 'ISC-1' });
    const at = '2026-11-01T10:00:00.000Z';
    const packets = [{ id: 'p1', runId: 'run-x', iteration: 1, title: 'x', criterionIds: ['ISC-9'], dependsOn: [], status: 'PLANNED' as const, createdAt: at, updatedAt: at }];
    const r = checkGate('covered', state({ criteria: [c], packets }), spec);
    assert.match(JSON.stringify(r), /ISC-9, which is not a criterion/);
    assert.match(JSON.stringify(r), /ISC-1 is owned by no packet/);
  });

  it('BUILD (specific): missing method, bad regex, a READ path outside the workspace', () => {
    const r = checkGate('specific', state({ criteria: [aCriterion({ id: 'ISC-1', verify: undefined }), aCriterion({ id: 'ISC-2', verify: { type: 'GREP', pattern: '(', expect: 'present' } }), aCriterion({ id: 'ISC-3', verify: { type: 'READ', path: '../etc/passwd' } })] }), spec);
    const problems = (r as { problems: string[] }).problems;
    assert.equal(problems.length, 3);
    assert.match(problems.join('\n'), /ISC-1 has no verification method[\s\S]*ISC-2[\s\S]*not a valid regular expression[\s\S]*ISC-3[\s\S]*inside the workspace/);
  });

  it('EXECUTE (final-status): a row still ACTIVE or claimed', () => {
    const r = checkGate('final-status', state({ criteria: [aCriterion({ id: 'ISC-1', status: 'ACTIVE', claim: { by: 'w1', at: '2026-11-01T10:00:00.000Z' } }), aCriterion({ id: 'ISC-2', status: 'DONE' })] }), spec);
    assert.deepEqual((r as { problems: string[] }).problems, ['ISC-1 is ACTIVE, claimed by w1']);
  });

  it('VERIFY (report): no report for this iteration, or a criterion without a result', () => {
    assert.match(JSON.stringify(checkGate('report', state({ criteria: [aCriterion()] }), spec)), /no verification report/);
    const report = { id: 'r', runId: 'run-x', iteration: 1, criteriaVersion: 1, results: [], passed: false, summary: '', createdAt: '2026-11-01T10:00:00.000Z' };
    assert.match(JSON.stringify(checkGate('report', state({ criteria: [aCriterion({ id: 'ISC-7' })], report }), spec)), /ISC-7 has no result/);
  });

  it('a refused OBSERVE is asked again with the problems, then the run goes on', async function () {
    this.timeout(30_000);
    const good = managerSteps(markerCriteria(4));
    const steps: Step[] = [{ object: { criteria: [{ text: 'Output file holds marker line number 1' }] } }, ...good, ...specialistSteps('out.txt', markerFile(4))];
    const h = await harness(steps);
    try {
      const result = await h.engine.start({ request: 'Write out.txt', effort: 'STANDARD' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.ok(h.events.some((e) => /OBSERVE gate refused: 1 criteria; this effort level needs at least 4/.test(e.message)));
      const retry = h.model.requests[1]!.messages.map((m) => m.content).join('\n');
      assert.match(retry, /refused by the OBSERVE gate/);
    } finally {
      h.close();
    }
  });

  it('a gate that refuses past its retries ends the run FAILED with the gate named, nothing verified', async function () {
    this.timeout(30_000);
    const vague = { criteria: Array.from({ length: 4 }, (_, i) => ({ id: `ISC-${i + 1}`, text: `The output should be nice number ${i}` })) };
    const steps: Step[] = [managerSteps(markerCriteria(4))[0]!, { object: vague }, { object: vague }];
    const h = await harness(steps);
    try {
      const result = await h.engine.start({ request: 'Write out.txt', effort: 'STANDARD' });
      assert.equal(result.state, 'FAILED');
      assert.match(result.reason!, /THINK gate refused the output 2 times: .*vague word/);
      assert.equal(result.report, undefined);
      // The refused output was not kept: criteria are OBSERVE's.
      assert.ok(result.criteria.every((c) => c.text.startsWith('Output file holds marker')));
    } finally {
      h.close();
    }
  });
});
