import * as crypto from 'node:crypto';
import { newId } from '../model/ids';
import type { AnyCriterion } from '../model/criterion';
import type { EffortLevel, EffortTable } from '../model/effort';
import { RUN_ID, Run } from '../model/run';
import type { PrdDocument } from '../prd/model';
import { registerPendingKind, writePending } from '../store/pending';
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
  /** The report's id (default: a new one). */
  reportId?: string;
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
    const report = buildVerificationReport(input.set, { runId, iteration: existing.iteration, criteriaVersion: version, now, ...(input.reportId ? { id: input.reportId } : {}) });
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
  const report = buildVerificationReport(input.set, { runId, iteration, criteriaVersion, now, ...(input.reportId ? { id: input.reportId } : {}) });
  store.batch((tx) => {
    tx.runs.save(run);
    tx.criteria.saveVersion(runId, criteriaVersion, input.criteria.map(verified));
    tx.reports.save(report);
    tx.prdIndex.save(indexEntry);
  });
  return { stored: true, runId, reportId: report.id, unmatched: [] };
}

/** The kind of a verification left for the store's next writer (src/store/pending.ts). */
export const PENDING_VERIFICATION = 'verification';

/**
 * What of a verification the store keeps, as plain JSON: the PRD's front matter and title
 * (not its parsed tree), the text (for its hash), the criteria, the results and the level's
 * budget. The report's id is chosen now, so a record folded in twice (a process killed between
 * the commit and the record's deletion) stays one report.
 */
interface PendingVerification {
  prdPath: string;
  meta: RecordVerificationInput['document']['meta'];
  title?: string;
  text: string;
  criteria: readonly AnyCriterion[];
  set: VerifySetResult;
  effort: EffortLevel;
  budgetSeconds: number;
  workspaceFolder?: string;
  now: string;
  reportId: string;
}

/**
 * Leaves a verification for the store's next writer instead of opening the store: a few
 * milliseconds (one small file, flushed and renamed into place) where opening, committing and
 * checkpointing the store costs the stop hook a WASM compile and several fsyncs. Returns the
 * report's id and the record's file.
 */
export function recordVerificationLater(storeFile: string, input: RecordVerificationInput): { reportId: string; file: string } {
  const now = input.now ?? new Date();
  const reportId = input.reportId ?? newId('report', now);
  const record: PendingVerification = {
    prdPath: input.prdPath,
    meta: input.document.meta,
    ...(input.document.title?.text !== undefined ? { title: input.document.title.text } : {}),
    text: input.text,
    criteria: input.criteria,
    set: input.set,
    effort: input.effort,
    budgetSeconds: input.effortTable.levels[input.effort].budgetSeconds,
    ...(input.workspaceFolder ? { workspaceFolder: input.workspaceFolder } : {}),
    now: now.toISOString(),
    reportId,
  };
  return { reportId, file: writePending(storeFile, PENDING_VERIFICATION, record, now) };
}

registerPendingKind<Store>(PENDING_VERIFICATION, (store, raw) => {
  const r = raw as PendingVerification;
  if (typeof r?.prdPath !== 'string' || typeof r.text !== 'string' || !Array.isArray(r.criteria) || typeof r.set !== 'object' || typeof r.now !== 'string') throw new Error('it is not a verification record');
  const document = { meta: r.meta ?? {}, ...(r.title !== undefined ? { title: { text: r.title } } : {}) } as unknown as PrdDocument;
  const effortTable = { levels: { [r.effort]: { budgetSeconds: r.budgetSeconds } } } as unknown as EffortTable;
  const result = recordVerification(store, { prdPath: r.prdPath, document, text: r.text, criteria: r.criteria, set: r.set, effortTable, effort: r.effort, ...(r.workspaceFolder ? { workspaceFolder: r.workspaceFolder } : {}), now: new Date(r.now), reportId: r.reportId });
  if (!result.stored) throw new Error(result.reason);
});
