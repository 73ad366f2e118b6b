import { stateWords, STATE_WORDS } from './run-states';

/**
 * The words a person reads for the product's codes, in one table: run end states, criterion
 * outcomes, failure labels, PRD statuses, note kinds and the effort levels' iteration limits.
 * Codes stay in files and the store; every screen and every line written for a person
 * (the PRD's LOG, the PRD editor, pick lists) says them through here. Pure: no vscode, no zod.
 */

/** A run's (or loop's) state: the one table in run-states.ts, read through here. */
export const RUN_STATE_LABELS = STATE_WORDS;

export const OUTCOME_LABELS = {
  PASS: 'passes',
  FAIL: 'fails',
  PARTIAL: 'partly met',
  UNKNOWN: 'no verdict',
  TAMPERED: 'changed without approval',
} as const satisfies Record<string, string>;

/** Why a verifier did not pass a criterion (the failure taxonomy, src/model/outcome.ts). */
export const FAILURE_LABELS = {
  REQUIREMENT_COVERAGE: 'requirement not covered',
  CONSTRAINT_VIOLATION: 'breaks a constraint',
  INTERNAL_INCONSISTENCY: 'contradicts itself',
  UNSUPPORTED_CLAIM: 'claim without evidence',
  AMBIGUITY: 'ambiguous',
  SCOPE_ERROR: 'out of scope',
  OVERCONFIDENCE: 'overconfident',
  EXECUTION_ERROR: 'the check could not run',
} as const satisfies Record<string, string>;

/** A PRD's frontmatter `status`: DRAFT, IN_PROGRESS, or the state its run ended in. */
export const PRD_STATUS_LABELS: Readonly<Record<string, string>> = {
  DRAFT: 'draft',
  IN_PROGRESS: 'in progress',
  ...STATE_WORDS,
};

/** The notes Ideal State writes under a criterion (src/prd/notes.ts), as the PRD spells them. */
export const NOTE_LABELS = { 'not-approved': 'Not approved', probe: 'Probe' } as const;

/** Any other code: lower case, no underscores (never the raw code). */
function spelt(code: string): string {
  return code.toLowerCase().replace(/_/g, ' ');
}

export function runStateLabel(state: string): string {
  return stateWords(state);
}

export function outcomeLabel(outcome: string): string {
  return (OUTCOME_LABELS as Record<string, string>)[outcome] ?? spelt(outcome);
}

export function failureLabel(label: string): string {
  return (FAILURE_LABELS as Record<string, string>)[label] ?? spelt(label);
}

export function prdStatusLabel(status: string): string {
  return PRD_STATUS_LABELS[status] ?? spelt(status);
}

/** A criterion's verdict in words: "no verdict: claim without evidence", "fails", … */
export function verdictLabel(outcome: string, label?: string): string {
  return label ? `${outcomeLabel(outcome)}: ${failureLabel(label)}` : outcomeLabel(outcome);
}

/** An effort level's iteration limit: "1 iteration", "up to 3 iterations", "iterations until the budget is spent". */
export function iterationLimitLabel(maxIterations: number | null | undefined): string {
  if (maxIterations === null || maxIterations === undefined) return 'iterations until the budget is spent';
  return maxIterations === 1 ? '1 iteration' : `up to ${maxIterations} iterations`;
}
