import type { AnyCriterion, FailureLabel, Outcome, VerificationMethod } from '../model';
import type { Coverage } from './coverage';
import type { VerifyHost } from './types';

export type { Coverage } from './coverage';

/**
 * What a verifier says about one criterion, before the engine adds the id and the time.
 *
 * Failure labels, chosen by what the loop should do next:
 * - REQUIREMENT_COVERAGE — the check ran and the state is not there (non-zero exit, no
 *   match, missing file, diagnostics present, a judge's FAIL/PARTIAL): EXECUTE more work.
 * - CONSTRAINT_VIOLATION — an anti-criterion's bad thing is present.
 * - EXECUTION_ERROR — the check could not finish: timeout, crash by a signal, a tool that
 *   could not start, unreadable files, a judge that errored.
 * - AMBIGUITY — the criterion cannot be checked as written: no verify method, an invalid
 *   regex, an unknown STATIC check. Back to THINK.
 * - SCOPE_ERROR — the method names a path or glob outside the workspace.
 * - UNSUPPORTED_CLAIM — nothing here can produce evidence: no model for CUSTOM, no
 *   browser runner, STATIC outside the editor, a task only VS Code can run, commands not
 *   approved. The criterion stays unproven (UNKNOWN), never passed.
 */
export interface Verdict {
  outcome: Outcome;
  evidence: string;
  actual?: string;
  threshold?: string;
  failureLabel?: FailureLabel;
  /** What must become true, never how. */
  repairTarget?: string;
  locations?: { file: string; line: number }[];
  coverage: Coverage;
  /** Credentials already taken out of the evidence by the verifier (before it cut the text). */
  redactions?: number;
}


export const WHOLE_WORKSPACE: Coverage = { workspace: true };

export interface VerifierContext {
  host: VerifyHost;
  criterion: AnyCriterion;
  signal: AbortSignal;
  timeoutMs: number;
  /** Workspace-relative files GREP never searches (the PRD being verified). */
  excludeFiles: readonly string[];
  /** Whether the set's commands were approved; absent when no approver was asked. */
  commandsApproved: { approved: true } | { approved: false; reason: string };
  /** How many criteria of the set are verified at once (a search shares the machine's cores with the others); absent: 1. */
  concurrent?: number;
}

type Extra = Partial<Pick<Verdict, 'actual' | 'threshold' | 'locations' | 'redactions'>> & { coverage?: Coverage };

export function pass(evidence: string, extra: Extra = {}): Verdict {
  return { outcome: 'PASS', evidence, coverage: WHOLE_WORKSPACE, ...extra };
}

export function fail(failureLabel: FailureLabel, evidence: string, repairTarget: string, extra: Extra = {}): Verdict {
  return { outcome: 'FAIL', evidence, failureLabel, repairTarget, coverage: WHOLE_WORKSPACE, ...extra };
}

export function unknown(failureLabel: FailureLabel, evidence: string, repairTarget: string, extra: Extra = {}): Verdict {
  return { outcome: 'UNKNOWN', evidence, failureLabel, repairTarget, coverage: WHOLE_WORKSPACE, ...extra };
}

/** A command as the user wrote it, quoted for messages. */
export function quoted(command: string): string {
  return `\`${command.length > 200 ? `${command.slice(0, 200)}…` : command}\``;
}

export type MethodOf<T extends VerificationMethod['type']> = Extract<VerificationMethod, { type: T }>;
