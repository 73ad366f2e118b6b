/**
 * The run sets every view and command uses, declared once. No zod here: the editor's
 * activation bundle imports these and must stay small.
 */
type State = 'PENDING' | 'RUNNING' | 'NEEDS_APPROVAL' | 'COMPLETE' | 'BUDGET_EXHAUSTED' | 'BLOCKED' | 'CANCELLED' | 'FAILED';

export const EXIT_STATES: readonly State[] = ['COMPLETE', 'BUDGET_EXHAUSTED', 'BLOCKED', 'CANCELLED', 'FAILED'];

export const RUN_STATES = {
  /** Work is under way (or was, when a window closed mid-run). */
  going: ['PENDING', 'RUNNING', 'NEEDS_APPROVAL'],
  /** Resume Run can take it up: it stopped on the way, or was cancelled. */
  resumable: ['PENDING', 'RUNNING', 'NEEDS_APPROVAL', 'CANCELLED'],
  /** Ended and never resumed: reflected on, rated. */
  final: ['COMPLETE', 'BUDGET_EXHAUSTED', 'BLOCKED', 'FAILED'],
  /** An exit state, final or cancelled. */
  exit: EXIT_STATES,
} as const satisfies Record<string, readonly State[]>;

/** Whether a run in `state` belongs to the named set of RUN_STATES. */
export function runStateIs(set: keyof typeof RUN_STATES, state: string): boolean {
  return (RUN_STATES[set] as readonly string[]).includes(state);
}
