/**
 * Which PRD a person locks when they name none. A lock is per PRD: the person locks the PRD they
 * are working on, never every PRD in the folder at once (an old PRD's failing or undecidable
 * criteria would then hold every later agent). Pure: the command line and the editor both read
 * these words.
 */

/** A PRD with criteria that a person may lock, as the choice shows it. */
export interface LockCandidate {
  /** Workspace-relative, forward slashes. */
  relative: string;
  /** Its criteria (an ISA's claims). */
  criteria: number;
  /** What the file says of its state: a PRD's `status: …`, an ISA's `phase: …`; empty when it says none. */
  status: string;
  /** Why its work is finished (the gate then holds it only if locked); absent while open. */
  finished?: string;
}

/** The one PRD with criteria whose work is not finished, when there is exactly one: it is locked without asking which. */
export function soleOpenCandidate(candidates: readonly LockCandidate[]): LockCandidate | undefined {
  const open = candidates.filter((c) => c.finished === undefined);
  return open.length === 1 ? open[0] : undefined;
}

/** "3 criteria · status: CRITERIA_DEFINED · finished (status: COMPLETE)" */
export function candidateSummary(c: LockCandidate): string {
  return [`${c.criteria} criteri${c.criteria === 1 ? 'on' : 'a'}`, ...(c.status ? [c.status] : []), ...(c.finished ? [`finished (${c.finished})`] : [])].join(' · ');
}

/** What the command line says when it cannot choose and cannot ask: the PRDs, newest first, and how to name one. */
export function nameOnePrdMessage(candidates: readonly LockCandidate[]): string {
  const open = candidates.filter((c) => c.finished === undefined).length;
  const why = open === 0 ? 'every PRD with criteria here is finished' : `${open} PRDs with criteria here are not finished`;
  return [`${why}, so which one to lock is yours to say: run \`ideal-state criteria lock FILE\` on your terminal with one of (newest first):`, ...candidates.map((c) => `  ${c.relative}  (${candidateSummary(c)})`)].join('\n');
}
