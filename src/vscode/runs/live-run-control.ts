import * as vscode from 'vscode';
import { runStateIs } from '../../model/run-states';
import type { Run } from '../../model';
import type { ApprovalAnswer, TableApproval, RequestResult } from '../../../webviews/isc-table/protocol';
import { deniedAlwaysMessage } from '../run/approval-buttons';
import type { RunService } from '../run/run-service';
import { engine } from '../engine';
import type { LiveTime } from '../isc-table/snapshot';
import type { RunControl } from './run-control';


/**
 * Cancel and resume through the editor's run service. A run going in this window can be
 * cancelled (it stops at its next safe point, resumable); one that stopped before an exit
 * state — a reload, a crash, a cancel — can be resumed. The run's pending approvals are the
 * service's: the table shows them and answers them there, like the notification does.
 */
export class LiveRunControl implements RunControl, vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<string>();
  readonly onDidChange = this._onDidChange.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly service: RunService) {
    // A run's steps and its end reach the table and the Runs view as its deltas (RunWatch); only its approvals are said here.
    this.subscription = service.onDidChangeApprovals((runId) => this._onDidChange.fire(runId));
  }

  private going(runId: string): boolean {
    return this.service.activeRuns().some((c) => c.runId === runId) || this.service.goesElsewhere(runId);
  }

  canCancel(run: Run): boolean {
    return this.going(run.id);
  }

  async cancel(runId: string): Promise<RequestResult> {
    const stopped = this.service.cancel(runId);
    return stopped > 0 ? { ok: true, message: `${runId} stops at its next safe point; Resume Run goes on from there.` } : { ok: false, message: `${runId} is not going in this window.` };
  }

  canResume(run: Run): boolean {
    return runStateIs('resumable', run.state) && !this.going(run.id);
  }

  async resume(runId: string): Promise<RequestResult> {
    // The service's own command: its progress notification and its end-of-run message.
    void vscode.commands.executeCommand('idealState.resumeRun', runId);
    return { ok: true, message: `${runId} is resuming.` };
  }

  time(runId: string): LiveTime | undefined {
    const budget = this.service.activeRuns().find((c) => c.runId === runId)?.budget;
    return budget && { elapsedMs: budget.elapsedMs, waitedMs: budget.waitedMs, ...(budget.waitingMs !== undefined ? { waitingMs: budget.waitingMs } : {}), ...(budget.waitingFor ? { waitingFor: budget.waitingFor } : {}) };
  }

  approvals(runId: string): TableApproval[] {
    return this.service.approvals.list(runId).map((a) => ({
      id: a.id,
      kind: a.kind,
      title: a.title,
      detail: a.kind === 'command' ? (a.command ?? a.summary) : a.summary,
      ...(a.path !== undefined ? { path: a.path } : {}),
      ...(a.creates ? { creates: true } : {}),
      ...(a.effect !== undefined ? { effect: a.effect } : {}),
      ...(a.command !== undefined ? { command: a.command } : {}),
      ...(a.cwd !== undefined ? { cwd: a.cwd } : {}),
      ...(a.remembersDenial ? { remembersDenial: true } : {}),
      createdAt: a.createdAt,
    }));
  }

  async decide(runId: string, approvalId: string, answer: ApprovalAnswer): Promise<RequestResult> {
    if (answer !== 'approve' && answer !== 'deny' && answer !== 'always' && answer !== 'never') return { ok: false, message: `"${String(answer)}" is not an answer: approve, deny, always or never.` };
    const approval = this.service.approvals.get(approvalId);
    if (!approval || approval.runId !== runId) return { ok: false, message: 'That change was already answered (or its run ended).' };
    // "Deny always" only where it is remembered (a run's verification commands): nowhere else would it hold.
    if (answer === 'never' && !(approval.kind === 'command' && approval.remembersDenial)) return { ok: false, message: `"Deny always" is not offered for ${approval.title}: deny it instead.` };
    const result = this.service.decideApproval(approvalId, answer, 'the ISC table');
    if (!result.decided) return { ok: false, message: `Not answered: ${result.reason}.` };
    // "Always" never reaches a configuration change: that one alone is approved.
    if (answer === 'never') return { ok: true, message: deniedAlwaysMessage(approval, await engine().deniedCommandsFile(approval.cwd ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '.')) };
    const done = answer === 'deny' ? 'Denied' : answer === 'always' && approval.kind !== 'config' ? 'Approved, with the rest of this run\'s ' + (approval.kind === 'edit' ? 'edits' : 'commands') : 'Approved';
    return { ok: true, message: `${done}: ${approval.title}.` };
  }

  async showDiff(runId: string, approvalId: string, viewColumn?: vscode.ViewColumn): Promise<RequestResult> {
    const approval = this.service.approvals.get(approvalId);
    if (!approval || approval.runId !== runId) return { ok: false, message: 'That change was already answered (or its run ended).' };
    return this.service.showApprovalDiff(approvalId, viewColumn);
  }

  dispose(): void {
    this.subscription.dispose();
    this._onDidChange.dispose();
  }
}
