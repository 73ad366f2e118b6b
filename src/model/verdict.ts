import type { Priority } from './criterion';
import type { Outcome } from './outcome';

/**
 * The one rule for "passed", for every place a verdict is shown — the Testing
 * view, the Runs view, the ISC table's header, the status bar, the end-of-run notification
 * and the verifier's own summary: a set passes (is green) only when every CRITICAL criterion
 * PASSES, now. UNKNOWN is never a pass; a criterion with no outcome yet, or a PASS gone stale
 * since, does not pass either. Non-CRITICAL criteria never block. Pure: no runtime imports, so
 * the webviews use it as the extension does.
 */
export interface VerdictRow {
  readonly id: string;
  /** A Priority; a plain string from a view's row is read the same way (only "CRITICAL" blocks). */
  readonly priority: Priority | string;
  /** Undefined: not verified yet. */
  readonly outcome?: Outcome | undefined;
  /** The result was invalidated by a change since (any outcome). */
  readonly stale?: boolean | undefined;
}

export interface Verdict {
  /** Every CRITICAL criterion PASSES now (and there is at least one criterion). */
  readonly passed: boolean;
  /** CRITICAL ids that keep it from passing, in order. */
  readonly blocking: readonly string[];
  /** How many criteria (any priority) PASS now, stale ones left out. */
  readonly pass: number;
  readonly total: number;
}

export function verdictOf(rows: Iterable<VerdictRow>): Verdict {
  const blocking: string[] = [];
  let pass = 0;
  let total = 0;
  for (const row of rows) {
    total++;
    const passes = row.outcome === 'PASS' && !row.stale;
    if (passes) pass++;
    else if (row.priority === 'CRITICAL') blocking.push(row.id);
  }
  return { passed: total > 0 && blocking.length === 0, blocking, pass, total };
}

/** How one criterion's result shows as a test item: a CRITICAL UNKNOWN is an error (never a quiet skip that leaves its PRD green). */
export type TestItemState = 'passed' | 'failed' | 'errored' | 'skipped';

export function testItemState(priority: Priority, outcome: Outcome): TestItemState {
  if (outcome === 'PASS') return 'passed';
  if (outcome === 'UNKNOWN') return priority === 'CRITICAL' ? 'errored' : 'skipped';
  return 'failed';
}
