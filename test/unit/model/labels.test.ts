import * as assert from 'node:assert/strict';
import { syncPrdText } from '../../../src/algorithm/prd-sync';
import { emptyMemo, type AlgorithmState } from '../../../src/model/algorithm-state';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { FAILURE_LABELS, failureLabel, iterationLimitLabel, OUTCOME_LABELS, prdStatusLabel, runStateLabel, verdictLabel } from '../../../src/model/labels';
import { FailureLabel, GateOutcome, RunState, type AnyCriterion, type CriterionResult } from '../../../src/model';
import { applyEdits } from '../../../src/prd/edit';
import { parsePrd } from '../../../src/prd/parse';
import { prdView } from '../../../src/prd/view';
import { aCriterion, aRun } from '../support/builders';

const NOW = new Date('2026-11-02T09:00:00.000Z');
const CODE = /\b[A-Z]{2,}(?:_[A-Z]+)*\b/;

describe('labels: the one table of words a person reads for the product\'s codes', () => {
  it('has words for every run state, outcome and failure label, none of them the code', () => {
    for (const s of [...RunState.options, 'DRAFT', 'IN_PROGRESS']) assert.doesNotMatch(prdStatusLabel(s), CODE, s);
    for (const s of RunState.options) assert.doesNotMatch(runStateLabel(s), CODE, s);
    for (const o of GateOutcome.options) assert.ok((OUTCOME_LABELS as Record<string, string>)[o], `${o} has words`);
    for (const l of FailureLabel.options) assert.ok((FAILURE_LABELS as Record<string, string>)[l], `${l} has words`);
    assert.equal(prdStatusLabel('BUDGET_EXHAUSTED'), 'out of budget');
    assert.equal(prdStatusLabel('IN_PROGRESS'), 'in progress');
    assert.equal(verdictLabel('UNKNOWN', 'UNSUPPORTED_CLAIM'), 'no verdict: claim without evidence');
    assert.equal(verdictLabel('FAIL'), 'fails');
    // A code the table does not know yet is still never shown raw.
    assert.equal(failureLabel('SOMETHING_NEW'), 'something new');
  });

  it('says an effort level\'s iteration limit in words', () => {
    assert.equal(iterationLimitLabel(1), '1 iteration');
    assert.equal(iterationLimitLabel(3), 'up to 3 iterations');
    assert.equal(iterationLimitLabel(null), 'iterations until the budget is spent');
  });
});

describe('labels: the LOG entry a run writes in its PRD', () => {
  const table = shippedEffortTable();
  const criteria = ['ISC-1', 'ISC-2', 'ISC-3'].map((id) => aCriterion({ id, text: `criterion ${id} holds for the greeting` }));
  const result = (criterionId: string, outcome: CriterionResult['outcome'], label?: CriterionResult['failureLabel']): CriterionResult => ({ criterionId, outcome, evidence: 'e', durationMs: 1, locations: [], ...(label ? { failureLabel: label } : {}) });

  function logOf(results: CriterionResult[], opts: { iteration: number; maxIterations?: number; state?: AlgorithmState['run']['state']; work?: boolean }): Record<string, string> {
    const run = { ...aRun({ effort: 'STANDARD' }), state: opts.state ?? 'RUNNING', iteration: opts.iteration } as AlgorithmState['run'];
    const passed = results.every((r) => r.outcome === 'PASS');
    const state: AlgorithmState = {
      run,
      criteria: criteria as AnyCriterion[],
      packets: [],
      candidates: opts.work ? [{ iteration: opts.iteration, summary: 'edited src/greet.js' } as AlgorithmState['candidates'][number]] : [],
      decisions: [],
      memo: { ...emptyMemo(), ...(opts.maxIterations !== undefined ? { maxIterations: opts.maxIterations } : {}) },
      report: { id: 'r', runId: run.id, iteration: opts.iteration, criteriaVersion: 1, results, passed, summary: '', createdAt: NOW.toISOString() },
      stepSeq: 0,
      eventSeq: 0,
    };
    const doc = parsePrd(syncPrdText(undefined, state, table, NOW));
    const entry = doc.log.find((e) => e.title.startsWith(`Iteration ${opts.iteration}`));
    assert.ok(entry, 'one LOG entry for the iteration');
    return entry.fields;
  }

  it('names outcomes and failure labels in words, and never says "none" failing beside criteria with no verdict', () => {
    const log = logOf([result('ISC-1', 'UNKNOWN', 'UNSUPPORTED_CLAIM'), result('ISC-2', 'UNKNOWN', 'EXECUTION_ERROR'), result('ISC-3', 'UNKNOWN')], { iteration: 1, maxIterations: 3 });
    assert.equal(log['unknown'], 'ISC-1 (no verdict: claim without evidence), ISC-2 (no verdict: the check could not run), ISC-3 (no verdict)');
    assert.equal(log['failing'], 'none, but 3 criteria have no verdict (under Unknown)');
    assert.doesNotMatch(JSON.stringify(log), /UNSUPPORTED_CLAIM|EXECUTION_ERROR|\(UNKNOWN/);
    assert.equal(log['work'], 'nothing was changed', 'never "no candidate"');
  });

  it('says the run goes to the next iteration only when one follows', () => {
    const fail = [result('ISC-1', 'FAIL', 'REQUIREMENT_COVERAGE'), result('ISC-2', 'PASS'), result('ISC-3', 'PASS')];
    assert.equal(logOf(fail, { iteration: 1, maxIterations: 2, work: true })['phase'], 'VERIFY → iteration 2');
    const last = logOf(fail, { iteration: 2, maxIterations: 2, work: true });
    assert.equal(last['phase'], 'VERIFY → run ends: no iteration left (up to 2 iterations)');
    assert.equal(last['failing'], 'ISC-1 (fails: requirement not covered)');
    assert.equal(last['work'], 'edited src/greet.js');
    assert.equal(logOf(fail, { iteration: 1, state: 'BLOCKED' })['phase'], 'VERIFY → run ends blocked');
    assert.equal(logOf([result('ISC-1', 'PASS'), result('ISC-2', 'PASS'), result('ISC-3', 'PASS')], { iteration: 1 })['phase'], 'VERIFY → complete');
  });

  it('keeps "Failing: none" when nothing failed and nothing lacks a verdict', () => {
    const text = applyEdits('# T\n', [{ kind: 'appendLog', entry: { iteration: 1, date: '2026-11-02', phase: 'VERIFY → complete', criteria: '1/1 passing', work: 'w', failing: [] } }]);
    assert.match(text, /^- Failing: none$/m);
  });
});

describe('labels: the PRD editor\'s view', () => {
  it('carries every note the file holds under its criterion, as the file spells it', () => {
    const doc = parsePrd(
      [
        '---',
        'prd: true',
        'status: BUDGET_EXHAUSTED',
        '---',
        '# T',
        '',
        '## Ideal State Criteria',
        '- [ ] ISC-1: farewell refuses an empty name | Verify: CLI: node -e "1"',
        '  - Not approved (sha256:1a2b3c4d5e6f): a person denied this command on 2026-11-26',
        '  - Probe: passes before any work — can this check fail? (2026-11-26)',
        '- [ ] ISC-2: greeting names the person',
        '',
      ].join('\n'),
    );
    const view = prdView(doc);
    assert.deepEqual(view.criteria[0]!.notes, [
      { kind: 'not-approved', label: 'Not approved', text: 'a person denied this command on 2026-11-26', digest: 'sha256:1a2b3c4d5e6f' },
      { kind: 'probe', label: 'Probe', text: 'passes before any work — can this check fail? (2026-11-26)' },
    ]);
    assert.equal(view.criteria[1]!.notes, undefined);
    assert.equal(prdStatusLabel(view.meta.status!), 'out of budget');
  });
});
