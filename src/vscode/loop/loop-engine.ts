import * as vscode from 'vscode';
import type { ApprovalRequest } from '../../agent/approvals';
import type { Loop, LoopArtifact, LoopProgress, LoopResult as CoreLoopResult } from '../../app/loop';
import type { RunPorts } from '../../app/compose-run';
import type { Logger } from '../../model/log';
import { runStateIs } from '../../model/run-states';
import type { Settings } from '../../model/settings';
import type { DefinitionsHost } from '../definitions-host';
import { engine } from '../engine';
import type { ModelsHost } from '../models/models-host';
import { EditorNotifications } from '../notify/editor-notifications';
import { editorRunPorts } from '../run/editor-algorithm';
import { EditorApprover, type ApprovalAnswerer } from '../run/editor-approver';
import type { ProposalDocuments } from '../run/proposal-documents';
import type { RunService } from '../run/run-service';
import type { SessionsHost } from '../runs/sessions-host';
import type { StoreHost } from '../store-host';
import type { EditorTaskRunner } from '../verify/task-runner';
import type { LoopInputs } from './loop-inputs';
import { LoopStartError, type LoopEngineCalls } from './loop-service';
import type { LoopProgressView } from './loop-view';
import type { ProcessRunner } from '../../verify/process-runner';

export interface LoopEngineHosts {
  readonly settings: Settings;
  readonly definitions: DefinitionsHost;
  readonly stores: StoreHost;
  readonly models: ModelsHost;
  readonly sessions: SessionsHost;
  readonly runs: Pick<RunService, 'approvals'>;
  readonly proposals: ProposalDocuments;
  readonly tasks: EditorTaskRunner;
  readonly processes: ProcessRunner;
}

/** The loop's words for the views: its template over its glob. */
function titleOf(loop: Pick<Loop, 'spec'>): string {
  return `${loop.spec.isc} over ${loop.spec.glob}${loop.spec.verifyOnly ? ' (verify only)' : ''}`;
}

/** The core's progress as the views read it. */
export function progressView(p: LoopProgress, loop: Pick<Loop, 'spec'>): LoopProgressView {
  return {
    loopId: p.loopId,
    iteration: p.iteration,
    maxIterations: loop.spec.maxIterations,
    criterionIds: p.criterionIds,
    artifacts: p.artifacts,
    passing: p.passing,
    total: p.total,
    budgetPercent: Math.round((p.budget.usedMs / p.budget.totalMs) * 100),
    ...(p.budget.waitedMs !== undefined ? { waitedMs: p.budget.waitedMs } : {}),
    state: p.state,
    title: titleOf(loop),
  };
}

function storedView(loop: Loop, artifacts: readonly LoopArtifact[]): LoopProgressView {
  return progressView(engine().progressOf(loop, artifacts, [], loop.elapsedMs), loop);
}

/**
 * The editor's loop engine: the core's LoopEngine (src/app/loop) over the same ports a run of
 * this window has (editorRunPorts: files through WorkspaceEdit, the editor's tasks and
 * diagnostics), its sub-runs' commits told through the window's RunSessions as a run's are,
 * their edits and commands asked through the editor's approver (the notification, the ISC
 * table, the palette). Approvals are filed under the loop's id: the core's approval request
 * does not say which sub-run asks.
 */
export class EditorLoopEngine implements LoopEngineCalls {
  private answerer: ApprovalAnswerer | undefined;

  constructor(
    private readonly hosts: LoopEngineHosts,
    private readonly log: Logger,
  ) {}

  /** Test hook: answers the loops' approvals instead of a person (trust, auto-approve and the allow-list still apply first). */
  answerApprovalsWith(answerer: ApprovalAnswerer | undefined): void {
    this.answerer = answerer;
  }

  async start(inputs: LoopInputs & { verifyOnly: boolean }, signal: AbortSignal, onProgress: (p: LoopProgressView) => void): Promise<LoopProgressView> {
    const stop = cancellable(signal);
    const loopEngine = await this.compose(inputs.isc, inputs.effort, !inputs.verifyOnly, onProgress, stop.cancel);
    const maxIterations = inputs.maxIterations ?? (await this.hosts.definitions.get()).effort.table.levels[inputs.effort].maxIterations ?? 3;
    return this.view(await loopEngine.start({ glob: inputs.glob, isc: inputs.isc, agents: inputs.agents, effort: inputs.effort, maxIterations, verifyOnly: inputs.verifyOnly }, stop.signal));
  }

  async resume(loopId: string, verifyOnly: boolean, signal: AbortSignal, onProgress: (p: LoopProgressView) => void): Promise<LoopProgressView> {
    const stored = engine().readLoop(await this.hosts.stores.get(), loopId);
    if (!stored) throw new LoopStartError(`There is no loop ${loopId} in this workspace's store.`);
    // A verify-only loop stays one; a loop resumed in Restricted Mode works nothing.
    const stop = cancellable(signal);
    const loopEngine = await this.compose(stored.loop.spec.isc, stored.loop.spec.effort, !(verifyOnly || stored.loop.spec.verifyOnly), onProgress, stop.cancel);
    return this.view(await loopEngine.resume(loopId, stop.signal));
  }

  async read(loopId: string): Promise<LoopProgressView | undefined> {
    const stored = engine().readLoop(await this.hosts.stores.get(), loopId);
    return stored ? storedView(stored.loop, stored.artifacts) : undefined;
  }

  async list(): Promise<(LoopProgressView & { runIds: readonly string[] })[]> {
    const store = await this.hosts.stores.get();
    return engine()
      .listLoops(store)
      .map((loop) => {
        const artifacts = store.loops.artifactsOf(loop.id);
        return { ...storedView(loop, artifacts), runIds: artifacts.flatMap((a) => a.runIds) };
      });
  }

  /** The loop as it ended, for the views; loop.finished to the person's webhooks (in the background). */
  private view(result: CoreLoopResult): LoopProgressView {
    new EditorNotifications(this.log.child('notify'), () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath).loopFinished(result.loop, result.unmet);
    return storedView(result.loop, result.artifacts);
  }

  /** `cancelLoop`: what Cancel on one of its sub-runs does (a sub-run is the loop's work on one file; it stops with its loop). */
  private async compose(isc: string, level: LoopInputs['effort'], trusted: boolean, onProgress: (p: LoopProgressView) => void, cancelLoop: () => void): Promise<InstanceType<ReturnType<typeof engine>['LoopEngine']>> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme !== 'file') throw new LoopStartError('Open a folder on disk first: a loop works on the files of a workspace folder.');
    const [store, definitions, models] = await Promise.all([this.hosts.stores.get(), this.hosts.definitions.get(), this.hosts.models.forRun(level)]);
    if (store.readOnly) throw new LoopStartError("Another VS Code window is writing this workspace's store, so a loop here could not be saved. Run it in that window, or close it and try again.");
    const definition = definitions.isc.get(isc)?.definition;
    if (!definition) throw new LoopStartError(`There is no ISC template "${isc}"; "Ideal State: List ISC Definitions" shows the ones there are.`);
    const runLog = this.log;
    const sessions = this.hosts.sessions.get();
    let loopId: string | undefined;
    const live = new Set<string>();
    const onCommit: NonNullable<RunPorts['onCommit']> = (commit) => {
      const runId = commit.run.id;
      // A sub-run is a run of this window: its table and the Runs view follow its steps like any run's.
      if (!sessions.isLive(runId) && !live.has(runId)) {
        live.add(runId);
        sessions.begin(runId, {
          restate: () => runLog.warn(`${runId} is a loop's sub-run: its criteria come from the loop's template and are not restated`),
          cancel: () => {
            runLog.info(`${runId} is a sub-run of ${loopId ?? 'a loop'}: cancelling the loop (Resume goes on from its stored results)`);
            cancelLoop();
          },
          subRun: true,
        });
      }
      sessions.step(commit);
      if (runStateIs('exit', commit.run.state)) {
        live.delete(runId);
        sessions.end(runId, commit.run.state);
      }
    };
    const { ports } = editorRunPorts({
      folder,
      store,
      models: models.router,
      effort: definitions.effort.table,
      level,
      approver: new EditorApprover(this.hosts.proposals, this.hosts.runs.approvals, () => loopId, folder, runLog, this.answerer),
      autoApproveEdits: this.hosts.settings.get('runAutoApproveEdits'),
      allowCommands: this.hosts.settings.get('runAllowedCommands'),
      trusted,
      prdFolder: this.hosts.settings.get('prdFolder'),
      tasks: this.hosts.tasks,
      processes: this.hosts.processes,
      logger: runLog,
      onEvent: (event) => runLog.info(`${event.runId.slice(-6)} ${event.phase ?? ''} ${event.kind}: ${event.message}${event.model ? ` [${event.model}]` : ''}`),
      onCommit,
      onApproval: (request: ApprovalRequest, approved: boolean, how: string) => runLog.info(`${request.kind} ${approved ? 'approved' : 'refused'} (${how}): ${request.title}`),
    });
    let loopSpec: Pick<Loop, 'spec'> | undefined;
    const loopEngine = new (engine().LoopEngine)({
      run: { ...ports, learning: false },
      definition,
      onProgress: (p) => {
        loopId = p.loopId;
        loopSpec ??= { spec: store.loops.get(p.loopId)!.spec };
        onProgress(progressView(p, loopSpec));
      },
    });
    if (!trusted) runLog.warn('Restricted Mode: this loop verifies only; it edits nothing, runs no command and writes no PRD.');
    return loopEngine;
  }
}

/** The loop's signal, which also stops when one of its sub-runs is cancelled. */
function cancellable(signal: AbortSignal): { signal: AbortSignal; cancel: () => void } {
  const own = new AbortController();
  return { signal: AbortSignal.any([signal, own.signal]), cancel: () => own.abort() };
}
