import type { Logger } from '../model/log';
import type { AnyCriterion, Decision, EffortSpec, Phase, RunEvent } from '../model';
import type { Capabilities } from './capabilities';
import type { AskingPerson, Clock } from './budget-tracker';
import type { PhaseGraph } from './phase-graph';
import type { CriteriaVerifier, ModelCaller, PacketWorker, RunLearning, RunStorage } from './ports';
import type { Roles } from './roles';
import type { AlgorithmState } from '../model/algorithm-state';
import type { EventDraft } from './event-draft';

export type { EventDraft } from './event-draft';


/** What a node handler works with: the draft state, the collaborators, and a way to record events. */
export interface NodeContext {
  readonly phase: Phase;
  readonly spec: EffortSpec;
  readonly graph: PhaseGraph;
  readonly roles: Roles;
  readonly capabilities: Capabilities;
  readonly models: ModelCaller;
  readonly worker: PacketWorker;
  readonly verifier: CriteriaVerifier;
  readonly storage: RunStorage;
  /** Memory of past runs for OBSERVE; absent: no memory is offered. */
  readonly learning?: RunLearning;
  /** Where a question to a person (the learned-criteria pick) is timed as waiting, out of the budget. */
  readonly asking?: AskingPerson;
  readonly clock: Clock;
  readonly logger?: Logger;
  /** The run's cancellation; in a manager node also its share of the budget (see NodeDeadline). */
  readonly signal: AbortSignal;
  readonly verifyTimeoutMs: number;
  /** The node's share of the budget, in ms (with the run's tolerance). */
  readonly allowanceMs: number;
  /** The node's share of the budget is spent: start no new packet or step. */
  timeUp(): boolean;
  /** Unique per engine instance, so claims of a dead process are told apart from live ones. */
  readonly instance: string;
  /** Gate problems of the previous attempt of this node, to tell the role. */
  readonly retryProblems: readonly string[];
  emit(state: AlgorithmState, event: EventDraft): RunEvent;
  /**
   * Progress inside a node (EXECUTE claims and candidates), with the events so far: committed
   * once the work in hand is done and the process is about to wait (a model reply, an approval,
   * a timer), or with the node's transition if that comes first. Nothing that finished is ever
   * left uncommitted across a wait; a node whose work never waits costs one commit, not one per step.
   */
  commitProgress(state: AlgorithmState): void;
}

export function decision(state: AlgorithmState, by: Decision['by'], text: string, rationale: string, at: string): Decision {
  return { id: `dec-${state.run.id.slice(4)}-${state.decisions.length + 1}`, runId: state.run.id, at, by, decision: text, rationale, alternatives: [], criteriaVersion: state.run.criteriaVersion };
}

/** Short description of how two criteria lists differ, for the decisions log and the delta summary. */
export function describeChange(before: readonly AnyCriterion[], after: readonly AnyCriterion[]): string {
  const old = new Map(before.map((c) => [c.id, c]));
  const now = new Map(after.map((c) => [c.id, c]));
  const added = after.filter((c) => !old.has(c.id)).map((c) => `+${c.id}`);
  const removed = before.filter((c) => !now.has(c.id)).map((c) => `-${c.id}`);
  const changed = after.filter((c) => old.has(c.id) && (old.get(c.id)!.text !== c.text || JSON.stringify(old.get(c.id)!.verify) !== JSON.stringify(c.verify) || old.get(c.id)!.priority !== c.priority)).map((c) => `~${c.id}`);
  return [...added, ...removed, ...changed].join(' ');
}
