import type { z } from 'zod';
import type { AskingPerson } from './budget-tracker';
import type { EscalationEvent, RoutedCall, TierNote, TierPreference } from '../llm/router';
import type { UsageRecord } from '../llm/usage';
import type { ResolvedModels } from '../llm/resolve';
import type { ObjectRequest, ObjectResult } from '../llm/structured';
import type { LanguageModel, ModelRole } from '../llm/types';
import type { AnyCriterion, Candidate, CriterionResult, Decision, EffortLevel, FileEdit, Packet, Phase, Reflection, Run, RunEvent, VerificationReport } from '../model';
import type { LearnedCriterion } from '../learning/memory';
import type { AlgorithmState, RunStep } from '../model/algorithm-state';
import type { SpecialistView } from './views';
import type { EventDraft } from './event-draft';

/**
 * What the engine needs from the world, each a small interface received in its
 * constructor: the store, the models, the specialists, the verifier and the PRD file.
 * The editor and the command line each supply their own.
 */

/** One transition, written in one durable commit before the next step begins. */
export interface StepCommit {
  readonly run: Run;
  /** The current criteria version's rows (a new version when `run.criteriaVersion` moved). */
  readonly criteria?: readonly AnyCriterion[];
  readonly packets?: readonly Packet[];
  readonly candidates?: readonly Candidate[];
  readonly report?: VerificationReport;
  readonly decisions?: readonly Decision[];
  readonly reflection?: Reflection;
  readonly events: readonly RunEvent[];
  readonly step?: RunStep;
}

export interface RunStorage {
  commit(commit: StepCommit): void;
  /** The run as last committed, or undefined when the store does not know it. */
  load(runId: string): AlgorithmState | undefined;
  /**
   * Keeps a file's content before the run first changes it, durably, before the change is made.
   * Later calls for the same path keep that first content; one with `afterSha256` replaces the fingerprint.
   */
  saveCheckpoint(runId: string, checkpoint: FileCheckpoint): void;
  checkpoints(runId: string): FileCheckpoint[];
}

/** A file as it was before the run first touched it; `before` undefined: it did not exist. */
export interface FileCheckpoint {
  readonly path: string;
  readonly before?: string;
  readonly at: string;
  /**
   * SHA-256 (hex) of the text the run last left in the file, for files undo must not clobber
   * once someone else changed them (the run's PRD): undo leaves such a file alone when it no
   * longer holds that text. Undefined: undo restores the file whatever it holds now.
   */
  readonly afterSha256?: string;
}

/** The structured-output and chat calls the engine makes; `ModelRouter` is the real one. */
export interface ModelCaller {
  /** Escalations so far (ModelRouter keeps them); the engine turns new ones into run events. */
  readonly escalations?: readonly EscalationEvent[];
  /** Where a level's model tier could not be honoured so far; the engine turns new ones into run events. */
  readonly tierNotes?: readonly TierNote[];
  /** The tier each role starts on at each level (the capabilities' `models:`); the engine sets it from its capabilities. */
  preferTiers?(tierFor: TierPreference): void;
  /** The models a run may call and the catalogue that prices them (ModelRouter has them); the engine reports the unpriced ones at the start. */
  readonly resolved?: Pick<ResolvedModels, 'slots' | 'catalogue'>;
  generateObject<S extends z.ZodType>(role: ModelRole, level: EffortLevel, request: ObjectRequest<S> & RoutedCall<z.output<S>>): Promise<ObjectResult<z.output<S>> & { model: LanguageModel }>;
}

/** What a specialist is given for one packet. */
export interface PacketAssignment {
  readonly runId: string;
  readonly iteration: number;
  readonly level: EffortLevel;
  readonly workerId: string;
  readonly packet: Packet;
  readonly view: SpecialistView;
  /** Model turns allowed (the level's agent steps, decayed in long loops). */
  readonly maxSteps: number;
  /** True once EXECUTE's share of the budget is spent: take no further step (the step in flight finishes). */
  readonly timeUp?: () => boolean;
  /** Records every model call, for the run's cost events. */
  readonly onEvent: (event: EventDraft) => void;
}

/** What a specialist produced: the candidate's content. */
export interface PacketWork {
  readonly summary: string;
  readonly edits: readonly FileEdit[];
  readonly commandOutput?: string;
  readonly assumptions: readonly string[];
  readonly evidence: readonly string[];
  /** Set when the specialist could not go on (edits or commands denied, untrusted workspace). */
  readonly blocked?: string;
}

/** Works one packet; the agent loop in src/agent is the real one. */
export interface PacketWorker {
  work(assignment: PacketAssignment, signal: AbortSignal): Promise<PacketWork>;
}

/** A candidate as the verifier may see it (auditor view): summary and evidence, nothing else. */
export interface CandidateEvidence {
  readonly id: string;
  readonly summary: string;
  readonly evidence: readonly string[];
}

export interface CriteriaVerifyOptions {
  readonly signal: AbortSignal;
  /** The run's effort level (a CUSTOM judge is routed for it). */
  readonly level: EffortLevel;
  /** The run's PRD, workspace-relative: its own text is not evidence that a criterion holds. */
  readonly prdPath?: string;
  readonly parallelism: number;
  readonly timeoutMs: number;
  readonly criteriaVersion: number;
  /** The candidate that worked each criterion, by criterion id. */
  readonly candidateFor: (criterionId: string) => CandidateEvidence | undefined;
  /** Earlier results on each criterion, by criterion id. */
  readonly earlierResults: (criterionId: string) => readonly CriterionResult[];
  /** Records what a model judge (CUSTOM) spent, as run events. */
  readonly onEvent?: (event: EventDraft) => void;
}

export interface CriteriaVerification {
  readonly results: readonly CriterionResult[];
  /** Fail-closed: false when any CRITICAL criterion is not PASS. */
  readonly passed: boolean;
  readonly summary: string;
  /** The exact commands that were approved to run (the run may write these, and only these, into its PRD). */
  readonly approvedCommands?: readonly string[];
  /**
   * The exact commands that were not approved: they stay in the PRD as the criterion's method
   * with a "Not approved" note, and the denial is remembered where an agent cannot
   * erase it (src/app/denied-commands.ts), so `ideal-state verify` never runs them unasked.
   */
  readonly deniedCommands?: readonly string[];
}

/** The verification engine, as the Algorithm sees it (src/verify's verifyCriteria behind an adapter). */
export interface CriteriaVerifier {
  verify(criteria: readonly AnyCriterion[], options: CriteriaVerifyOptions): Promise<CriteriaVerification>;
}

/** The run's PRD in the workspace. */
export interface PrdFile {
  /** Workspace-relative path, recorded on the run. */
  readonly path: string;
  read(): Promise<string | undefined>;
  write(text: string): Promise<void>;
}

/**
 * What the engine asks of learning (the LearningService behind `runLearning`). Both calls
 * may fail; the engine records the failure as a run event and the run ends as it would have.
 */
export interface RunLearning {
  /** Criteria learned from similar past runs (failing or missing in low-rated ones, themes' suggestions), for OBSERVE. */
  /**
   * @param asking where the time a person takes to answer (the learned-criteria pick) goes:
   *   waiting, shown as such and left out of the budget, as an approval's is.
   */
  memoryFor(request: string, signal: AbortSignal, asking?: AskingPerson): Promise<readonly LearnedCriterion[]>;
  /** After the exit state is committed: the reflection (STANDARD and above), mining every tenth run. Returns what it did, one line each, for the run's events. */
  afterRun(run: Run, signal: AbortSignal, onModelCall?: (usage: UsageRecord) => void): Promise<readonly string[]>;
}

export type { Phase };
