import * as vscode from 'vscode';
import { RUN_STATES } from '../../model/run-states';
import type { ApprovalAnswer, ApprovalRequest } from '../../agent/approvals';
import { PendingApprovals, type DecideResult, type PendingApproval } from '../../agent/pending-approvals';
import type { WaitingTime } from '../../algorithm/budget-tracker';
import type { RunResult, StartInput } from '../../algorithm/engine';
import type { Logger } from '../../model/log';
import type { AnyCriterion, EffortLevel, Outcome, Phase, Run, RunEvent, RunState, VerificationReport } from '../../model';
import type { Settings } from '../../model/settings';
import type { DefinitionsHost } from '../definitions-host';
import { engine } from '../engine';
import type { ModelsHost } from '../models/models-host';
import type { SessionsHost } from '../runs/sessions-host';
import type { StoreHost } from '../store-host';
import type { EditorTaskRunner } from '../verify/task-runner';
import { editorAlgorithm } from './editor-algorithm';
import { closeApprovalDiffs, showApprovalDiff, type DiffShown } from './approval-diff';
import { EditorApprover, type ApprovalAnswerer } from './editor-approver';
import { EditorNotifications } from '../notify/editor-notifications';
import type { ProposalDocuments } from './proposal-documents';
import type { ProcessRunner } from '../../verify/process-runner';

/** One criterion as a run's listeners see it: enough for a table row. */
export interface RunCriterionRow {
  readonly id: string;
  readonly text: string;
  readonly anti: boolean;
  readonly priority: string;
  readonly status: string;
  /** The latest verification outcome, once VERIFY has run. */
  readonly outcome?: Outcome;
  readonly evidence?: string;
}

/** What changed in a run, after every committed transition (for the status bar, the ISC table). */
export interface RunChange {
  readonly runId: string;
  readonly request: string;
  readonly effort: EffortLevel;
  readonly state: RunState;
  readonly phase: Phase;
  readonly iteration: number;
  /** null: until the budget runs out (COMPREHENSIVE). */
  readonly maxIterations: number | null;
  readonly criteria: readonly RunCriterionRow[];
  /**
   * Time against the budget; waiting for a person (a pending approval) is not in it: `waitingMs`
   * while the run waits now, `waitedMs` for every wait so far.
   */
  readonly budget: { readonly seconds: number; readonly elapsedMs: number; readonly percent: number; readonly waitedMs: number; readonly waitingMs?: number; readonly waitingFor?: string };
  /** The manager's model as routed for this run, e.g. "scripted: demo-run". */
  readonly model: string;
  readonly prdPath?: string;
  readonly active: boolean;
  /** The event that caused this change. */
  readonly event?: RunEvent;
}

export interface StartRun {
  readonly request: string;
  readonly effort: EffortLevel | 'AUTO';
  /** A PRD whose criteria are the spec (Run Algorithm on This PRD). */
  readonly prd?: StartInput['prd'];
  /** Starting criteria OBSERVE refines (an ISC template's). */
  readonly seed?: StartInput['seed'];
}

interface ActiveRun {
  runId?: string;
  readonly controller: AbortController;
  readonly startedAt: number;
  baseElapsedMs: number;
  /** What the run had waited for a person before this window went on with it. */
  baseWaitedMs: number;
  /** The run's waits for a person in this window (its ApprovalPolicy's). */
  waiting?: WaitingTime;
  last?: RunChange;
  /** A resumed run's elapsed time is taken from its row once, at its first event of this window. */
  rebased?: boolean;
  /** A run this window went on with (Resume Run), not one it started. */
  readonly resumed?: boolean;
  /** The run as its last durable commit left it (and the last report it carried). */
  seen?: { readonly run: Run; readonly criteria: readonly AnyCriterion[]; readonly report?: VerificationReport };
}

/** A run cannot start or go on as asked; the message says what to do. */
export class RunStartError extends Error {
  override readonly name = 'RunStartError';
  readonly code = 'run-start';
}

/**
 * Owns the runs of this window: starts and resumes them with the editor's engine, keeps
 * their AbortControllers for Cancel Run, and tells listeners about every committed step.
 */
export class RunService implements vscode.Disposable {
  private readonly _onDidChangeRun = new vscode.EventEmitter<RunChange>();
  readonly onDidChangeRun = this._onDidChangeRun.event;
  private readonly active = new Set<ActiveRun>();
  private answerer: ApprovalAnswerer | undefined;
  private trustOverride: boolean | undefined;
  /** The edits and commands the runs wait to have approved: the notification, the ISC table and the palette all answer here. */
  readonly approvals = new PendingApprovals();
  private readonly _onDidChangeApprovals = new vscode.EventEmitter<string>();
  /** Fires with a run's id when its pending approvals changed. */
  readonly onDidChangeApprovals = this._onDidChangeApprovals.event;
  private readonly approvalListeners: { dispose(): void }[];

  constructor(
    private readonly settings: Settings,
    private readonly definitions: DefinitionsHost,
    private readonly stores: StoreHost,
    private readonly models: ModelsHost,
    private readonly tasks: EditorTaskRunner,
    private readonly processes: ProcessRunner,
    private readonly proposals: ProposalDocuments,
    private readonly sessions: SessionsHost,
    private readonly log: Logger,
  ) {
    this.approvalListeners = [
      this.approvals.onDidChange((runId) => {
        this._onDidChangeApprovals.fire(runId);
        this.sessions.get().tell({ kind: 'approvals', runId });
      }),
      this.approvals.onDidDecide(({ approval, answer, via }) => {
        this.log.child('run').info(`${approval.runId.slice(-6)} ${approval.title}: ${answer} (from ${via})`);
        closeApprovalDiffs(approval, answer !== 'deny' && answer !== 'never', vscode.workspace.workspaceFolders?.[0]);
      }),
    ];
  }

  /** Answers a pending approval from any surface; the first answer wins. */
  decideApproval(approvalId: string, answer: ApprovalAnswer, via: string): DecideResult {
    return this.approvals.decide(approvalId, answer, via);
  }

  /** Opens the real diff of a pending edit (the file beside the proposal); writes nothing. */
  async showApprovalDiff(approvalId: string, viewColumn?: vscode.ViewColumn): Promise<DiffShown> {
    const approval: PendingApproval | undefined = this.approvals.get(approvalId);
    if (!approval) return { ok: false, message: 'That change was already answered (or its run ended).' };
    return showApprovalDiff(approval, this.proposals, vscode.workspace.workspaceFolders?.[0], viewColumn);
  }

  /** The latest change of every run that is going now. */
  activeRuns(): RunChange[] {
    return [...this.active].flatMap((a) => (a.last ? [this.withBudget(a, a.last)] : []));
  }

  /** Runs in the store that stopped before an exit state (a reload or crash) or were cancelled, newest first. */
  async unfinishedRuns(): Promise<Run[]> {
    const going = new Set([...this.active].map((a) => a.runId));
    const store = await this.stores.get();
    return store.runs
      // These stopped on the way; a cancelled run keeps its state for Resume Run. The other exit states are final.
      .list(RUN_STATES.resumable)
      // A verification or a PRD saved outside a run is PENDING with no step: nothing to resume.
      .filter((r) => !going.has(r.id) && store.steps.count('run_id = ?', [r.id]) > 0)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /** Runs whose files the run changed and kept checkpoints of, newest first. */
  async runsWithChanges(): Promise<Run[]> {
    const store = await this.stores.get();
    return store.runs
      .list()
      .filter((r) => store.checkpoints.where('run_id = ?', [r.id]).length > 0)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  async start(input: StartRun, onStarted?: (runId: string) => void): Promise<RunResult> {
    // Auto: the engine classifies the request again, the same way; the level here sizes the run's model budget.
    const level = input.effort === 'AUTO' ? engine().classifyEffort(input.request, (await this.definitions.get()).effort.table).level : input.effort;
    return this.go(level, (algo, signal) =>
      algo.start({ request: input.request, effort: input.effort, ...(input.prd ? { prd: input.prd } : {}), ...(input.seed ? { seed: input.seed } : {}), workspaceFolder: this.folder().name }, signal), onStarted);
  }

  async resume(runId: string, onStarted?: (runId: string) => void): Promise<RunResult> {
    const run = (await this.stores.get()).runs.get(runId);
    if (!run) throw new RunStartError(`There is no run ${runId} in this workspace's store.`);
    return this.go(run.effort, (algo, signal) => algo.resume(runId, signal), onStarted, run);
  }

  /** Stops the run (or every run) at its next safe point; its state is kept for Resume Run. */
  cancel(runId?: string): number {
    let count = 0;
    for (const a of this.active) {
      if (runId === undefined || a.runId === runId) {
        // A run with an id is cancelled through its session (the one writer); one not yet started has only its controller.
        if (a.runId) this.sessions.get().cancel(a.runId);
        else a.controller.abort();
        if (a.runId) this.approvals.cancelRun(a.runId);
        count++;
      }
    }
    // A run this window runs outside this service (a loop's sub-run): its session takes the cancel.
    if (count === 0 && runId !== undefined && this.goesElsewhere(runId)) count = this.sessions.get().cancel(runId);
    return count;
  }

  /** Whether a run this service did not start goes in this window (a loop's sub-run, through the one writer). */
  goesElsewhere(runId: string): boolean {
    return this.sessions.isLive(runId);
  }

  /** Test hook: answers approvals instead of a person (the policy's trust, auto-approve and allow-list still apply first). */
  answerApprovalsWith(answerer: ApprovalAnswerer | undefined): void {
    this.answerer = answerer;
  }

  /** Test hook: runs behave as in Restricted Mode (false) or as the workspace's trust says (undefined). */
  simulateTrust(trusted: boolean | undefined): void {
    this.trustOverride = trusted;
  }

  private trusted(): boolean {
    return this.trustOverride ?? vscode.workspace.isTrusted;
  }

  private folder(): vscode.WorkspaceFolder {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme !== 'file') throw new RunStartError('Open a folder on disk first: a run works in a workspace folder.');
    return folder;
  }

  private async go(level: EffortLevel, begin: (algo: Awaited<ReturnType<typeof editorAlgorithm>>['engine'], signal: AbortSignal) => Promise<RunResult>, onStarted?: (runId: string) => void, resumed?: Run): Promise<RunResult> {
    const folder = this.folder();
    const trusted = this.trusted();
    const [store, definitions, models] = await Promise.all([this.stores.get(), this.definitions.get(), this.models.forRun(level)]);
    if (store.readOnly) throw new RunStartError("Another VS Code window is writing this workspace's store, so a run here could not be saved. Run it in that window, or close it and try again.");
    const model = safeModelName(() => models.router.route('manager', level).displayName);
    const active: ActiveRun = { controller: new AbortController(), startedAt: Date.now(), baseElapsedMs: resumed?.elapsedMs ?? 0, baseWaitedMs: resumed?.waitedMs ?? 0, ...(resumed ? { runId: resumed.id, resumed: true } : {}) };
    // A resumed run's last report, read once: its commits carry a report again only at VERIFY.
    const lastReport = resumed ? store.reports.where('run_id = ?', [resumed.id], 'iteration DESC, created_at DESC')[0] : undefined;
    if (resumed) active.seen = { run: resumed, criteria: store.criteria.list(resumed.id, resumed.criteriaVersion), ...(lastReport ? { report: lastReport } : {}) };
    const runLog = this.log.child('run');
    const sessions = this.sessions.get();
    const notices = new EditorNotifications(this.log.child('notify'), () => folder.uri.fsPath);
    const algo = await editorAlgorithm({
      folder,
      store,
      models: models.router,
      effort: definitions.effort.table,
      level,
      approver: notices.asking(new EditorApprover(this.proposals, this.approvals, () => active.runId, folder, runLog, this.answerer), () => active.runId),
      autoApproveEdits: this.settings.get('runAutoApproveEdits'),
      allowCommands: this.settings.get('runAllowedCommands'),
      trusted,
      prdFolder: this.settings.get('prdFolder'),
      tasks: this.tasks,
      processes: this.processes,
      logger: runLog,
      // Each durable commit, whole: what the views are told, so nothing re-reads the store per step.
      onCommit: (commit) => {
        const runId = commit.run.id;
        if (!sessions.isLive(runId)) sessions.begin(runId, { restate: (id, r) => algo.engine.restate(id, r), cancel: () => active.controller.abort() });
        if (!active.runId) {
          active.runId = runId;
          onStarted?.(runId);
        }
        active.seen = { run: commit.run, criteria: commit.criteria ?? active.seen?.criteria ?? [], ...((commit.report ?? active.seen?.report) ? { report: commit.report ?? active.seen?.report } : {}) };
        sessions.tell({ kind: 'step', runId, run: commit.run, ...(commit.criteria ? { criteria: commit.criteria } : {}), ...(commit.report ? { report: commit.report } : {}), events: commit.events });
      },
      onEvent: (event) => {
        runLog.info(`${event.runId.slice(-6)} ${event.phase ?? ''} ${event.kind}: ${event.message}${event.model ? ` [${event.model}]` : ''}`);
        this.changed(active, definitions.effort.table.levels[level].maxIterations, model, event);
      },
      onApproval: (request: ApprovalRequest, approved: boolean, how: string) => runLog.info(`${request.kind} ${approved ? 'approved' : 'refused'} (${how}): ${request.title}`),
    });
    active.waiting = algo.waiting;
    for (const p of algo.problems) runLog.warn(`${p.file}:${p.line}:${p.column}: ${p.field ? `${p.field}: ` : ''}${p.message}`);
    if (!trusted) runLog.warn('Restricted Mode: this run makes no edits, runs no commands and writes no PRD; trust the workspace to let it change files.');
    runLog.info(`run with ${model} at ${level}${trusted ? '' : ' (Restricted Mode)'}`);
    this.active.add(active);
    let ended: RunState = 'CANCELLED';
    try {
      const result = await begin(algo.engine, active.controller.signal);
      ended = result.state;
      notices.runFinished(result);
      this.changed(active, definitions.effort.table.levels[level].maxIterations, model, undefined, false);
      return result;
    } finally {
      this.active.delete(active);
      if (active.runId) sessions.end(active.runId, ended);
      // Nothing of a run that ended waits on: its approvals would answer no one.
      if (active.runId) this.approvals.cancelRun(active.runId, 'the run ended');
    }
  }

  /** The run as its last commit left it (no store read), told to this window's listeners. */
  private changed(active: ActiveRun, maxIterations: number | null, model: string, event?: RunEvent, going = true): void {
    const seen = active.seen;
    if (!seen) return;
    const run = seen.run;
    const runId = run.id;
    // The engine committed the resume (its first event here): the row's elapsed time is the run's until now.
    if (event && !active.rebased) {
      active.rebased = true;
      if (active.resumed) active.baseElapsedMs = run.elapsedMs;
    }
    const results = new Map((seen.report?.results ?? []).map((r) => [r.criterionId, r]));
    const criteria = seen.criteria.map((c: AnyCriterion): RunCriterionRow => {
      const r = results.get(c.id);
      return { id: c.id, text: c.text, anti: c.kind === 'anti-criterion', priority: c.priority, status: c.status, ...(r ? { outcome: r.outcome, evidence: r.evidence } : {}) };
    });
    const change: RunChange = {
      runId,
      request: run.request,
      effort: run.effort,
      state: run.state,
      phase: run.phase,
      iteration: run.iteration,
      maxIterations,
      criteria,
      budget: { seconds: run.budgetSeconds, elapsedMs: run.elapsedMs, percent: Math.round(run.elapsedMs / (run.budgetSeconds * 10)), waitedMs: run.waitedMs ?? 0 },
      model,
      ...(run.prdPath ? { prdPath: run.prdPath } : {}),
      active: going,
      ...(event ? { event } : {}),
    };
    active.last = change;
    this._onDidChangeRun.fire(going ? this.withBudget(active, change) : change);
  }

  /**
   * Budget use as of now: the elapsed time stored at the last transition is behind while a
   * phase runs. Time waiting for a person is left out, as the engine's BudgetTracker does.
   */
  private withBudget(active: ActiveRun, change: RunChange): RunChange {
    if (!change.active) return change;
    const waitedHereMs = active.waiting?.waitedMs() ?? 0;
    const waitingMs = active.waiting?.waitingMs();
    const elapsedMs = active.baseElapsedMs + Math.max(0, Date.now() - active.startedAt - waitedHereMs);
    const budget = { ...change.budget, elapsedMs, percent: Math.round(elapsedMs / (change.budget.seconds * 10)), waitedMs: active.baseWaitedMs + waitedHereMs };
    const waitingFor = active.waiting?.waitingFor();
    return { ...change, budget: waitingMs !== undefined ? { ...budget, waitingMs, ...(waitingFor ? { waitingFor } : {}) } : budget };
  }

  dispose(): void {
    this.cancel();
    this._onDidChangeRun.dispose();
    for (const l of this.approvalListeners) l.dispose();
    this._onDidChangeApprovals.dispose();
  }
}

function safeModelName(name: () => string): string {
  try {
    return name();
  } catch {
    return 'no model';
  }
}
