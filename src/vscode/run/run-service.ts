import * as vscode from 'vscode';
import { RUN_STATES } from '../../model/run-states';
import type { ApprovalAnswer, ApprovalRequest } from '../../agent/approvals';
import { PendingApprovals, type DecideResult, type PendingApproval } from '../../agent/pending-approvals';
import type { RunResult, StartInput } from '../../algorithm/engine';
import type { Logger } from '../../model/log';
import type { EffortLevel, Run, RunState } from '../../model';
import type { RunDelta } from '../../app/run-sessions';
import { WindowRun, type RunProgress } from '../../app/window-run';
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

export type { RunCriterionRow, RunProgress } from '../../app/window-run';

export interface StartRun {
  readonly request: string;
  readonly effort: EffortLevel | 'AUTO';
  /** A PRD whose criteria are the spec (Run Algorithm on This PRD). */
  readonly prd?: StartInput['prd'];
  /** Starting criteria OBSERVE refines (an ISC template's). */
  readonly seed?: StartInput['seed'];
}

/** A run this service starts or resumes: its controller for Cancel Run, and the run as its commits leave it. */
interface ActiveRun {
  readonly controller: AbortController;
  readonly run: WindowRun;
}

/** A run cannot start or go on as asked; the message says what to do. */
export class RunStartError extends Error {
  override readonly name = 'RunStartError';
  readonly code = 'run-start';
}

/**
 * Owns the runs of this window: starts and resumes them with the editor's engine and keeps
 * their AbortControllers for Cancel Run. Their commits are told by the window's one writer
 * (RunSessions), once each; `activeRuns` says where the going ones are as of now.
 */
export class RunService implements vscode.Disposable {
  /** Every change to a run of this window, as its one writer tells it: the same event as SessionsHost's deltas, not a second one. */
  readonly onDidChangeRun: vscode.Event<RunDelta>;
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
    this.onDidChangeRun = sessions.onDelta;
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

  /** Every run this service has going now, as of now. */
  activeRuns(): RunProgress[] {
    return [...this.active].flatMap((a) => a.run.progress() ?? []);
  }

  /** Runs in the store that stopped before an exit state (a reload or crash) or were cancelled, newest first. */
  async unfinishedRuns(): Promise<Run[]> {
    const going = new Set([...this.active].map((a) => a.run.runId));
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
      const id = a.run.runId;
      if (runId === undefined || id === runId) {
        // A run with an id is cancelled through its session (the one writer); one not yet started has only its controller.
        if (id) this.sessions.get().cancel(id);
        else a.controller.abort();
        if (id) this.approvals.cancelRun(id);
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
    // A resumed run's last report, read once: its commits carry a report again only at VERIFY.
    const lastReport = resumed ? store.reports.where('run_id = ?', [resumed.id], 'iteration DESC, created_at DESC')[0] : undefined;
    const runLog = this.log.child('run');
    const sessions = this.sessions.get();
    const controller = new AbortController();
    let algo: Awaited<ReturnType<typeof editorAlgorithm>> | undefined;
    const run = new WindowRun(sessions, { restate: (id, r) => algo?.engine.restate(id, r), cancel: () => controller.abort() }, {
      maxIterations: definitions.effort.table.levels[level].maxIterations,
      model,
      ...(resumed ? { resumed: { run: resumed, criteria: store.criteria.list(resumed.id, resumed.criteriaVersion), ...(lastReport ? { report: lastReport } : {}) } } : {}),
      ...(onStarted ? { onStarted } : {}),
    });
    const active: ActiveRun = { controller, run };
    const notices = new EditorNotifications(this.log.child('notify'), () => folder.uri.fsPath);
    algo = await editorAlgorithm({
      folder,
      store,
      models: models.router,
      effort: definitions.effort.table,
      level,
      approver: notices.asking(new EditorApprover(this.proposals, this.approvals, () => run.runId, folder, runLog, this.answerer), () => run.runId),
      autoApproveEdits: this.settings.get('runAutoApproveEdits'),
      allowCommands: this.settings.get('runAllowedCommands'),
      trusted,
      prdFolder: this.settings.get('prdFolder'),
      tasks: this.tasks,
      processes: this.processes,
      logger: runLog,
      // Each durable commit, whole, told once: the views follow it, so nothing re-reads the store per step.
      onCommit: (commit) => run.commit(commit),
      onEvent: (event) => runLog.info(`${event.runId.slice(-6)} ${event.phase ?? ''} ${event.kind}: ${event.message}${event.model ? ` [${event.model}]` : ''}`),
      onApproval: (request: ApprovalRequest, approved: boolean, how: string) => runLog.info(`${request.kind} ${approved ? 'approved' : 'refused'} (${how}): ${request.title}`),
    });
    run.waiting = algo.waiting;
    for (const p of algo.problems) runLog.warn(`${p.file}:${p.line}:${p.column}: ${p.field ? `${p.field}: ` : ''}${p.message}`);
    if (!trusted) runLog.warn('Restricted Mode: this run makes no edits, runs no commands and writes no PRD; trust the workspace to let it change files.');
    runLog.info(`run with ${model} at ${level}${trusted ? '' : ' (Restricted Mode)'}`);
    this.active.add(active);
    let ended: RunState = 'CANCELLED';
    try {
      const result = await begin(algo.engine, controller.signal);
      ended = result.state;
      notices.runFinished(result);
      return result;
    } finally {
      this.active.delete(active);
      run.end(ended);
      // Nothing of a run that ended waits on: its approvals would answer no one.
      if (run.runId) this.approvals.cancelRun(run.runId, 'the run ended');
    }
  }

  dispose(): void {
    this.cancel();
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
