import type { AnyCriterion } from '../model';
import type { Store } from '../store/store';
import { buildVerificationReport } from './report';
import type { VerifySetResult } from './types';

/**
 * Stores a re-verification of some of a run's criteria (the ISC table's "Re-verify"): each
 * verified row of the run's latest criteria version gets its outcome and time, and the
 * results become a verification report of the run's current iteration — one commit. The
 * run's state and phase are left alone: re-verifying is looking, not moving the run.
 */
export function recordRunVerification(store: Pick<Store, 'runs' | 'criteria' | 'batch' | 'readOnly'>, runId: string, set: VerifySetResult, now = new Date()): { stored: true; reportId: string } | { stored: false; reason: string } {
  if (store.readOnly) return { stored: false, reason: 'the store is open read-only in this window (another window is writing it)' };
  const run = store.runs.get(runId);
  if (!run) return { stored: false, reason: `there is no run ${runId} in the store` };
  const version = store.criteria.latestVersion(runId) ?? run.criteriaVersion;
  const at = now.toISOString();
  const outcomes = new Map(set.results.map((r) => [r.criterionId, r.outcome]));
  const updated = store.criteria
    .list(runId, version)
    .filter((c) => outcomes.has(c.id))
    .map((c) => ({ ...c, outcome: outcomes.get(c.id), verifiedAt: at }) as AnyCriterion);
  const report = buildVerificationReport(set, { runId, iteration: run.iteration, criteriaVersion: version, now });
  store.batch((tx) => {
    for (const c of updated) tx.criteria.update(runId, version, c);
    tx.reports.save(report);
  });
  return { stored: true, reportId: report.id };
}
