import { setMaxListeners } from 'node:events';
import type { ModelRouter } from '../../llm/router';
import type { AnyCriterion, EffortLevel, IscDefinition } from '../../model';
import { effortForIteration } from './decay';
import { describeError, isCancellation } from '../../model/errors';
import { newId } from '../../model/ids';
import { LoopSpec, type Loop, type LoopArtifact, type LoopNotice, type LoopProgress, type LoopReport, type LoopSpecInput, type LoopStartedBy, type LoopState } from '../../model/loop';
import type { RunPorts } from '../compose-run';
import { DEFAULT_PRD_FOLDER } from '../defaults';
import { LoopInputError, listArtifacts, shardIndexOf, shardOf } from './artifacts';
import { demoLoopRefusal, routedModels } from '../demo-replay';
import { artifactCriteria } from './criteria';
import { renderLoopPrd } from './loop-prd';
import { PersonWaits } from './person-waits';
import { AgentPool } from './pool';
import { loopReport, progressOf } from './report';
import { ArtifactVerifier } from './verify-artifact';
import { workArtifact } from './work-artifact';

export interface LoopPorts {
  /** What each artifact's sub-run is composed from (composeRun's ports: store, files, models, effort…). */
  readonly run: RunPorts;
  /** The ISC template the loop's spec names (`spec.isc` is its artifact type). */
  readonly definition: IscDefinition;
  /** The models of one artifact's sub-run and its validator, asked once per sub-run; by default `run.models` (the scripted provider replays its script per sub-run). */
  readonly modelsFor?: (file: string) => ModelRouter;
  /** Who claims (default: this process and a random tail). */
  readonly owner?: string;
  /** How long a claim holds without its owner finishing (default 30 minutes). */
  readonly claimTtlMs?: number;
  readonly clock?: { now(): Date };
  /** After every acknowledged result and at each iteration's end. */
  readonly onProgress?: (progress: LoopProgress) => void;
  /** A line for the terminal or the output channel ("iteration 2: 87/100 artifacts passing…"). */
  readonly onLog?: (line: string) => void;
  /** Figures for the bench: how long each acknowledged result's commit took. */
  readonly onCommitMs?: (ms: number, acknowledged: number) => void;
  /** Who starts a new loop (kept on the loop, its PRD and its sub-runs' bundles); a person when not given. */
  readonly startedBy?: LoopStartedBy;
}

export interface LoopResult {
  readonly loop: Loop;
  readonly artifacts: readonly LoopArtifact[];
  readonly state: LoopState;
  readonly unmet: readonly string[];
  readonly report: LoopReport;
}

const isFinal = (s: LoopState) => s !== 'RUNNING';

/**
 * The Algorithm over many artifacts: iteration by iteration, verify the artifacts not yet
 * verified, then work the failing ones with a pool of agents (each a sub-run through
 * composeRun with the artifact's criteria), each edit kept only when the validator approves.
 * Every acknowledged result is one commit of that artifact's row, so a crash loses none.
 */
export class LoopEngine {
  private readonly clock: { now(): Date };
  private readonly owner: string;
  private readonly verifier: ArtifactVerifier;
  private readonly prdFolder: string;
  private artifacts = new Map<string, LoopArtifact>();
  private changed = new Set<string>();
  private sessionStart = 0;
  /** The loop's time before this session (a resumed loop's earlier sessions). */
  private earlierMs = 0;
  private acknowledged = 0;
  /** Waits for a person: out of the loop's budget, as a run keeps them out of its own. */
  private readonly waits = new PersonWaits();
  /** What the sub-runs and verifications are composed from: the run's ports, every approval timed. */
  private readonly run: RunPorts;
  private waitedBefore = 0;

  constructor(private readonly ports: LoopPorts) {
    this.clock = ports.clock ?? { now: () => new Date() };
    this.owner = ports.owner ?? `pid${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    this.run = { ...ports.run, approver: this.waits.wrap(ports.run.approver) };
    this.verifier = new ArtifactVerifier(this.run);
    this.prdFolder = (ports.run.prdFolder ?? DEFAULT_PRD_FOLDER).replace(/\/+$/, '');
  }

  private get store() {
    return this.ports.run.store;
  }

  /** A new loop over the spec's artifacts (its shard of them). Bad input throws LoopInputError. */
  async start(input: LoopSpecInput, signal: AbortSignal = new AbortController().signal): Promise<LoopResult> {
    const parsed = LoopSpec.safeParse(input);
    if (!parsed.success) throw new LoopInputError(`the loop's spec: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    const spec = parsed.data;
    if (!spec.verifyOnly) {
      const refusal = demoLoopRefusal(routedModels(this.ports.run.models));
      if (refusal !== undefined) throw new LoopInputError(refusal);
    }
    if (spec.isc !== this.ports.definition.artifactType) throw new LoopInputError(`the spec names ISC template ${spec.isc} but ${this.ports.definition.artifactType} was given`);
    const all = await listArtifacts(this.ports.run.files.root, spec.glob, { signal });
    const files = spec.shard ? shardOf(all, spec.shard.index, spec.shard.count) : all;
    if (all.length === 0) throw new LoopInputError(`--glob "${spec.glob}" matches no file in ${this.ports.run.files.root}`);
    const now = this.clock.now().toISOString();
    const level = this.ports.run.effort.levels[spec.effort];
    const pool = this.poolSize(spec, spec.effort);
    const loop: Loop = {
      id: newId('loop', this.clock.now()),
      spec,
      state: 'RUNNING',
      iteration: 0,
      effort: spec.effort,
      criterionIds: [...this.ports.definition.idealCriteria.map((c) => c.id), ...this.ports.definition.antiCriteria.map((c) => c.id)],
      total: files.length,
      passing: 0,
      budgetSeconds: spec.budgetSeconds ?? level.budgetSeconds * Math.max(1, Math.ceil(files.length / pool)) * (spec.verifyOnly ? 1 : spec.maxIterations),
      elapsedMs: 0,
      log: [],
      unmet: [],
      createdAt: now,
      updatedAt: now,
      ...(this.ports.startedBy ? { startedBy: this.ports.startedBy } : {}),
    };
    const rows: LoopArtifact[] = files.map((file) => ({ loopId: loop.id, file, shard: shardIndexOf(file, spec.shard?.count ?? 1), status: 'PENDING', iteration: 0, workedIteration: 0, runIds: [], outcomes: {}, evidence: {}, notices: [], updatedAt: now }));
    this.store.batch((r) => {
      r.loops.save(loop);
      r.loops.saveArtifacts(...rows);
    });
    this.artifacts = new Map(rows.map((a) => [a.file, a]));
    this.changed = new Set(files);
    return this.go(loop, signal);
  }

  /**
   * Goes on with a stored loop. Acknowledged results are kept and never redone; an artifact
   * claimed by the process that stopped (killed, cancelled) is verified again: the store has
   * one writer process, so no claim in it can belong to a live agent elsewhere.
   */
  async resume(loopId: string, signal: AbortSignal = new AbortController().signal): Promise<LoopResult> {
    const stored = this.store.loops.get(loopId);
    if (!stored) throw new LoopInputError(`no loop ${loopId} in ${this.store.location}`);
    const rows = this.store.loops.artifactsOf(loopId);
    this.artifacts = new Map(rows.map((a) => [a.file, a]));
    if (isFinal(stored.state) && stored.state !== 'CANCELLED') return this.result(stored);
    const now = this.clock.now().toISOString();
    const freed = rows.filter((a) => a.claim || a.status === 'WORKING').map((a): LoopArtifact => ({ ...withoutClaim(a), status: 'PENDING', updatedAt: now }));
    const { finishedAt: _f, reason: _r, ...rest } = stored;
    const loop: Loop = { ...rest, state: 'RUNNING', unmet: [], updatedAt: now };
    this.store.batch((r) => {
      r.loops.save(loop);
      r.loops.saveArtifacts(...freed);
    });
    for (const a of freed) this.artifacts.set(a.file, a);
    this.changed = new Set(this.artifacts.keys());
    this.log(`loop ${loop.id} resumed at iteration ${Math.max(1, loop.iteration)}: ${freed.length} interrupted artifact(s) verified again`);
    return this.go(loop, signal);
  }

  private poolSize(spec: LoopSpec, level: EffortLevel): number {
    return Math.max(1, Math.min(spec.agents, this.ports.run.effort.levels[level].parallelism));
  }

  private usedMs(): number {
    return Math.max(0, this.earlierMs + (Date.now() - this.sessionStart) - this.waitedMs());
  }

  /** This session's time waiting for a person. */
  private waitedMs(): number {
    return this.waits.total() - this.waitedBefore;
  }

  private overBudget(loop: Loop): boolean {
    return this.usedMs() >= loop.budgetSeconds * 1000;
  }

  private async go(initial: Loop, signal: AbortSignal): Promise<LoopResult> {
    this.sessionStart = Date.now();
    this.waitedBefore = this.waits.total();
    this.earlierMs = initial.elapsedMs;
    // Every agent's sub-run, model calls and verifications listen to the one signal at once.
    setMaxListeners(0, signal);
    let loop = initial;
    const spec = loop.spec;
    // The views know the loop from its start, before any result: a first verification that waits
    // for a person (a command to approve) shows the loop going, and Cancel finds it.
    this.log(`loop ${loop.id}: ${loop.total} artifact(s) matching ${spec.glob} against ${spec.isc}, ${this.poolSize(spec, loop.effort)} agent(s) at ${loop.effort}`);
    this.progress(loop);
    let ended: { state: LoopState; reason: string } | undefined;
    try {
      for (let k = Math.max(1, loop.iteration); !ended; k++) {
        const effort = effortForIteration(spec.effort, k);
        if (k !== loop.iteration || effort !== loop.effort) {
          loop = this.saveLoop({ ...loop, iteration: k, effort });
          if (effort !== spec.effort && k === 4) this.log(`iteration ${k}: effort decays to ${effort}`);
        }
        await this.verifyPending(loop, signal);
        if (!spec.verifyOnly) await this.work(loop, signal);
        if (signal.aborted) {
          ended = { state: 'CANCELLED', reason: `cancelled in iteration ${k}` };
          break;
        }
        loop = await this.endIteration(loop);
        const failing = this.failing();
        if (failing.length === 0) ended = { state: 'COMPLETE', reason: `all ${loop.total} artifacts pass` };
        else if (spec.verifyOnly) ended = { state: 'FAILED', reason: `verified only: ${failing.length} of ${loop.total} artifacts fail` };
        else if (this.overBudget(loop)) ended = { state: 'BUDGET_EXHAUSTED', reason: `the loop's budget of ${loop.budgetSeconds} s is spent with ${failing.length} artifact(s) unmet` };
        else if (k >= spec.maxIterations) ended = { state: 'FAILED', reason: `${spec.maxIterations} iteration(s) done; ${failing.length} artifact(s) unmet` };
      }
    } catch (error) {
      if (!isCancellation(error) && !signal.aborted) throw error;
      ended = { state: 'CANCELLED', reason: `cancelled in iteration ${loop.iteration}` };
    }
    const now = this.clock.now().toISOString();
    const unmet = ended.state === 'COMPLETE' ? [] : this.failing();
    loop = this.saveLoop({ ...loop, state: ended.state, reason: ended.reason, unmet, ...(ended.state !== 'CANCELLED' ? { finishedAt: now } : {}) });
    this.log(`${ended.state}: ${ended.reason}`);
    loop = await this.writePrd(loop);
    this.progress(loop);
    return this.result(loop);
  }

  private failing(): string[] {
    return [...this.artifacts.values()].filter((a) => a.status !== 'PASSING').map((a) => a.file);
  }

  private criteriaOf(file: string): AnyCriterion[] {
    return artifactCriteria(this.ports.definition, file, this.clock.now().toISOString());
  }

  private modelsOf(file: string): ModelRouter {
    return this.ports.modelsFor?.(file) ?? this.ports.run.models;
  }

  /** Verifies every artifact without a result yet, with the level's parallel verifiers. */
  private async verifyPending(loop: Loop, signal: AbortSignal): Promise<void> {
    const pending = [...this.artifacts.values()].filter((a) => a.status === 'PENDING').map((a) => a.file);
    const parallelism = this.ports.run.effort.levels[loop.effort].parallelism;
    let next = 0;
    const worker = async () => {
      while (next < pending.length && !signal.aborted) {
        const file = pending[next++]!;
        const v = await this.waits.task(() => this.verifier.verify(this.criteriaOf(file), { models: this.ports.run.models, level: loop.effort, parallelism: 1, signal }));
        this.acknowledge({ ...this.artifacts.get(file)!, status: v.passed ? 'PASSING' : 'FAILING', iteration: loop.iteration, outcomes: v.outcomes, evidence: v.evidence }, loop);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(parallelism, pending.length)) }, worker));
  }

  /** Works the failing artifacts not yet worked in this iteration with a pool of agents. */
  private async work(loop: Loop, signal: AbortSignal): Promise<void> {
    const queue = [...this.artifacts.values()].filter((a) => a.status === 'FAILING' && a.workedIteration < loop.iteration).map((a) => a.file);
    if (queue.length === 0) return;
    const pool = new AgentPool(this.store, loop.id, this.owner, this.poolSize(loop.spec, loop.effort), this.ports.claimTtlMs ?? 30 * 60_000, () => this.clock.now(), loop.iteration);
    await pool.run(
      queue,
      async (claimed) => {
        this.artifacts.set(claimed.file, claimed);
        this.changed.add(claimed.file);
        this.progress(loop);
        await this.waits.task(() => this.workOne(claimed, loop, signal));
      },
      () => signal.aborted || this.overBudget(loop),
    );
  }

  /** One artifact's turn (workArtifact), its result acknowledged in one commit; a cancelled turn is verified again on resume. */
  private async workOne(claimed: LoopArtifact, loop: Loop, signal: AbortSignal): Promise<void> {
    const { file } = claimed;
    let runId: string | undefined;
    const onRun = (id: string) => {
      if (runId === id) return;
      runId = id;
      // The views learn of the sub-run as it starts: the loop counts it and holds it while it works.
      this.acknowledge({ ...claimed, runId: id, runIds: [...claimed.runIds, id] }, loop, false);
    };
    try {
      const { next, notice } = await workArtifact({ run: this.run, verifier: this.verifier, models: this.modelsOf(file), now: () => this.clock.now() }, claimed, this.criteriaOf(file), loop, signal, onRun);
      this.acknowledge(withoutClaim(next), loop);
      if (notice?.verdict === 'rejected') this.log(`${file}: rejected by ${notice.by} (${notice.failures.map((f) => `${f.criterionId} ${f.outcome}`).join(', ')})${notice.reverted ? '; its edit was put back' : notice.unchanged ? '; the sub-run changed no file' : ''}`);
    } catch (error) {
      const before = withoutClaim(claimed);
      if (isCancellation(error) || signal.aborted) {
        this.acknowledge({ ...before, status: 'PENDING', ...(runId ? { runId, runIds: [...before.runIds, runId] } : {}) }, loop, false);
        return;
      }
      const notice: LoopNotice = { file, iteration: loop.iteration, ...(runId ? { runId } : {}), verdict: 'rejected', reverted: false, by: `the loop (the sub-run failed: ${describeError(error)})`, failures: [], at: this.clock.now().toISOString() };
      this.acknowledge({ ...before, status: 'FAILING', workedIteration: loop.iteration, notices: [...before.notices, notice] }, loop);
      this.log(`${file}: the sub-run failed (${describeError(error)})`);
    }
  }

  /** One artifact's result, one commit; the in-memory view follows. */
  private acknowledge(row: LoopArtifact, loop: Loop, counted = true): void {
    const next = { ...row, updatedAt: this.clock.now().toISOString() };
    const began = performance.now();
    this.store.loops.saveArtifacts(next);
    if (counted) this.ports.onCommitMs?.(performance.now() - began, ++this.acknowledged);
    this.artifacts.set(next.file, next);
    this.changed.add(next.file);
    this.progress(loop);
  }

  private async endIteration(loop: Loop): Promise<Loop> {
    const all = [...this.artifacts.values()];
    const passing = all.filter((a) => a.status === 'PASSING').length;
    const failing = all.filter((a) => a.status !== 'PASSING').map((a) => a.file);
    const shown = failing.slice(0, 20).join(', ') + (failing.length > 20 ? `, … (${failing.length - 20} more)` : '');
    const message = `iteration ${loop.iteration}: ${passing}/${all.length} artifacts passing${failing.length > 0 ? `; ${failing.length} failing: ${shown}` : ''}`;
    this.log(message);
    const entry = { iteration: loop.iteration, at: this.clock.now().toISOString(), effort: loop.effort, passing, total: all.length, failing, message };
    const next = this.saveLoop({ ...loop, passing, log: [...loop.log.filter((e) => e.iteration !== loop.iteration), entry] });
    return this.writePrd(next);
  }

  private saveLoop(loop: Loop): Loop {
    const all = [...this.artifacts.values()];
    // The time used is kept with every write, so a killed loop resumes with its budget spent so far.
    const next = { ...loop, passing: all.filter((a) => a.status === 'PASSING').length, elapsedMs: this.sessionStart > 0 ? this.usedMs() : loop.elapsedMs, updatedAt: this.clock.now().toISOString() };
    this.store.loops.save(next);
    return next;
  }

  private progress(loop: Loop): void {
    if (!this.ports.onProgress) return;
    const changed = [...this.changed];
    this.changed.clear();
    this.ports.onProgress(progressOf(loop, [...this.artifacts.values()], changed, this.usedMs(), this.waitedMs()));
  }

  private log(line: string): void {
    this.ports.onLog?.(line);
    this.ports.run.logger?.info(line);
  }

  /** The loop PRD under the PRD folder (not in Restricted Mode); its path is kept on the loop. */
  private async writePrd(loop: Loop): Promise<Loop> {
    if (!this.ports.run.trusted) return loop;
    const rel = loop.prdPath ?? `${this.prdFolder}/${loop.id}.md`;
    const runs = new Map<string, string>();
    for (const a of this.artifacts.values()) {
      const prd = a.runId ? this.store.runs.get(a.runId)?.prdPath : undefined;
      if (prd) runs.set(a.file, prd);
    }
    await this.ports.run.files.writeFile(rel, renderLoopPrd({ loop, artifacts: [...this.artifacts.values()], subRunPrds: runs, prdPath: rel }));
    return loop.prdPath ? loop : this.saveLoop({ ...loop, prdPath: rel });
  }

  private result(loop: Loop): LoopResult {
    const artifacts = [...this.artifacts.values()];
    return { loop, artifacts, state: loop.state, unmet: loop.unmet, report: loopReport(loop.spec, loop.criterionIds, artifacts) };
  }
}

function withoutClaim(a: LoopArtifact): LoopArtifact {
  const { claim: _c, ...rest } = a;
  return rest;
}
