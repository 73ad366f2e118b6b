import type { AnyCriterion, CriterionResult, Outcome, VerificationMethod } from '../model';
import type { Coverage } from './coverage';
import type { ProcessRunner } from './process-runner';
import type { ApprovedIgnores } from './search-rules';

/**
 * The contract between the verification engine and whoever hosts it (the editor or the
 * command line). Verifiers never import `vscode`: what only the editor can do arrives
 * through `VerifyHost`, and a capability that is absent makes an honest UNKNOWN with the
 * reason, never a pass.
 */

/** Runs a workspace task by name (tasks.json or auto-detected, e.g. npm scripts). */
export interface TaskRunner {
  run(name: string, options: { signal: AbortSignal; timeoutMs: number }): Promise<TaskRunResult>;
}
export type TaskRunResult =
  | { kind: 'exited'; exitCode: number; output?: string }
  | { kind: 'not-found'; available: string[] }
  | { kind: 'cannot-run'; reason: string }
  // Added by the engine: ways a task ends that the runner may report (the editor's may not).
  | { kind: 'timeout'; timeoutMs: number; output?: string }
  | { kind: 'signalled'; signal: string; output?: string }
  | { kind: 'cancelled' };

/** The editor's diagnostics, for STATIC. */
export interface DiagnosticsSource {
  /** Diagnostics of files under `glob` (workspace-relative), or of every file when absent. */
  collect(glob: string | undefined, signal: AbortSignal): Promise<DiagnosticEntry[]>;
}
export interface DiagnosticEntry {
  file: string; // workspace-relative, forward slashes
  line: number; // 1-based
  severity: 'error' | 'warning' | 'information' | 'hint';
  message: string;
  source?: string;
}

/** A model judge for CUSTOM criteria; it sees only the auditor view. */
export interface CriterionJudge {
  readonly label: string; // shown in evidence, e.g. "openai: gpt-5-mini" or "scripted: demo"
  /** Set when this judge judges nothing (a scripted demo): why; its Custom criteria are then UNKNOWN saying "no model judges this criterion". */
  readonly declines?: string;
  judge(view: AuditorView, signal: AbortSignal): Promise<{ outcome: Outcome; evidence: string; confidence?: number }>;
}
/** Everything the verifier may read: the current criteria, the candidate and its evidence, earlier reports on it. */
export interface AuditorView {
  criterion: AnyCriterion;
  criteriaVersion: number;
  candidate?: { id: string; summary: string; evidence: string[] };
  earlierResults: CriterionResult[];
}

/** Runs BROWSER scenarios where one is configured. */
export interface BrowserRunner {
  run(scenario: string, options: { signal: AbortSignal; timeoutMs: number }): Promise<{ outcome: Outcome; evidence: string }>;
}

/** Asked once before any command from a criterion set runs (trust, allow-list, confirm once per PRD content hash). */
export interface CommandApprover {
  approve(commands: string[], signal: AbortSignal): Promise<CommandApproval>;
}

/**
 * The answer for a set of commands: all of them, none (with why), or with `only` just those
 * exact commands (e.g. the ones a committed allow-list names); the others are refused with `reason`.
 */
export interface CommandApproval {
  approved: boolean;
  reason?: string;
  only?: readonly string[];
  /** A refused command's own reason, where it differs from `reason`. */
  reasons?: Readonly<Record<string, string>>;
}

/** Which of a set's commands were allowed to run and which were not, with why: told to the user, kept by a run. */
export interface CommandDecisions {
  readonly approved: readonly string[];
  readonly refused: readonly { readonly command: string; readonly reason: string }[];
}

export interface VerifyHost {
  /** Absolute path of the workspace folder; every path a criterion names must resolve inside it. */
  readonly workspaceRoot: string;
  /**
   * Where `workspaceRoot` is a snapshot of the workspace (the stop gate's), the workspace itself:
   * the snapshot's ignored folders (node_modules, build output) are links into it, and a path
   * through one stays inside.
   */
  readonly linkedRoot?: string;
  readonly tasks?: TaskRunner;
  readonly diagnostics?: DiagnosticsSource;
  readonly judge?: CriterionJudge;
  readonly browser?: BrowserRunner;
  readonly approver?: CommandApprover;
  /** The ripgrep binary to use (VS Code's bundled copy), else `rg` on PATH, else the JS fallback. */
  readonly ripgrepPath?: string;
  /** Extra exclude globs (the editor's `files.exclude`), on top of `.gitignore`. */
  readonly excludeGlobs?: readonly string[];
  /**
   * The `.gitignore` texts a person approved (as locked, else as when they last spoke): every
   * Grep searches under them instead of the files on disk, so an agent's edit to a `.gitignore`
   * neither hides nor adds matches. Give one object for a whole verification (its Greps share
   * one look for changed files). Absent: the `.gitignore` files as they are.
   */
  readonly approvedIgnores?: ApprovedIgnores;
  /** What starts the checks' commands and ripgrep (src/verify/process-host.ts); absent: this process. */
  readonly processes?: ProcessRunner;
}

export interface VerifyOptions {
  signal?: AbortSignal;
  /** From the effort level's parallel-verifier count. */
  parallelism: number;
  /** Per criterion, unless its method names its own. */
  timeoutMs: number;
  /** Called as each criterion finishes, for progress and live UI; `coverage` is what a PASS depends on (for staleness). */
  onResult?: (result: CriterionResult, criterion: AnyCriterion, coverage: Coverage) => void;
  /**
   * Workspace-relative files GREP never searches: the PRD being verified (and other
   * requirement files), because a criterion's own text is not evidence that it holds.
   */
  excludeFiles?: readonly string[];
  /** For CUSTOM's auditor view: the criteria version being verified (default 0), the candidate, earlier results. */
  criteriaVersion?: number;
  candidate?: AuditorView['candidate'];
  earlierResults?: CriterionResult[];
}

export interface VerifySetResult {
  results: CriterionResult[];
  /** Fail-closed: false when any CRITICAL criterion is not PASS. */
  passed: boolean;
  summary: string;
  counts: Record<Outcome, number>;
  /** Per criterion id: what its result depends on, for staleness (see staleness.ts). */
  coverage: Record<string, Coverage>;
  /** The set's commands and what the approver said of each (absent when the set has none). */
  commands?: CommandDecisions;
  /** How many credentials were taken out of the results' evidence (absent when none). */
  redactions?: number;
}

export type { ApprovedIgnores, Coverage, VerificationMethod };
