import type { MatrixArtifact, MatrixOutcome, MatrixSnapshot } from '../../../webviews/loop-matrix/protocol';
import { MATRIX_OUTCOMES } from '../../../webviews/loop-matrix/protocol';
import { naturalCompare } from '../../../webviews/loop-matrix/view-model';
import { describeWait } from '../run/progress-text';

/**
 * A loop's progress as the editor's views read it (the matrix, the Runs view, the status
 * bar): the fields of the core's LoopProgress (src/model/loop.ts) they use, and no more,
 * so a view never depends on how the engine keeps a loop.
 */
export interface LoopProgressView {
  readonly loopId: string;
  readonly iteration: number;
  /** The template's criterion ids in its order (the columns); without them, every id an artifact has. */
  readonly criterionIds?: readonly string[];
  readonly maxIterations?: number | null;
  readonly artifacts: readonly { readonly file: string; readonly status: string; readonly runId?: string; readonly outcomes: Readonly<Record<string, string>> }[];
  readonly passing: number;
  readonly total: number;
  /** Share of the loop's budget used, 0–100: time waiting for a person is not in it, as in a run's. */
  readonly budgetPercent: number;
  /** Time this session waited for a person (approvals), kept out of the budget. */
  readonly waitedMs?: number;
  readonly state: string;
  /** "docs.page over docs/**\/*.md". */
  readonly title: string;
}

/** The states a loop ends in; any other state is a loop still going (or stopped by a reload). */
export const LOOP_FINISHED = ['COMPLETE', 'BUDGET_EXHAUSTED', 'CANCELLED', 'FAILED', 'BLOCKED'] as const;

export function isLoopFinished(state: string): boolean {
  return (LOOP_FINISHED as readonly string[]).includes(state);
}

/** An artifact passes when the loop says so, or when every outcome it has is PASS. */
export function artifactPassing(a: LoopProgressView['artifacts'][number]): boolean {
  if (/^(PASS|PASSING|APPROVED)$/.test(a.status)) return true;
  if (/^(FAIL|FAILING|REJECTED)$/.test(a.status)) return false;
  const outcomes = Object.values(a.outcomes);
  return outcomes.length > 0 && outcomes.every((o) => o === 'PASS');
}

function outcome(value: string | undefined): MatrixOutcome {
  return MATRIX_OUTCOMES.includes(value as MatrixOutcome) ? (value as MatrixOutcome) : 'UNKNOWN';
}

/** The matrix of a loop: the template's criteria as columns (and any other id an artifact has an outcome for). */
export function matrixSnapshot(p: LoopProgressView, abilities: { canCancel: boolean; canResume: boolean }): MatrixSnapshot {
  const extra = [...new Set(p.artifacts.flatMap((a) => Object.keys(a.outcomes)))].filter((id) => !p.criterionIds?.includes(id)).sort(naturalCompare);
  const criteria = [...(p.criterionIds ?? []), ...extra];
  const artifacts: MatrixArtifact[] = p.artifacts.map((a) => ({
    file: a.file,
    status: a.status,
    ...(a.runId ? { runId: a.runId } : {}),
    outcomes: Object.fromEntries(Object.entries(a.outcomes).map(([id, o]) => [id, outcome(o)])),
    passing: artifactPassing(a),
  }));
  return {
    header: {
      loopId: p.loopId,
      title: p.title,
      state: p.state,
      finished: isLoopFinished(p.state),
      passing: p.passing,
      total: p.total,
      iteration: p.iteration,
      ...(p.maxIterations ? { maxIterations: p.maxIterations } : {}),
      budgetPercent: p.budgetPercent,
      canCancel: abilities.canCancel,
      canResume: abilities.canResume,
    },
    criteria,
    artifacts,
  };
}

/** "12% of its budget used + 44 s waiting for you, not counted": the loop's budget in the words of a run's. */
export function loopBudgetText(p: Pick<LoopProgressView, 'budgetPercent' | 'waitedMs'>): string {
  const waited = p.waitedMs !== undefined && p.waitedMs >= 1000 ? ` + ${describeWait(p.waitedMs)} waiting for you, not counted` : '';
  return `${p.budgetPercent}% of its budget used${waited}`;
}

/** The status bar's words for a going loop: "Loop 7/12 passing · 42% budget". */
export function loopStatusText(p: Pick<LoopProgressView, 'passing' | 'total' | 'budgetPercent'>): string {
  return `Loop ${p.passing}/${p.total} passing · ${p.budgetPercent}% budget`;
}
