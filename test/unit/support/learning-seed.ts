import type { AnyCriterion, EffortLevel, FailureLabel, Outcome, Run, VerificationMethod, VerificationReport } from '../../../src/model';
import { aRun } from './builders';

/** The store writes a seeded run needs (the Store satisfies it, in unit and integration tests alike). */
export interface SeedableStore {
  batch(write: (r: { runs: { save(run: Run): void }; criteria: { saveVersion(runId: string, version: number, criteria: readonly AnyCriterion[]): void }; reports: { save(...reports: VerificationReport[]): void } }) => void): void;
}

export interface PastCriterion {
  readonly text: string;
  readonly outcome?: Outcome;
  readonly label?: FailureLabel;
  /** Not in the run's first criteria version. */
  readonly addedLater?: boolean;
  readonly verify?: VerificationMethod;
}

let runSeq = 0;

/**
 * Writes a finished run as the engine would leave it: the run, criteria version 0 (and
 * version 1 when some were added later), and one verification report.
 */
export function storeFinishedRun(
  store: SeedableStore,
  spec: { request: string; effort?: EffortLevel; criteria: readonly PastCriterion[]; elapsedMs?: number; finishedAt?: string; artifactType?: string; prdPath?: string },
): Run {
  runSeq += 1;
  const finishedAt = spec.finishedAt ?? new Date(Date.UTC(2026, 10, 1, 10, runSeq)).toISOString();
  const base = aRun({ request: spec.request, effort: spec.effort ?? 'STANDARD' });
  const run: Run = {
    ...base,
    id: `run-${(1000000 + runSeq).toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`,
    state: 'COMPLETE',
    phase: 'LEARN',
    budgetSeconds: 120,
    elapsedMs: spec.elapsedMs ?? 60_000,
    createdAt: finishedAt,
    updatedAt: finishedAt,
    finishedAt,
    ...(spec.artifactType ? { artifactType: spec.artifactType } : {}),
    ...(spec.prdPath ? { prdPath: spec.prdPath } : {}),
  };
  const criteria: AnyCriterion[] = spec.criteria.map((c, i) => ({
    kind: 'criterion',
    id: `ISC-${i + 1}`,
    text: c.text,
    priority: 'CRITICAL',
    source: 'EXPLICIT',
    status: 'DONE',
    ...(c.verify ? { verify: c.verify } : {}),
    createdAt: finishedAt,
    updatedAt: finishedAt,
  }));
  store.batch((r) => {
    r.runs.save(run);
    r.criteria.saveVersion(run.id, 0, criteria.filter((_, i) => !spec.criteria[i]!.addedLater));
    if (spec.criteria.some((c) => c.addedLater)) r.criteria.saveVersion(run.id, 1, criteria);
    r.reports.save({
      id: `report-${run.id}`,
      runId: run.id,
      iteration: 0,
      criteriaVersion: 0,
      results: spec.criteria
        .map((c, i) => ({ c, id: `ISC-${i + 1}` }))
        .filter(({ c }) => c.outcome !== undefined)
        .map(({ c, id }) => ({
          criterionId: id,
          outcome: c.outcome!,
          evidence: 'test evidence',
          durationMs: 5,
          locations: [],
          ...(c.outcome !== 'PASS' ? { failureLabel: c.label ?? 'REQUIREMENT_COVERAGE' } : {}),
        })),
      passed: spec.criteria.every((c) => c.outcome === 'PASS'),
      summary: 'test report',
      createdAt: finishedAt,
    });
  });
  return run;
}
