import * as crypto from 'node:crypto';
import { effortOf } from './effort';
import { newId } from '../core/ids';
import { RUN_ID, Run, type AnyCriterion, type EffortTable } from '../core/model';
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
  workspaceFolder?: string;
  now?: Date;
}

/**
 * Stores a PRD's verification: its run (the PRD's `run_id`, else the run the PRD index
 * knows for this path, else a new run for the PRD), the criteria version with outcomes,
 * the verification report and the PRD index entry, in one commit. A read-only store
 * (another window is the writer) stores nothing and says so.
 */
export function recordVerification(store: Store, input: RecordVerificationInput): { stored: true; runId: string; reportId: string } | { stored: false; reason: string } {
  if (store.readOnly) return { stored: false, reason: `the store ${store.location} is open read-only (another process is writing it)` };
  const now = input.now ?? new Date();
  const at = now.toISOString();
  const meta = input.document.meta;
  const indexed = store.prdIndex.where('path = ?', [input.prdPath])[0];
  const runId = meta.runId && RUN_ID.test(meta.runId) ? meta.runId : indexed?.runId && RUN_ID.test(indexed.runId) ? indexed.runId : newId('run', now);
  const existing = store.runs.get(runId);
  const effort = effortOf(input.document, input.effortTable);
  const criteriaVersion = meta.criteriaVersion ?? existing?.criteriaVersion ?? 1;
  const iteration = meta.iteration ?? existing?.iteration ?? 0;
  const title = input.document.title?.text ?? meta.title ?? meta.id ?? input.prdPath;
  const run: Run = existing
    ? { ...existing, updatedAt: at, prdPath: input.prdPath }
    : Run.parse({
        id: runId,
        request: title,
        effort,
        state: 'PENDING',
        phase: 'VERIFY',
        iteration,
        criteriaVersion,
        prdPath: input.prdPath,
        ...(input.workspaceFolder ? { workspaceFolder: input.workspaceFolder } : {}),
        createdAt: at,
        updatedAt: at,
        budgetSeconds: input.effortTable.levels[effort].budgetSeconds,
        elapsedMs: 0,
      });
  const outcomes = new Map(input.set.results.map((r) => [r.criterionId, r.outcome]));
  const criteria = input.criteria.map((c) => ({ ...c, outcome: outcomes.get(c.id) ?? c.outcome, verifiedAt: at, updatedAt: at }) as AnyCriterion);
  const report = buildVerificationReport(input.set, { runId, iteration, criteriaVersion, now });
  store.batch((tx) => {
    tx.runs.save(run);
    tx.criteria.saveVersion(runId, criteriaVersion, criteria);
    tx.reports.save(report);
    tx.prdIndex.save({
      path: input.prdPath,
      prdId: meta.id ?? input.prdPath,
      runId,
      title,
      status: meta.status ?? 'UNKNOWN',
      contentHash: crypto.createHash('sha256').update(input.text).digest('hex'),
      updatedAt: at,
    });
  });
  return { stored: true, runId, reportId: report.id };
}
