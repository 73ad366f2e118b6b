import * as assert from 'node:assert/strict';
import {
  AntiCriterion,
  Criterion,
  CriterionResult,
  Rating,
  Reflection,
  Run,
  RunEvent,
  VerificationMethod,
  VERIFICATION_METHOD_TYPES,
} from '../../../src/model';
import { aCriterion, aRun } from '../support/builders';

const at = '2026-11-01T10:00:00.000Z';

describe('domain schemas', () => {
  it('accepts a full criterion and fills defaults for priority, source and status', () => {
    const parsed = Criterion.parse({ kind: 'criterion', id: 'ISC-API-001', text: 'Error responses include a request id header', createdAt: at, updatedAt: at });
    assert.equal(parsed.priority, 'CRITICAL');
    assert.equal(parsed.source, 'EXPLICIT');
    assert.equal(parsed.status, 'PENDING');
  });

  it('rejects an anti-criterion id on a criterion and the reverse', () => {
    assert.equal(Criterion.safeParse({ ...aCriterion(), id: 'ISC-A-001' }).success, false);
    assert.equal(AntiCriterion.safeParse({ ...aCriterion(), kind: 'anti-criterion', id: 'ISC-001' }).success, false);
    assert.equal(AntiCriterion.safeParse({ ...aCriterion(), kind: 'anti-criterion', id: 'ISC-A-SEC-001' }).success, true);
  });

  it('rejects unknown fields, empty text and a bad timestamp with the field named', () => {
    const result = Criterion.safeParse({ ...aCriterion(), text: '  ', updatedAt: 'yesterday', colour: 'red' });
    assert.equal(result.success, false);
    const paths = result.error!.issues.map((i) => i.path.join('.') || i.message);
    assert.ok(paths.includes('text'), paths.join());
    assert.ok(paths.includes('updatedAt'), paths.join());
    assert.ok(result.error!.issues.some((i) => i.code === 'unrecognized_keys'));
  });

  it('knows the eight verification methods as a discriminated union', () => {
    assert.deepEqual([...VERIFICATION_METHOD_TYPES].sort(), ['BROWSER', 'CLI', 'CUSTOM', 'GREP', 'READ', 'STATIC', 'TASK', 'TEST']);
    assert.deepEqual(VerificationMethod.parse({ type: 'GREP', pattern: 'x' }), { type: 'GREP', pattern: 'x', expect: 'present' });
    assert.equal(VerificationMethod.safeParse({ type: 'CLI', pattern: 'x' }).success, false, 'CLI needs a command, not a pattern');
    assert.equal(VerificationMethod.safeParse({ type: 'SHELL', command: 'ls' }).success, false);
  });

  it('validates runs: id shape, effort level and state', () => {
    assert.equal(Run.safeParse(aRun()).success, true);
    assert.equal(Run.safeParse({ ...aRun(), id: 'job-1' }).success, false);
    assert.equal(Run.safeParse({ ...aRun(), effort: 'HUGE' }).success, false);
    assert.equal(Run.safeParse({ ...aRun(), state: 'DONE' }).success, false);
  });

  it('requires a failure label on every result that is not a pass', () => {
    const base = { criterionId: 'ISC-1', evidence: 'exit 1', durationMs: 12 };
    assert.equal(CriterionResult.safeParse({ ...base, outcome: 'PASS' }).success, true);
    assert.equal(CriterionResult.safeParse({ ...base, outcome: 'UNKNOWN' }).success, false);
    assert.equal(CriterionResult.safeParse({ ...base, outcome: 'FAIL', failureLabel: 'EXECUTION_ERROR', repairTarget: 'exit code is 0' }).success, true);
  });

  it('keeps token and cost accounting on run events, defaulting to zero', () => {
    const event = RunEvent.parse({ runId: 'run-abc123', seq: 0, at, kind: 'model', message: 'OBSERVE', inputTokens: 1200, outputTokens: 300, costUsd: 0.0042 });
    assert.equal(event.costUsd, 0.0042);
    assert.equal(RunEvent.parse({ runId: 'run-abc123', seq: 1, at, kind: 'note', message: 'x' }).inputTokens, 0);
    assert.equal(RunEvent.safeParse({ runId: 'run-abc123', seq: 1, at, kind: 'note', message: 'x', costUsd: -1 }).success, false);
  });

  it('takes ratings in the seed 004 layout and insists implicit ones carry confidence', () => {
    const explicit = { id: 'r1', timestamp: at, rating: 8, sessionId: 's1', type: 'explicit', comment: 'great work' };
    assert.equal(Rating.safeParse(explicit).success, true);
    assert.equal(Rating.safeParse({ ...explicit, rating: 11 }).success, false);
    assert.equal(Rating.safeParse({ ...explicit, type: 'implicit' }).success, false);
    assert.equal(Rating.safeParse({ ...explicit, type: 'implicit', confidence: 0.8 }).success, true);
  });

  it('rejects a reflection whose counts do not add up', () => {
    const reflection = {
      id: 'ref-1',
      runId: 'run-abc123',
      timestamp: at,
      effortLevel: 'STANDARD',
      criteriaCount: 4,
      criteriaPassed: 3,
      criteriaFailed: 1,
      withinBudget: true,
      elapsedPercent: 80,
      q1Self: 'Split the compound criterion earlier',
      q2Workflow: 'Verify the cheap criteria first',
      q3System: 'Offer a template for CLI tools',
      category: 'ALGORITHM',
      version: '0.1.0',
    };
    assert.equal(Reflection.safeParse(reflection).success, true);
    assert.equal(Reflection.safeParse({ ...reflection, criteriaFailed: 2 }).success, false);
  });
});
