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

/**
 * A run's or a loop's state in words, for every message a person reads: the one place the
 * codes are turned into words (never "BUDGET_EXHAUSTED" in a notification or a pick list).
 */
export const STATE_WORDS: Readonly<Record<State, string>> = {
  PENDING: 'not started',
  RUNNING: 'running',
  NEEDS_APPROVAL: 'waiting for approval',
  COMPLETE: 'complete',
  BUDGET_EXHAUSTED: 'out of budget',
  BLOCKED: 'blocked',
  CANCELLED: 'cancelled',
  FAILED: 'failed',
};

/** The words for a state code; an unknown code is spelt in lower case without underscores. */
export function stateWords(state: string): string {
  return (STATE_WORDS as Record<string, string>)[state] ?? state.toLowerCase().replace(/_/g, ' ');
}

/** Whether a run in `state` belongs to the named set of RUN_STATES. */
export function runStateIs(set: keyof typeof RUN_STATES, state: string): boolean {
  return (RUN_STATES[set] as readonly string[]).includes(state);
}
