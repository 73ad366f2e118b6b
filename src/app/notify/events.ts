import type { RunResult } from '../../algorithm/engine-api';
import type { Loop } from '../../model/loop';
import type { EventData } from './payload';

/** run.finished from a run's result: what a person needs to know without opening the editor. */
export function runFinishedData(result: RunResult): EventData<'run.finished'> {
  const outcomes = result.report?.results ?? [];
  const failing = outcomes.filter((r) => r.outcome !== 'PASS').map((r) => ({ id: r.criterionId, outcome: r.outcome, evidence: r.evidence }));
  return { runId: result.run.id, state: result.state, ...(result.reason ? { reason: result.reason } : {}), ...(result.run.prdPath ? { prd: result.run.prdPath } : {}), passing: outcomes.length - failing.length, total: result.criteria.length, failing };
}

/** loop.finished from a loop as it ended. */
export function loopFinishedData(loop: Loop, unmet: readonly string[]): EventData<'loop.finished'> {
  return { loopId: loop.id, state: loop.state, ...(loop.reason ? { reason: loop.reason } : {}), passing: loop.passing, total: loop.total, unmet: [...unmet], ...(loop.prdPath ? { prd: loop.prdPath } : {}) };
}
