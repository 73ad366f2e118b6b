import type { AnyCriterion, FailureLabel, Outcome, Run, VerificationMethod, VerificationReport } from '../model';

/** One criterion as a finished run left it. */
export interface CriterionFact {
  readonly id: string;
  readonly text: string;
  readonly kind: AnyCriterion['kind'];
  /** The last verified outcome; undefined when it was never verified. */
  readonly outcome: Outcome | undefined;
  readonly failureLabel?: FailureLabel;
  /** Criteria the run added after its first version: missing at the start. */
  readonly addedLater: boolean;
  /** How it was verified, so a run that learns it can verify it the same way. */
  readonly verify?: VerificationMethod;
}

/** What the LEARN phase knows about a finished run: the input of reflections and memory. */
export interface RunFacts {
  readonly runId: string;
  readonly request: string;
  readonly effort: Run['effort'];
  readonly state: Run['state'];
  readonly artifactType?: string;
  readonly prdPath?: string;
  readonly finishedAt: string;
  readonly budgetSeconds: number;
  readonly elapsedMs: number;
  readonly criteria: readonly CriterionFact[];
  readonly rating?: number;
  readonly comment?: string;
}

/**
 * Facts from a run, its latest criteria, its first criteria version (to tell which were
 * added later) and its verification reports, newest result per criterion winning.
 */
export function runFacts(
  run: Run,
  criteria: readonly AnyCriterion[],
  reports: readonly VerificationReport[],
  firstVersion: readonly AnyCriterion[] = criteria,
  rating?: { readonly rating?: number; readonly comment?: string },
): RunFacts {
  const latest = new Map<string, { outcome: Outcome; failureLabel?: FailureLabel }>();
  for (const report of [...reports].sort((a, b) => a.createdAt.localeCompare(b.createdAt))) {
    for (const r of report.results) latest.set(r.criterionId, { outcome: r.outcome, ...(r.failureLabel ? { failureLabel: r.failureLabel } : {}) });
  }
  const original = new Set(firstVersion.map((c) => c.id));
  return {
    runId: run.id,
    request: run.request,
    effort: run.effort,
    state: run.state,
    ...(run.artifactType ? { artifactType: run.artifactType } : {}),
    ...(run.prdPath ? { prdPath: run.prdPath } : {}),
    finishedAt: run.finishedAt ?? run.updatedAt,
    budgetSeconds: run.budgetSeconds,
    elapsedMs: run.elapsedMs,
    criteria: criteria.map((c) => {
      const verdict = latest.get(c.id);
      return {
        id: c.id,
        text: c.text,
        kind: c.kind,
        outcome: verdict?.outcome ?? c.outcome,
        ...(verdict?.failureLabel ? { failureLabel: verdict.failureLabel } : {}),
        addedLater: !original.has(c.id),
        ...(c.verify ? { verify: c.verify } : {}),
      };
    }),
    ...(rating?.rating !== undefined ? { rating: rating.rating } : {}),
    ...(rating?.comment ? { comment: rating.comment } : {}),
  };
}

export function elapsedPercent(facts: RunFacts): number {
  return Math.round((facts.elapsedMs / (facts.budgetSeconds * 1000)) * 1000) / 10;
}

export function withinBudget(facts: RunFacts): boolean {
  return facts.elapsedMs <= facts.budgetSeconds * 1000;
}

/** Criteria that failed outright (FAIL) and those never proven (PARTIAL, UNKNOWN, unverified). */
export function unmetCriteria(facts: RunFacts): { failed: CriterionFact[]; unproven: CriterionFact[] } {
  return {
    failed: facts.criteria.filter((c) => c.outcome === 'FAIL'),
    unproven: facts.criteria.filter((c) => c.outcome !== 'FAIL' && c.outcome !== 'PASS'),
  };
}
