import * as assert from 'node:assert/strict';
import { Criterion, type AnyCriterion, type Outcome } from '../../../src/model';
import { testItemState, verdictOf } from '../../../src/model/verdict';
import { summarize } from '../../../src/verify/verify-criteria';
import { formatTable } from '../../../src/cli/reports/verify-output';
import { runLook } from '../../../src/vscode/runs/runs-tree-model';
import { runEndMessage, statusVerdictText } from '../../../src/vscode/run/progress-text';
import { headerStatus } from '../../../webviews/isc-table/header-state';
import type { TableRow } from '../../../webviews/isc-table/protocol';

/**
 * One rule for "passed" (issue 28 §2): green only when every CRITICAL criterion PASSES; UNKNOWN
 * is never green. The greeting PRD of the issue — three PASS and a CRITICAL UNKNOWN — walked
 * through every place a verdict is shown, and a set where the UNKNOWN is only NICE, which passes.
 */
const at = '2026-11-26T10:00:00.000Z';
const row = (id: string, priority: 'CRITICAL' | 'NICE'): AnyCriterion => Criterion.parse({ kind: 'criterion', id, text: `${id} holds in the workspace now`, priority, createdAt: at, updatedAt: at });
const result = (criterionId: string, outcome: Outcome) => ({ criterionId, outcome, evidence: `${outcome} evidence`, durationMs: 5, locations: [], ...(outcome === 'PASS' ? {} : { failureLabel: 'UNSUPPORTED_CLAIM' as const, repairTarget: `${criterionId} can be verified` }) });

function everywhere(unknownPriority: 'CRITICAL' | 'NICE') {
  const criteria = [row('ISC-1', unknownPriority), row('ISC-2', 'CRITICAL'), row('ISC-3', 'CRITICAL'), row('ISC-4', 'CRITICAL')];
  const outcomes: Record<string, Outcome> = { 'ISC-1': 'UNKNOWN', 'ISC-2': 'PASS', 'ISC-3': 'PASS', 'ISC-4': 'PASS' };
  const results = criteria.map((c) => result(c.id, outcomes[c.id]!));
  const set = summarize(criteria, results);
  const tableRows: TableRow[] = criteria.map((c) => ({ id: c.id, kind: 'criterion', text: c.text, priority: c.priority, source: 'EXPLICIT', status: 'VERIFIED', outcome: outcomes[c.id], stale: false, locations: [] }));
  const header = headerStatus({ state: 'COMPLETE' }, tableRows);
  const verdict = verdictOf(criteria.map((c) => ({ id: c.id, priority: c.priority, outcome: outcomes[c.id] })));
  const report = { id: 'rep-1', runId: 'run-1', criteriaVersion: 1, createdAt: at, results, passed: set.passed, summary: set.summary } as never;
  return {
    'the rule itself': verdict.passed,
    'the verifier (Verify Criteria, CLI)': set.passed,
    'CLI output': !/NOT PASSED/.test(formatTable(set, { effort: 'STANDARD', parallelism: 4, written: false })),
    'Testing view (the UNKNOWN item)': testItemState(unknownPriority, 'UNKNOWN') === 'skipped',
    'Runs view': runLook({ state: 'COMPLETE', passing: verdict.passed }).tone === 'passed',
    'ISC table header': header.tone === 'pass',
    'status bar': /every CRITICAL criterion passes/.test(statusVerdictText(verdict)),
    'end-of-run notification': runEndMessage({ state: 'COMPLETE', criteria, report }).good,
  };
}

describe('one rule for "passed", everywhere a verdict is shown', () => {
  it('a CRITICAL UNKNOWN is green nowhere', () => {
    const shown = everywhere('CRITICAL');
    assert.deepEqual(Object.entries(shown).filter(([, green]) => green).map(([where]) => where), []);
  });

  it('an UNKNOWN that is only NICE blocks nothing: green everywhere', () => {
    const shown = everywhere('NICE');
    assert.deepEqual(Object.entries(shown).filter(([, green]) => !green).map(([where]) => where), []);
  });

  it('a CRITICAL UNKNOWN is an error in the Testing view, so its PRD is not "Passed 4/4"', () => {
    assert.equal(testItemState('CRITICAL', 'UNKNOWN'), 'errored');
    assert.equal(testItemState('IMPORTANT', 'UNKNOWN'), 'skipped');
    assert.equal(testItemState('NICE', 'FAIL'), 'failed');
  });

  it('no criteria, or a stale PASS, is not passing', () => {
    assert.equal(verdictOf([]).passed, false);
    assert.deepEqual(verdictOf([{ id: 'ISC-1', priority: 'CRITICAL', outcome: 'PASS', stale: true }]), { passed: false, blocking: ['ISC-1'], pass: 0, total: 1 });
  });

  it('the end-of-run notification says the state in words and names what blocks', () => {
    const criteria = [row('ISC-1', 'CRITICAL'), row('ISC-2', 'CRITICAL'), row('ISC-3', 'NICE')];
    const message = runEndMessage({ state: 'BUDGET_EXHAUSTED', criteria, reason: 'the budget ran out after VERIFY' });
    assert.equal(message.text, 'Ideal State: run out of budget — 0 of 3 criteria pass; CRITICAL ISC-1, ISC-2 do not pass: the budget ran out after VERIFY.');
    assert.equal(message.good, false);
    assert.doesNotMatch(message.text, /BUDGET_EXHAUSTED/);
  });
});
