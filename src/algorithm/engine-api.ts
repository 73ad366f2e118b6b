import type { Logger } from '../model/log';
import type { AnyCriterion, EffortLevel, EffortTable, Run, RunEvent, RunState, VerificationReport } from '../model';
import type { AskingPerson, Clock, PersonWaits } from './budget-tracker';
import type { Capabilities } from './capabilities';
import type { PhaseGraph } from './phase-graph';
import type { CriteriaVerifier, ModelCaller, PacketWorker, PrdFile, RunLearning, RunStorage, StepCommit } from './ports';
import type { Roles } from './roles';

/** What the engine is built from, what a run starts with, and how it ended. */

export interface AlgorithmDeps {
  readonly storage: RunStorage;
  readonly models: ModelCaller;
  readonly worker: PacketWorker;
  readonly verifier: CriteriaVerifier;
  /**
   * The probe's verifier (src/algorithm/probe.ts): it never asks a person, and runs
   * a command only when it is approved without a question. Absent: the run does not probe.
   */
  readonly prober?: CriteriaVerifier;
  readonly effort: EffortTable;
  readonly graph?: PhaseGraph;
  readonly roles?: Roles;
  readonly capabilities?: Capabilities;
  /** The run's PRD file; created at OBSERVE when it does not exist. */
  readonly prdFor?: (run: Run) => PrdFile;
  readonly clock?: Clock;
  /** The time the run waits for a person (its ApprovalPolicy's `waiting`): shown as waiting, never counted against the budget. */
  readonly waits?: PersonWaits & Partial<AskingPerson>;
  readonly logger?: Logger;
  /** Every event, after it is committed (for the status bar, the ISC table, the terminal). */
  readonly onEvent?: (event: RunEvent) => void;
  /** Every commit, after it is durable: the run row, its current criteria, the report and events it carried. */
  readonly onCommit?: (commit: StepCommit) => void;
  /** Per criterion, unless its method names its own; at most the VERIFY node's share of the budget. */
  readonly verifyTimeoutMs?: number;
  /** No node's share of the budget is less than this (default 15 s, see NodeDeadline). */
  readonly minNodeMs?: number;
  /**
   * Memory for OBSERVE and the reflection after the run (LEARN). Without it the engine
   * writes its own numbers-only reflection with the exit state, as before learning existed.
   */
  readonly learning?: RunLearning;
  /**
   * Why a run cannot start here, asked before it is created (e.g. a demo model whose recorded
   * edit the workspace already holds); undefined lets it start. A refusal creates no run.
   */
  readonly refuseStart?: () => Promise<string | undefined>;
}

/** A run was refused before it started; the message says why and what to do. */
export class RunRefusedError extends Error {
  override readonly name = 'RunRefusedError';
  readonly code = 'run-refused';
}

export interface StartInput {
  readonly request: string;
  /** 'AUTO' asks the effort classifier. */
  readonly effort: EffortLevel | 'AUTO';
  /**
   * A PRD whose criteria are the spec: OBSERVE may add to them, never drop or reword them.
   * Its `max_iterations`, when it sets one, replaces the level's.
   */
  readonly prd?: { readonly path: string; readonly criteria: readonly AnyCriterion[]; readonly maxIterations?: number };
  /** Starting criteria (an ISC template's): OBSERVE sees them and refines them; unlike a PRD's they are not pinned. */
  readonly seed?: { readonly from: string; readonly criteria: readonly AnyCriterion[] };
  readonly workspaceFolder?: string;
}

/** How a run ended, for the caller and `--json`. */
export interface RunResult {
  readonly run: Run;
  readonly state: RunState;
  readonly criteria: readonly AnyCriterion[];
  readonly report?: VerificationReport;
  /** The report with the most passing criteria, and its candidates' ids (BUDGET_EXHAUSTED). */
  readonly bestReportId?: string;
  readonly unmet: readonly AnyCriterion[];
  readonly reason?: string;
}
