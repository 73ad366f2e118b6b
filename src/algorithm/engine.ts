import { describeLesson } from '../llm/adapt';
import { moneyCapNotices } from '../llm/budgets';
import { escalationToRunEvent } from '../llm/router';
import { cacheFieldsOf, usageToRunEvent } from '../llm/usage';
import { describeError, isBudgetExceeded, isCancellation, isNodeBudgetCut } from '../model/errors';
import { EXIT_STATES, type AnyCriterion, type EffortLevel, type Phase, type Reflection, type Run, type RunEvent, type RunState } from '../model';
import { createRun } from '../model/runs';
import { BudgetTracker, systemClock, type AskingPerson, type Clock } from './budget-tracker';
import { shippedCapabilities, type Capabilities } from './capabilities';
import type { EventDraft, NodeContext } from './context';
import { classifyEffort } from './effort-classifier';
import { RunRefusedError, type AlgorithmDeps, type RunResult, type StartInput } from './engine-api';
import { execute } from './execute';
import { checkGate, reviewedBy } from './gates';
import { decideAfterVerify, unmetCriteria } from './iteration';
import { exitOf, reflectionOf } from './learn';
import { build, observe, plan, think } from './manager-phases';
import { NodeDeadline } from './node-budget';
import { probeAccepted } from './probe';
import { nodeOf, shippedPhaseGraph, type PhaseGraph } from './phase-graph';
import type { StepCommit } from './ports';
import { shownCriteria, syncPrdText } from './prd-sync';
import { shippedRoles, type Roles } from './roles';
import { RestatementInbox, type Restatement } from './restatements';
import { RunCommits } from './run-commits';
import { emptyMemo, type AlgorithmState, type RunStep } from '../model/algorithm-state';
import { verify } from './verify-phase';

export type { AlgorithmDeps, RunResult, StartInput } from './engine-api';

const HANDLERS: Record<Phase, (state: AlgorithmState, ctx: NodeContext) => Promise<void>> = {
  OBSERVE: observe,
  THINK: think,
  PLAN: plan,
  BUILD: build,
  EXECUTE: execute,
  VERIFY: verify,
  LEARN: async () => undefined,
};

/** Thrown inside the engine to end a run as cancelled; never a failure. */
const isExit = (s: RunState) => EXIT_STATES.includes(s);
/** The run's time as committed: what it spent (the budget's) and, apart, what it waited for a person. */
const timesOf = (tracker: BudgetTracker) => ({ elapsedMs: tracker.elapsedMs(), ...(tracker.waitedMs() > 0 ? { waitedMs: tracker.waitedMs() } : {}) });
const BEFORE_VERIFY: readonly Phase[] = ['OBSERVE', 'THINK', 'PLAN', 'BUILD', 'EXECUTE'];
/** How a node's work ends when its deadline aborts it (NodeDeadline): the cut itself, or the model call it cancelled. */
const isCut = (error: unknown) => isNodeBudgetCut(error) || isCancellation(error);

/**
 * The Algorithm as a small runner over the phase graph: for each node it
 * applies the budget, runs the node's role, checks its gate, and commits the transition
 * (with its events) before the next node begins. Cancellation stops at the next safe
 * point and keeps the state; `resume` continues from the last committed step.
 */
export class AlgorithmEngine {
  private readonly graph: PhaseGraph;
  /** Whether a node of the graph reviews the criteria (the `testable` gate); see reviewedBy. */
  private readonly graphReviews: boolean;
  private readonly roles: Roles;
  private readonly capabilities: Capabilities;
  private readonly clock: Clock;
  private readonly instance = `w${Math.random().toString(36).slice(2, 8)}`;
  /** Events waiting for their commit, the commits themselves, and EXECUTE's progress. */
  private readonly commits: RunCommits;
  /** What the PRD showed after its last sync, to skip syncs that would change nothing. */
  private prdShown = '';
  /** Lessons from servers' refusals already known (from the store) or already reported as run events. */
  private readonly lessonsSeen = new Set<string>();
  private readonly restatements = new RestatementInbox();

  constructor(private readonly deps: AlgorithmDeps) {
    this.graph = deps.graph ?? shippedPhaseGraph();
    this.graphReviews = Object.values(this.graph.nodes).some((n) => n?.gate === 'testable');
    this.roles = deps.roles ?? shippedRoles();
    this.capabilities = deps.capabilities ?? shippedCapabilities();
    this.clock = deps.clock ?? systemClock;
    this.commits = new RunCommits(deps.storage, this.clock, deps.onEvent, deps.logger, deps.onCommit);
    // Each role starts on the model tier its level's capabilities name (the router falls back, with a note, when it cannot).
    const levels = this.capabilities.levels;
    deps.models.preferTiers?.((role, level) => levels[level]?.models[role]);
    for (const key of this.lessonKeys()) this.lessonsSeen.add(key[0]);
  }

  /** Every lesson the run's models carry now, keyed by provider, model and parameter. */
  private lessonKeys(): [string, Parameters<typeof describeLesson>[0]][] {
    const slots = [...(this.deps.models.resolved?.slots.values() ?? [])];
    return slots.flatMap((slot) => (slot.ok ? [...(slot.model.profile?.learned ?? [])] : [])).map((l) => [`${l.providerId}\u0000${l.model}\u0000${l.param}`, l]);
  }

  async start(input: StartInput, signal: AbortSignal = new AbortController().signal): Promise<RunResult> {
    const table = this.deps.effort;
    let request = input.request.trim();
    let effort: EffortLevel;
    let why: string;
    if (input.effort === 'AUTO') {
      const c = classifyEffort(request, table);
      ({ level: effort, request } = c);
      why = `effort ${effort} chosen by the classifier: ${c.reasons.join(', ')}`;
    } else {
      effort = input.effort;
      why = `effort ${effort}`;
    }
    const refusal = await this.deps.refuseStart?.();
    if (refusal !== undefined) throw new RunRefusedError(refusal);
    const now = this.clock.now();
    const created = createRun({ request, effort, ...(input.workspaceFolder ? { workspaceFolder: input.workspaceFolder } : {}) }, table, now);
    const run: Run = { ...created, state: 'RUNNING', phase: this.graph.entry, iteration: 1, startedAt: now.toISOString(), ...(input.prd ? { prdPath: input.prd.path } : {}) };
    const state: AlgorithmState = {
      run,
      criteria: [...(input.prd?.criteria ?? []), ...(input.seed?.criteria ?? []).filter((c) => !input.prd?.criteria.some((p) => p.id === c.id))],
      packets: [],
      candidates: [],
      decisions: [],
      memo: { ...emptyMemo(), pinned: (input.prd?.criteria ?? []).map((c) => c.id), reviewed: [], ...(input.prd?.maxIterations !== undefined ? { maxIterations: input.prd.maxIterations } : {}) },
      stepSeq: 0,
      eventSeq: 0,
    };
    this.emit(state, { kind: 'phase', message: `run started: ${why}`, role: 'system' });
    this.reportUnknownCosts(state);
    if (input.prd) this.emit(state, { kind: 'note', message: `spec from ${input.prd.path}: ${input.prd.criteria.length} criteria kept as written`, role: 'user' });
    if (input.seed) this.emit(state, { kind: 'note', message: `starting criteria from ${input.seed.from}: ${input.seed.criteria.map((c) => c.id).join(', ')}; OBSERVE refines them`, role: 'user' });
    this.commit(state, {});
    await this.syncPrd(state);
    return this.loop(state, signal);
  }

  async resume(runId: string, signal: AbortSignal = new AbortController().signal): Promise<RunResult> {
    const state = this.deps.storage.load(runId);
    if (!state) throw new Error(`no run ${runId} in this store`);
    // A cancelled run keeps its state so it can go on; the other exit states are final.
    if (isExit(state.run.state) && state.run.state !== 'CANCELLED') return this.result(state);
    // Claims of the process that stopped are stale by definition: that worker is gone.
    const at = this.clock.now().toISOString();
    state.criteria = state.criteria.map((c) => (c.claim ? ({ ...without(c, 'claim'), status: 'PENDING', updatedAt: at } as AnyCriterion) : c));
    state.packets = state.packets.map((p) => (p.status === 'CLAIMED' ? { ...without(p, 'claimedBy'), status: 'PLANNED' as const, updatedAt: at } : p));
    const { finishedAt: _f, exitReason: _r, ...run } = state.run;
    state.run = { ...run, state: 'RUNNING', updatedAt: at };
    this.emit(state, { kind: 'phase', message: `run resumed at ${state.run.phase} (iteration ${state.run.iteration})`, role: 'system' });
    this.commit(state, {});
    return this.loop(state, signal);
  }

  /**
   * A person restated a criterion of a run this engine is running: it becomes the run's next
   * criteria version before the next node (see RestatementInbox), never a write behind it.
   */
  restate(runId: string, restatement: Restatement): void {
    this.restatements.add(runId, restatement);
  }

  private applyRestatements(state: AlgorithmState): AlgorithmState {
    const { state: next, changed, refused } = this.restatements.apply(state, this.clock.now());
    for (const why of refused) this.emit(next, { kind: 'note', message: `a restatement was not applied: ${why}`, role: 'user' });
    if (changed.length > 0) this.emit(next, { kind: 'note', message: `criteria v${next.run.criteriaVersion}: ${changed.join('; ')} (edited in the ISC table; verify it again)`, role: 'user' });
    if (changed.length > 0 || refused.length > 0) this.commit(next, { criteria: next.criteria, decisions: next.decisions });
    return next;
  }

  private async loop(initial: AlgorithmState, signal: AbortSignal): Promise<RunResult> {
    let state = initial;
    const tracker = new BudgetTracker(state.run.budgetSeconds, this.deps.effort.compressAtPercent, this.clock, state.run.elapsedMs, this.deps.waits, state.run.waitedMs);
    while (!isExit(state.run.state)) {
      if (signal.aborted) {
        state = this.finish(state, 'CANCELLED', `cancelled at ${state.run.phase}`, tracker);
        break;
      }
      state = this.applyRestatements(state);
      state = await this.runNode(state, tracker, signal);
      await this.syncPrd(state);
    }
    await this.syncPrd(state);
    await this.afterRun(state, signal);
    return this.result(state);
  }

  /**
   * LEARN's look back, once the exit state is committed: the learning service reflects
   * (STANDARD and above) and mines now and then. A cancelled run may be resumed, so it waits.
   * Whatever happens here is a run event; the run's exit state is already final.
   */
  private async afterRun(state: AlgorithmState, signal: AbortSignal): Promise<void> {
    const learning = this.deps.learning;
    if (!learning || state.run.state === 'CANCELLED') return;
    try {
      const done = await learning.afterRun(state.run, signal, (u) => {
        const e = usageToRunEvent(u, { runId: state.run.id, seq: 0, at: '', phase: 'LEARN', role: 'manager', purpose: 'LEARN: reflection' });
        this.emit(state, { kind: 'model', message: e.message, role: 'manager', phase: 'LEARN', model: e.model, inputTokens: e.inputTokens, outputTokens: e.outputTokens, ...cacheFieldsOf(e), costUsd: e.costUsd, durationMs: e.durationMs });
      });
      for (const line of done) this.emit(state, { kind: 'note', message: `LEARN: ${line}`, phase: 'LEARN', role: 'system' });
    } catch (error) {
      const why = signal.aborted ? 'cancelled' : describeError(error);
      this.deps.logger?.warn(`${state.run.id}: learning after the run failed (${why}); the run stays ${state.run.state}`);
      this.emit(state, { kind: 'note', message: `LEARN: the reflection could not be written (${why}); the run stays ${state.run.state}`, phase: 'LEARN', role: 'system' });
    }
    if (this.commits.hasPending(state.run.id)) this.commit(state, {});
  }

  private async runNode(committed: AlgorithmState, tracker: BudgetTracker, signal: AbortSignal): Promise<AlgorithmState> {
    const state = structuredClone(committed);
    const phase = state.run.phase;
    const node = nodeOf(this.graph, phase);
    const spec = this.deps.effort.levels[state.run.effort];
    // The node's time is the budget's: a wait for a person inside it is left out.
    const began = tracker.elapsedMs();

    if (!state.memo.compressed && tracker.shouldCompress()) {
      state.memo.compressed = true;
      this.emit(state, { kind: 'budget', message: `${tracker.percent()} % of the ${state.run.budgetSeconds} s budget used: compressing (no new packets, straight to VERIFY and LEARN)`, phase });
      if (BEFORE_VERIFY.includes(phase)) {
        if (state.criteria.length === 0) return this.finish(state, 'BUDGET_EXHAUSTED', 'the wall-time budget ran out before any criteria were written', tracker);
        return this.transition(state, phase, 'skipped', 'VERIFY', tracker);
      }
    }

    this.emit(state, { kind: 'phase', message: `${phase} started (iteration ${state.run.iteration})`, phase, role: node.role === 'system' ? 'system' : node.role });
    const deadline = new NodeDeadline(phase, node, tracker, signal, this.deps.minNodeMs);
    const ctx = this.context(state, phase, spec, deadline);
    const escalated = { escalations: this.deps.models.escalations?.length ?? 0, tierNotes: this.deps.models.tierNotes?.length ?? 0 };
    try {
      await HANDLERS[phase](state, ctx);
    } catch (error) {
      this.recordEscalations(state, phase, escalated);
      const cut = deadline.cut() && isCut(error);
      return cut ? this.cutForBudget(committed, state, phase, deadline, tracker) : this.onNodeError(committed, state, phase, error, signal, tracker);
    } finally {
      deadline.dispose();
    }
    this.recordEscalations(state, phase, escalated);
    const gate = checkGate(node.gate, state, spec);
    const spent = tracker.elapsedMs() - began;
    if (spent > tracker.shareMs(node.budget)) this.emit(state, { kind: 'budget', message: `${phase} took ${spent} ms, over its ${Math.round(node.budget * 100)} % share of the budget`, phase });
    if (!gate.ok) return this.refused(committed, state, phase, gate.problems, tracker);
    state.memo.retry = undefined;
    const reviewed = state.memo.reviewed && reviewedBy(node.gate, state, this.graphReviews);
    if (reviewed) state.memo.reviewed = reviewed;
    // The criteria are accepted and their checks concrete: probe them once, before any work.
    if (phase === 'BUILD' && node.next === 'EXECUTE') await this.probe(state, tracker, signal);
    if (phase === 'VERIFY') return this.afterVerify(state, tracker);
    if (phase === 'LEARN' || node.end) return this.learn(state, tracker);
    return this.transition(state, phase, 'passed', node.next!, tracker);
  }

  private context(state: AlgorithmState, phase: Phase, spec: NodeContext['spec'], deadline: NodeDeadline): NodeContext {
    return {
      phase,
      spec,
      graph: this.graph,
      roles: this.roles,
      capabilities: this.capabilities,
      models: this.deps.models,
      worker: this.deps.worker,
      verifier: this.deps.verifier,
      storage: this.deps.storage,
      ...(this.deps.learning ? { learning: this.deps.learning } : {}),
      // The run's WaitingTime (compose-run gives its approvals'), so a question's wait and an approval's are one.
      ...(this.deps.waits?.begin ? { asking: this.deps.waits as AskingPerson } : {}),
      clock: this.clock,
      logger: this.deps.logger,
      signal: deadline.signal,
      verifyTimeoutMs: this.deps.verifyTimeoutMs ?? 60_000,
      allowanceMs: deadline.allowanceMs,
      timeUp: () => deadline.timeUp(),
      instance: `${state.run.id.slice(4, 10)}-${this.instance}`,
      retryProblems: state.memo.retry?.phase === phase ? state.memo.retry.problems : [],
      emit: (s, e) => this.emit(s, { phase, ...e }),
      commitProgress: (s) => this.commits.commitBeforeWaiting(s),
    };
  }

  /**
   * Escalations from a local to a frontier model during the node, as run events (every escalation is
   * logged, so a run's cost can be explained), and where a role could not start on its level's model tier.
   */
  private recordEscalations(state: AlgorithmState, phase: Phase, from: { escalations: number; tierNotes: number }): void {
    // A server refused a parameter and the call was made again without it (src/llm/adapt.ts).
    for (const [key, lesson] of this.lessonKeys()) {
      if (this.lessonsSeen.has(key)) continue;
      this.lessonsSeen.add(key);
      this.emit(state, { kind: 'model', message: `adapted: ${describeLesson(lesson)}`, phase, model: lesson.model });
    }
    for (const note of this.deps.models.tierNotes?.slice(from.tierNotes) ?? []) {
      this.emit(state, { kind: 'model', message: note.message, phase, role: note.role, model: note.model });
    }
    for (const e of this.deps.models.escalations?.slice(from.escalations) ?? []) {
      const event = escalationToRunEvent(e, { runId: state.run.id, seq: 0, at: '', phase });
      this.emit(state, { kind: 'model', message: event.message, phase, ...(event.role ? { role: event.role } : {}), ...(event.model ? { model: event.model } : {}), ...(event.durationMs !== undefined ? { durationMs: event.durationMs } : {}) });
    }
  }

  /** The gate refused: ask again (retries), go to `on_fail`, or end the run FAILED. The refused output is not kept. */
  private refused(committed: AlgorithmState, attempted: AlgorithmState, phase: Phase, problems: string[], tracker: BudgetTracker): AlgorithmState {
    const node = nodeOf(this.graph, phase);
    // Keep what happened inside the node that was already committed (EXECUTE progress), drop the rest.
    const state = phase === 'EXECUTE' ? attempted : { ...structuredClone(committed), eventSeq: attempted.eventSeq };
    this.emit(state, { kind: 'phase', message: `${phase} gate refused: ${problems.join('; ')}`, phase, role: 'system' });
    const count = (state.memo.retry?.phase === phase ? state.memo.retry.count : 0) + 1;
    if (count <= node.retries) {
      state.memo.retry = { phase, count, problems };
      return this.transition(state, phase, 'refused', phase, tracker);
    }
    state.memo.retry = undefined;
    if (node.on_fail) return this.transition(state, phase, 'refused', node.on_fail, tracker);
    return this.finish(state, 'FAILED', `the ${phase} gate refused the output${node.retries > 0 ? ` ${count} times` : ''}: ${problems.join('; ')}`, tracker);
  }

  private onNodeError(committed: AlgorithmState, attempted: AlgorithmState, phase: Phase, error: unknown, signal: AbortSignal, tracker: BudgetTracker): AlgorithmState {
    const kept = phase === 'EXECUTE' ? attempted : { ...structuredClone(committed), eventSeq: attempted.eventSeq };
    if (signal.aborted || isCancellation(error)) {
      return this.finish(kept, 'CANCELLED', `cancelled during ${phase}`, tracker);
    }
    const message = error instanceof Error ? error.message : String(error);
    if (isBudgetExceeded(error)) {
      kept.memo.stopping = 'BUDGET_EXHAUSTED';
      kept.memo.stopReason = message;
      this.emit(kept, { kind: 'budget', message, phase });
      const worked = kept.criteria.length > 0 && BEFORE_VERIFY.includes(phase) && kept.candidates.length > 0;
      if (worked) return this.transition(kept, phase, 'skipped', 'VERIFY', tracker);
      kept.memo.exit = 'BUDGET_EXHAUSTED';
      kept.memo.exitReason = message;
      return this.learn(kept, tracker);
    }
    this.deps.logger?.error(`${kept.run.id} ${phase}: ${message}`);
    return this.finish(kept, 'FAILED', `${phase} failed: ${message}`, tracker);
  }

  /**
   * The node ran out of its share of the budget (NodeDeadline): like a spent budget, the run
   * compresses — what was worked is verified, then LEARN; with nothing to verify it ends
   * BUDGET_EXHAUSTED now. The node's partial output is not kept (EXECUTE's finished packets are).
   */
  private cutForBudget(committed: AlgorithmState, attempted: AlgorithmState, phase: Phase, deadline: NodeDeadline, tracker: BudgetTracker): AlgorithmState {
    const kept = phase === 'EXECUTE' ? attempted : { ...structuredClone(committed), eventSeq: attempted.eventSeq };
    const share = Math.round(nodeOf(this.graph, phase).budget * 100);
    const why = `${phase} used its ${share} % share of the ${kept.run.budgetSeconds} s budget (${Math.round(deadline.allowanceMs / 100) / 10} s with the run's ${this.deps.effort.compressAtPercent} % tolerance) and was cut`;
    kept.memo.compressed = true;
    kept.memo.stopping = 'BUDGET_EXHAUSTED';
    kept.memo.stopReason = why;
    const worked = kept.criteria.length > 0 && BEFORE_VERIFY.includes(phase) && kept.candidates.length > 0;
    this.emit(kept, { kind: 'budget', message: `${why}: compressing, ${worked ? 'straight to VERIFY with what was worked' : 'nothing new to verify'}`, phase });
    if (worked) return this.transition(kept, phase, 'skipped', 'VERIFY', tracker);
    kept.memo.exit = 'BUDGET_EXHAUSTED';
    kept.memo.exitReason = why;
    return this.learn(kept, tracker);
  }

  /**
   * Probe the probes (src/algorithm/probe.ts): once per run, when BUILD's gate has
   * accepted the criteria and their checks, each runnable check runs on the workspace as it is.
   * No model call and no question to a person: the run pays the checks' own time, bounded by
   * BUILD's share of the budget per check, and cancelling the run cancels it. A compressed run
   * (budget short) and a resumed run that probed already skip it.
   */
  private async probe(state: AlgorithmState, tracker: BudgetTracker, signal: AbortSignal): Promise<void> {
    const prober = this.deps.prober;
    if (!prober || state.memo.probed !== undefined || state.memo.compressed || signal.aborted) return;
    const share = tracker.shareMs(nodeOf(this.graph, 'BUILD').budget);
    await probeAccepted(state, {
      prober,
      signal,
      timeoutMs: Math.min(this.deps.verifyTimeoutMs ?? 60_000, Math.max(share, 5_000)),
      parallelism: this.deps.effort.levels[state.run.effort].parallelism,
      emit: (e) => this.emit(state, { phase: 'BUILD', ...e }),
    });
  }

  /** Decide / iterate. */
  private afterVerify(state: AlgorithmState, tracker: BudgetTracker): AlgorithmState {
    if (tracker.shouldCompress()) state.memo.compressed = true;
    // The PRD's max_iterations, when the run is on one that sets it, replaces the level's.
    const fromPrd = state.memo.maxIterations !== undefined;
    const d = decideAfterVerify({ report: state.report, criteria: state.criteria, graph: this.graph, memo: state.memo, iteration: state.run.iteration, maxIterations: state.memo.maxIterations ?? this.deps.effort.levels[state.run.effort].maxIterations, limitFrom: fromPrd ? 'the PRD' : 'the level' });
    if (d.kind === 'complete') {
      state.memo.exit = 'COMPLETE';
      state.memo.exitReason = 'every CRITICAL criterion verified PASS';
      return this.transition(state, 'VERIFY', 'passed', 'LEARN', tracker);
    }
    if (d.kind === 'stop') {
      state.memo.exit = state.memo.stopping === 'BLOCKED' ? 'BLOCKED' : 'BUDGET_EXHAUSTED';
      state.memo.exitReason = d.reason;
      return this.transition(state, 'VERIFY', 'passed', 'LEARN', tracker);
    }
    const failing = unmetCriteria(state.report, state.criteria).map((c) => c.id);
    const at = this.clock.now().toISOString();
    state.memo.failureStreak = { label: d.label, count: d.streak };
    state.memo.delta = `iteration ${state.run.iteration}: ${state.report!.summary}; failing ${failing.join(', ')} (${d.label}); back to ${d.to}${d.replan ? ` to re-plan after ${d.streak} × ${d.label}` : ''}`;
    this.emit(state, { kind: 'phase', message: state.memo.delta, phase: 'VERIFY', role: 'system' });
    state.criteria = state.criteria.map((c) => (failing.includes(c.id) ? ({ ...c, status: 'PENDING', updatedAt: at } as AnyCriterion) : c));
    const iteration = state.run.iteration + 1;
    if (d.to === 'EXECUTE') {
      state.packets = state.packets
        .filter((p) => p.criterionIds.some((id) => failing.includes(id)))
        .map((p, i) => ({ ...without(p, 'claimedBy'), id: `pkt-${iteration}-${i + 1}`, iteration, status: 'PLANNED' as const, createdAt: at, updatedAt: at }));
      for (const p of state.packets) for (const id of p.criterionIds) state.memo.coverage[id] = [p.id];
    } else {
      state.packets = [];
    }
    const work = state.candidates.map((c) => c.summary).join('; ');
    if (work) state.memo.work = { iteration: state.run.iteration, summary: work };
    state.candidates = [];
    state.run = { ...state.run, iteration };
    return this.transition(state, 'VERIFY', 'passed', d.to, tracker);
  }

  /** LEARN: the exit state (fail-closed), a reflection, the final commit. */
  private learn(state: AlgorithmState, tracker: BudgetTracker): AlgorithmState {
    const { exit, reason } = exitOf(state);
    // With a learning service, the reflection is its (after the commit, from the stored facts).
    return this.finish(state, exit, reason, tracker, this.deps.learning ? undefined : reflectionOf(state, tracker, this.clock.now().toISOString()));
  }

  private transition(state: AlgorithmState, phase: Phase, gate: RunStep['gate'], next: Phase, tracker: BudgetTracker): AlgorithmState {
    const at = this.clock.now().toISOString();
    state.run = { ...state.run, phase: next, updatedAt: at, ...timesOf(tracker) };
    const step: RunStep = { runId: state.run.id, seq: state.stepSeq++, at, phase, iteration: state.run.iteration, gate, next, memo: state.memo };
    if (gate !== 'refused') this.emit(state, { kind: 'phase', message: `${phase} → ${next}`, phase, role: 'system' });
    this.commit(state, { criteria: state.criteria, packets: state.packets, candidates: state.candidates, ...(state.report ? { report: state.report } : {}), decisions: state.decisions, step });
    return state;
  }

  private finish(state: AlgorithmState, exit: RunState, reason: string, tracker: BudgetTracker, reflection?: Reflection): AlgorithmState {
    const at = this.clock.now().toISOString();
    state.run = { ...state.run, state: exit, exitReason: reason, finishedAt: at, updatedAt: at, ...timesOf(tracker) };
    const step: RunStep = { runId: state.run.id, seq: state.stepSeq++, at, phase: state.run.phase, iteration: state.run.iteration, gate: 'passed', memo: state.memo };
    this.emit(state, { kind: 'phase', message: `run ended ${exit}${reason ? `: ${reason}` : ''}`, phase: state.run.phase, role: 'system' });
    this.commit(state, { criteria: state.criteria, packets: state.packets, candidates: state.candidates, ...(state.report ? { report: state.report } : {}), decisions: state.decisions, step, ...(reflection ? { reflection } : {}) });
    return state;
  }

  /** Models the run may call whose cost cannot be known: the money caps cannot hold for them, and the run says so first. */
  private reportUnknownCosts(state: AlgorithmState): void {
    const resolved = this.deps.models.resolved;
    const models = [...(resolved?.slots.values() ?? [])].flatMap((slot) => (slot.ok ? [slot.model] : []));
    for (const notice of moneyCapNotices(models, resolved?.catalogue)) this.emit(state, { kind: 'model', message: notice.message, role: 'system', model: notice.model });
  }

  private emit(state: AlgorithmState, e: EventDraft): RunEvent {
    return this.commits.emit(state, e);
  }

  private commit(state: AlgorithmState, parts: Omit<StepCommit, 'run' | 'events'>): void {
    this.commits.commit(state, parts);
  }

  private async syncPrd(state: AlgorithmState): Promise<void> {
    // No PRD is created before a criterion may be shown in it (a draft the gates refused is not one).
    if (!this.deps.prdFor || (shownCriteria(state).length === 0 && !state.run.prdPath)) return;
    // Only what the PRD shows: a step that changed none of it (PLAN, EXECUTE) costs no parse.
    const shown = JSON.stringify([state.run.state, state.run.iteration, state.run.criteriaVersion, state.report?.id, state.decisions.length, state.criteria.map((c) => [c.id, c.text, c.verify, c.outcome]), state.memo.reviewed, state.memo.approvedCommands, state.memo.probed]);
    if (shown === this.prdShown) return;
    const file = this.deps.prdFor(state.run);
    try {
      const text = syncPrdText(await file.read(), state, this.deps.effort, this.clock.now());
      await file.write(text);
      this.prdShown = shown;
      if (state.run.prdPath !== file.path) {
        state.run = { ...state.run, prdPath: file.path };
        this.commit(state, {});
      }
    } catch (error) {
      // The store holds the truth; a PRD that cannot be written is reported, not fatal.
      this.deps.logger?.warn(`${state.run.id}: the PRD ${file.path} could not be updated: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private result(state: AlgorithmState): RunResult {
    return {
      run: state.run,
      state: state.run.state,
      criteria: state.criteria,
      ...(state.report ? { report: state.report } : {}),
      ...(state.memo.bestReportId ? { bestReportId: state.memo.bestReportId } : {}),
      unmet: unmetCriteria(state.report, state.criteria),
      ...(state.run.exitReason ? { reason: state.run.exitReason } : {}),
    };
  }
}

function without<T extends object, K extends keyof T>(o: T, key: K): Omit<T, K> {
  const { [key]: _dropped, ...rest } = o;
  return rest;
}
