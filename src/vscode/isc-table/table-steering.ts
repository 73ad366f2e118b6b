import * as vscode from 'vscode';
import { CRITERION_TIMEOUT_MS } from '../../app/defaults';
import { isCancellation } from '../../model/errors';
import type { Logger } from '../../model/log';
import type { CriterionResult, Run } from '../../model';
import type { EvidenceLocation, RequestResult } from '../../../webviews/isc-table/protocol';
import type { DefinitionsHost } from '../definitions-host';
import { engine } from '../engine';
import type { LearningHost } from '../learning';
import { reportRating } from '../learning/learning-commands';
import type { RunControl } from '../runs/run-control';
import type { RunWatch } from '../runs/run-watch';
import type { SessionsHost } from '../runs/sessions-host';
import type { StoreHost } from '../store-host';
import { signalFrom } from '../verify/abort';
import type { PrdVerifier } from '../verify/verify-prd';
import { outcomeLabel } from '../../model/labels';


/** A re-verification in progress: rows being verified and the results so far (shown before they are stored). */
export interface LiveVerification {
  active: Set<string>;
  results: CriterionResult[];
  startedAt: string;
}

/**
 * What the ISC table can do to a run: re-verify rows with this window's verification
 * adapters (the same host Verify Criteria builds), restate a criterion, open evidence and
 * the PRD, cancel or resume, approve, rate.
 */
export class TableSteering {
  private readonly live = new Map<string, LiveVerification>();

  constructor(
    private readonly stores: StoreHost,
    private readonly definitions: DefinitionsHost,
    private readonly verifier: PrdVerifier,
    readonly control: RunControl,
    private readonly watch: RunWatch,
    private readonly learning: LearningHost,
    private readonly sessions: SessionsHost,
    private readonly log: Logger,
  ) {}

  liveVerification(runId: string): LiveVerification | undefined {
    return this.live.get(runId);
  }

  canVerify(): boolean {
    return vscode.workspace.isTrusted && (vscode.workspace.workspaceFolders?.length ?? 0) > 0;
  }

  async reverify(runId: string, ids: readonly string[] | undefined): Promise<RequestResult> {
    if (!vscode.workspace.isTrusted) return { ok: false, message: 'Re-verifying runs commands and tasks, so it is off in Restricted Mode. Trust this workspace to verify.' };
    if (this.live.has(runId)) return { ok: false, message: `${runId} is being verified already; wait for it to finish.` };
    const store = await this.stores.get();
    const run = store.runs.get(runId);
    if (!run) return { ok: false, message: `There is no run ${runId} in the store.` };
    const folder = this.folderOf(run);
    if (!folder) return { ok: false, message: 'Open the run\'s workspace folder to verify its criteria.' };
    const wanted = ids ? new Set(ids) : undefined;
    const criteria = store.criteria.list(runId).filter((c) => !wanted || wanted.has(c.id));
    if (criteria.length === 0) return { ok: false, message: ids ? `${ids.join(', ')} is not a criterion of ${runId}.` : `${runId} has no criteria to verify.` };

    const live: LiveVerification = { active: new Set(criteria.map((c) => c.id)), results: [], startedAt: new Date().toISOString() };
    this.live.set(runId, live);
    this.watch.touch(runId);
    const what = criteria.length === 1 ? criteria[0]!.id : `${criteria.length} criteria`;
    try {
      const table = (await this.definitions.get()).effort.table;
      const host = await this.verifier.hostFor(folder, run.prdPath ?? `run ${runId}`, run.effort, runId);
      const { set, report: stored } = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Ideal State: verifying ${what}`, cancellable: true }, async (progress, token) => {
        const abort = signalFrom(token);
        try {
          // The run's stored criteria, composed as every verification is; the report goes to the run's session.
          return await engine().composeVerification({
            source: { kind: 'criteria', criteria, level: run.effort, criteriaVersion: run.criteriaVersion },
            effortTable: table,
            host,
            signal: abort.signal,
            timeoutMs: CRITERION_TIMEOUT_MS,
            // The PRD's own text is not evidence that a criterion holds.
            ...(run.prdPath ? { prdPath: run.prdPath } : {}),
            progress: {
              onResult: (result) => {
                live.active.delete(result.criterionId);
                live.results.push(result);
                progress.report({ message: `${result.criterionId} ${outcomeLabel(result.outcome)}` });
                this.watch.touch(runId);
              },
            },
            report: ({ set }) => this.sessions.get().recordVerification(runId, set),
          });
        } finally {
          abort.dispose();
        }
      });
      if (!stored.stored) this.log.warn(`re-verification of ${runId} not stored: ${stored.reason}`);
      this.log.info(`${runId}: re-verified ${what}: ${set.summary}`);
      return { ok: stored.stored, message: stored.stored ? `${what}: ${set.summary}` : `${what}: ${set.summary} — not stored: ${stored.reason}` };
    } catch (error) {
      if (isCancellation(error)) return { ok: false, message: 'Verification was cancelled; nothing was stored.' };
      this.log.error(`re-verifying ${runId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return { ok: false, message: `Verifying ${what} failed: ${error instanceof Error ? error.message : String(error)}. See the log (Ideal State: Show Log).` };
    } finally {
      this.live.delete(runId);
      this.watch.touch(runId);
    }
  }

  async edit(runId: string, criterionId: string, text: string): Promise<RequestResult> {
    // Through the run's one writer: a going run takes it at its next step, a stopped one as its next version.
    const result = await this.sessions.get().restate(runId, criterionId, text);
    switch (result.kind) {
      case 'queued':
        this.log.info(`${runId}: ${criterionId} restated in the ISC table; the run takes it at its next step`);
        return { ok: true, message: `${criterionId} goes to the run: it becomes the next criteria version at the run's next step.` };
      case 'edited':
        this.log.info(`${runId}: ${criterionId} edited in the ISC table (criteria v${result.version})`);
        return { ok: true, message: `${criterionId} saved as criteria version ${result.version}; verify it again to get its outcome.` };
      case 'unchanged':
        return { ok: true, message: `${criterionId} is unchanged.` };
      case 'refused':
        return { ok: false, message: `${criterionId} was not changed: ${result.reason}.` };
    }
  }

  /** Opens a `file:line` of the evidence — only a file inside the run's workspace folder. */
  async openLocation(runId: string, location: EvidenceLocation): Promise<RequestResult> {
    const store = await this.stores.get();
    const run = store.runs.get(runId);
    const folder = run ? this.folderOf(run) : vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme !== 'file') return { ok: false, message: 'Open the run\'s workspace folder to follow its evidence.' };
    const line = Math.floor(Number(location.line));
    if (typeof location.file !== 'string' || !Number.isFinite(line) || line < 1) return { ok: false, message: 'That link does not name a file and a line.' };
    const confined = await engine().confineOnDisk(folder.uri.fsPath, location.file);
    if (!confined.ok) return { ok: false, message: `Not opened: ${confined.reason}.` };
    if (!confined.exists) return { ok: false, message: `${confined.relative} does not exist in the workspace (any more).` };
    const uri = vscode.Uri.file(confined.absolute);
    const position = new vscode.Position(line - 1, 0);
    await vscode.window.showTextDocument(uri, { selection: new vscode.Range(position, position), preview: true, viewColumn: vscode.ViewColumn.One });
    return { ok: true, message: `Opened ${confined.relative}:${line}.` };
  }

  async openPrd(runId: string): Promise<RequestResult> {
    const run = (await this.stores.get()).runs.get(runId);
    if (!run?.prdPath) return { ok: false, message: `${runId} has no PRD.` };
    return this.openLocation(runId, { file: run.prdPath, line: 1 });
  }

  async rate(runId: string): Promise<RequestResult> {
    const run = (await this.stores.get()).runs.get(runId);
    if (!run) return { ok: false, message: `There is no run ${runId} in the store.` };
    const pick = await vscode.window.showQuickPick(
      [10, 9, 8, 7, 6, 5, 4, 3, 2, 1].map((rating) => ({ label: String(rating), rating })),
      { title: `How did this go? ${run.request}`, placeHolder: '10 is perfect, 1 is useless' },
    );
    if (!pick) return { ok: false, message: 'Not rated.' };
    const comment = await vscode.window.showInputBox({ title: `Rating ${pick.rating} for ${run.id}`, prompt: 'A comment (optional)', ignoreFocusOut: true });
    if (comment === undefined) return { ok: false, message: 'Not rated.' };
    await reportRating(this.learning, runId, { rating: pick.rating, text: comment });
    this.watch.touch(runId);
    return { ok: true, message: `Rated ${pick.rating}/10.` };
  }

  private folderOf(run: Run): vscode.WorkspaceFolder | undefined {
    const folders = vscode.workspace.workspaceFolders ?? [];
    return folders.find((f) => f.name === run.workspaceFolder) ?? folders[0];
  }
}
