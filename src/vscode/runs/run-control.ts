import type * as vscode from 'vscode';
import type { Run } from '../../model';
import type { ApprovalAnswer, TableApproval, RequestResult } from '../../../webviews/isc-table/protocol';
import type { LiveTime } from '../isc-table/snapshot';

/**
 * What the ISC table and the Runs view may do to a run beyond reading it: cancel, resume,
 * and the agent's pending approvals. The editor's run service supplies a live one; without
 * it (stored runs only) see StoredRunControl.
 */
export interface RunControl {
  /** Fires with a run's id when something about it changed that the store may not show yet (a pending approval). */
  readonly onDidChange: vscode.Event<string>;
  canCancel(run: Run): boolean;
  cancel(runId: string): Promise<RequestResult>;
  canResume(run: Run): boolean;
  resume(runId: string): Promise<RequestResult>;
  /** A run going in this window: its time as of now, waiting for a person apart (see LiveTime). */
  time?(runId: string): LiveTime | undefined;
  /** The run's edits and commands waiting for a person, oldest first. */
  approvals(runId: string): TableApproval[];
  /** Answers one of them; the first answer from any surface wins. */
  decide(runId: string, approvalId: string, answer: ApprovalAnswer): Promise<RequestResult>;
  /** Opens a pending edit's real diff (the file beside the proposal). */
  showDiff(runId: string, approvalId: string, viewColumn?: vscode.ViewColumn): Promise<RequestResult>;
}
