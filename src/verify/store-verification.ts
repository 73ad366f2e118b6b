import * as crypto from 'node:crypto';
import { newId } from '../model/ids';
import { RUN_ID, Run, type AnyCriterion, type EffortLevel, type EffortTable } from '../model';
import type { PrdDocument } from '../prd/model';
import type { Store } from '../store/store';
import { buildVerificationReport } from './report';
import type { VerifySetResult } from './types';

export interface RecordVerificationInput {
  /** Workspace-relative path of the PRD, forward slashes. */
  prdPath: string;
  /** The PRD as it was verified (before any write-back). */
  document: PrdDocument;
  text: string;
  criteria: readonly AnyCriterion[];
  set: VerifySetResult;
  effortTable: EffortTable;
  /** The level it was verified at. */
  effort: EffortLevel;
  workspaceFolder?: string;
  now?: Date;
}

/**
 * Stores a PRD's verification: its run (the PRD's `run_id`, else the run the PRD index
 * knows for this path, else a new run for the PRD), the outcomes, the verification report
 * and the PRD index entry, in one commit. Verifying never creates a criteria version of a
 * run that has one: outcomes go onto the run's latest version, to the criteria whose id and
 * text it holds; a criterion the PRD words differently is in the report only (`unmatched`),
 * until the PRD's save syncs it as a version of its own. A read-only store (another window
 * is the writer) stores nothing and says so.
 */
export function recordVerification(store: Store, input: RecordVerificationInput): { stored: true; runId: string; reportId: string; unmatched: readonly string[] } | { stored: false; reason: string } {
  if (store.readOnly) return { stored: false, reason: `the store ${store.location} is open read-only (another process is writing it)` };
  const now = input.now ?? new Date();
  const at = now.toISOString();
  const meta = input.document.meta;
  const indexed = store.prdIndex.where('path = ?', [input.prdPath])[0];
  const runId = meta.runId && RUN_ID.test(meta.runId) ? meta.runId : indexed?.runId && RUN_ID.test(indexed.runId) ? indexed.runId : newId('run', now);
  const existing = store.runs.get(runId);
  const title = input.document.title?.text ?? meta.title ?? meta.id ?? input.prdPath;
  const outcomes = new Map(input.set.results.map((r) => [r.criterionId, r.outcome]));
  const verified = (c: AnyCriterion) => ({ ...c, outcome: outcomes.get(c.id) ?? c.outcome, verifiedAt: at, updatedAt: at }) as AnyCriterion;
  const indexEntry = {
    path: input.prdPath,
    prdId: meta.id ?? input.prdPath,
    runId,
    title,
    status: meta.status ?? 'UNKNOWN',
    contentHash: crypto.createHash('sha256').update(input.text).digest('hex'),
    updatedAt: at,
  };
  if (existing) {
    const version = store.criteria.latestVersion(runId) ?? existing.criteriaVersion;
    const held = new Map(store.criteria.list(runId, version).map((c) => [c.id, c]));
    const same = input.criteria.filter((c) => held.get(c.id)?.text === c.text && outcomes.has(c.id));
    const unmatched = input.criteria.filter((c) => !same.includes(c)).map((c) => c.id);
    const report = buildVerificationReport(input.set, { runId, iteration: existing.iteration, criteriaVersion: version, now });
    store.batch((tx) => {
      tx.runs.save({ ...existing, updatedAt: at, prdPath: input.prdPath });
      for (const c of same) tx.criteria.update(runId, version, verified({ ...held.get(c.id)!, outcome: c.outcome } as AnyCriterion));
      tx.reports.save(report);
      tx.prdIndex.save(indexEntry);
    });
    return { stored: true, runId, reportId: report.id, unmatched };
  }
  const criteriaVersion = meta.criteriaVersion ?? 1;
  const iteration = meta.iteration ?? 0;
  const run: Run = Run.parse({
    id: runId,
    request: title,
    effort: input.effort,
    state: 'PENDING',
    phase: 'VERIFY',
    iteration,
    criteriaVersion,
    prdPath: input.prdPath,
    ...(input.workspaceFolder ? { workspaceFolder: input.workspaceFolder } : {}),
    createdAt: at,
    updatedAt: at,
    budgetSeconds: input.effortTable.levels[input.effort].budgetSeconds,
    elapsedMs: 0,
  });
  const report = buildVerificationReport(input.set, { runId, iteration, criteriaVersion, now });
  store.batch((tx) => {
    tx.runs.save(run);
    tx.criteria.saveVersion(runId, criteriaVersion, input.criteria.map(verified));
    tx.reports.save(report);
    tx.prdIndex.save(indexEntry);
  });
  return { stored: true, runId, reportId: report.id, unmatched: [] };
}
