import * as vscode from 'vscode';
import type { Run } from '../../core/model';
import type { PendingApproval, RequestResult } from '../../../webviews/isc-table/protocol';
import type { RunService } from '../run/run-service';
import type { RunControl } from './run-control';

/** A run stopped on the way (reload, crash) or cancelled keeps its state and can go on; the other exit states are final. */
const RESUMABLE = new Set(['PENDING', 'RUNNING', 'NEEDS_APPROVAL', 'CANCELLED']);

/**
 * Cancel and resume through the editor's run service. A run going in this window can be
 * cancelled (it stops at its next safe point, resumable); one that stopped before an exit
 * state — a reload, a crash — or was cancelled can be resumed. The service asks for approvals in
 * its own modal dialog and keeps no list of pending ones, so the table has none to show.
 */
export class LiveRunControl implements RunControl, vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<string>();
  readonly onDidChange = this._onDidChange.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly service: RunService) {
    this.subscription = service.onDidChangeRun((change) => this._onDidChange.fire(change.runId));
  }

  private going(runId: string): boolean {
    return this.service.activeRuns().some((c) => c.runId === runId && c.active);
  }

  canCancel(run: Run): boolean {
    return this.going(run.id);
  }

  async cancel(runId: string): Promise<RequestResult> {
    const stopped = this.service.cancel(runId);
    return stopped > 0 ? { ok: true, message: `${runId} stops at its next safe point; Resume Run goes on from there.` } : { ok: false, message: `${runId} is not going in this window.` };
  }

  canResume(run: Run): boolean {
    return RESUMABLE.has(run.state) && !this.going(run.id);
  }

  async resume(runId: string): Promise<RequestResult> {
    // The service's own command: its progress notification and its end-of-run message.
    void vscode.commands.executeCommand('idealState.resumeRun', runId);
    return { ok: true, message: `${runId} is resuming.` };
  }

  approvals(): PendingApproval[] {
    return [];
  }

  async decide(): Promise<RequestResult> {
    return { ok: false, message: 'Approvals of a run are asked in a dialog when the run needs them.' };
  }

  dispose(): void {
    this.subscription.dispose();
    this._onDidChange.dispose();
  }
}
