import { reflectionId } from '../learning/reflection';
import type { Reflection, RunState } from '../model';
import type { BudgetTracker } from './budget-tracker';
import { reportPasses, unmetCriteria } from './iteration';
import type { AlgorithmState } from '../model/algorithm-state';

/**
 * The exit state LEARN writes: what VERIFY decided, re-checked fail-closed — COMPLETE only
 * when the last report shows every CRITICAL criterion passing, whatever anyone claimed.
 */
export function exitOf(state: AlgorithmState): { exit: RunState; reason: string } {
  let exit: RunState = state.memo.exit ?? (reportPasses(state.report, state.criteria) ? 'COMPLETE' : 'BUDGET_EXHAUSTED');
  let reason = state.memo.exitReason ?? '';
  if (exit === 'COMPLETE' && !reportPasses(state.report, state.criteria)) {
    exit = 'BUDGET_EXHAUSTED';
    reason = 'the last report does not show every CRITICAL criterion passing';
  }
  return { exit, reason };
}

/** The run's look back, from its numbers: what passed, what looped, what it cost. */
export function reflectionOf(state: AlgorithmState, tracker: BudgetTracker, at: string): Reflection {
  const passed = state.report?.results.filter((r) => r.outcome === 'PASS').length ?? 0;
  const failed = state.report?.results.filter((r) => r.outcome === 'FAIL').length ?? 0;
  const unmet = unmetCriteria(state.report, state.criteria);
  return {
    // The learning service's id, so its reflection of the same run replaces this one.
    id: reflectionId(state.run.id),
    runId: state.run.id,
    timestamp: at,
    effortLevel: state.run.effort,
    criteriaCount: state.criteria.length,
    criteriaPassed: passed,
    criteriaFailed: failed,
    withinBudget: tracker.percent() <= 100,
    elapsedPercent: tracker.percent(),
    q1Self: `${passed}/${state.criteria.length} criteria verified in ${state.run.iteration} iteration(s); ${unmet.length > 0 ? `unmet: ${unmet.map((c) => c.id).join(', ')}` : 'none unmet'}.`,
    q2Workflow: state.memo.failureStreak ? `most recent failure label ${state.memo.failureStreak.label} (${state.memo.failureStreak.count}× in a row)` : 'no loop-back was needed',
    q3System: `${tracker.percent()} % of the ${state.run.budgetSeconds} s budget used${state.memo.compressed ? ', compressed' : ''}.`,
    category: 'ALGORITHM',
    version: '1',
  };
}
