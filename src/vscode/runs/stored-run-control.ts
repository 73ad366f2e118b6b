import * as vscode from 'vscode';
import type { Run } from '../../core/model';
import type { PendingApproval, RequestResult } from '../../../webviews/isc-table/protocol';
import { isFinished } from '../isc-table/snapshot';
import type { StoreHost } from '../store-host';
import type { RunControl } from './run-control';

/**
 * Control of stored runs when no run executes in this window: a run left RUNNING or
 * NEEDS_APPROVAL (its window closed or crashed) can be marked CANCELLED; nothing can be
 * resumed and nothing waits for approval here.
 */
export class StoredRunControl implements RunControl, vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<string>();
  readonly onDidChange = this._onDidChange.event;

  constructor(private readonly stores: StoreHost) {}

  canCancel(run: Run): boolean {
    return !isFinished(run.state);
  }

  async cancel(runId: string): Promise<RequestResult> {
    const store = await this.stores.get();
    const run = store.runs.get(runId);
    if (!run) return { ok: false, message: `There is no run ${runId} in the store.` };
    if (isFinished(run.state)) return { ok: false, message: `${runId} has already ended (${run.state}).` };
    if (store.readOnly) return { ok: false, message: 'The store is open read-only in this window; cancel the run in the window that runs it.' };
    const at = new Date().toISOString();
    store.runs.save({ ...run, state: 'CANCELLED', exitReason: 'cancelled by the user (no longer running in this window)', finishedAt: at, updatedAt: at });
    this._onDidChange.fire(runId);
    return { ok: true, message: `${runId} is marked cancelled.` };
  }

  canResume(): boolean {
    return false;
  }

  async resume(runId: string): Promise<RequestResult> {
    return { ok: false, message: `${runId} cannot be resumed in this window: no run service is running here.` };
  }

  approvals(): PendingApproval[] {
    return [];
  }

  async decide(): Promise<RequestResult> {
    return { ok: false, message: 'Nothing is waiting for approval in this window.' };
  }

  dispose(): void {
    this._onDidChange.dispose();
  }
}
