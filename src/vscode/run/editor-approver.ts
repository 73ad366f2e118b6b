import { diffTotals } from '../../agent/line-diff';
import * as vscode from 'vscode';
import type { ApprovalAnswer, ApprovalRequest, Approver } from '../../agent/approvals';
import type { PendingApproval, PendingApprovals } from '../../agent/pending-approvals';
import type { Logger } from '../../model/log';
import { engine } from '../engine';
import { answerOfButton, approvalButtons, deniedAlwaysMessage, SHOW_DIFF } from './approval-buttons';
import { showApprovalDiff } from './approval-diff';
import type { ProposalDocuments } from './proposal-documents';

/** Answers approvals instead of the person: the integration tests' hook (see RunService.answerApprovalsWith). */
export type ApprovalAnswerer = (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;

export { ALWAYS, APPROVE, DENY, DENY_ALWAYS, SHOW_DIFF, answerOfButton, approvalButtons, deniedAlwaysMessage } from './approval-buttons';

/**
 * Asks the person at the editor about one run's edits and commands. Each request becomes a
 * pending approval (see PendingApprovals) that the ISC table, the Runs view and the palette
 * show too, and a notification offers Approve / Always for this run / Deny — "Deny always" for
 * a run's verification commands, whose denial is remembered — and Show Diff for an edit, which opens the real diff editor and asks again. A configuration change (a file
 * that steers what runs: .vscode/settings.json, .ideal-state/capabilities.yaml…) is named as
 * such and offers no "Always": each one is approved on its own. The notification is deliberately
 * not modal: a modal dialog blocks the whole workbench, so the person could neither read the
 * diff beside the file nor answer from the table. The first answer from any of them wins.
 * Trust, auto-approve and `idealState.run.allowedCommands` are decided before this, by the
 * run's policy (src/agent/approvals.ts).
 */
export class EditorApprover implements Approver {
  constructor(
    private readonly proposals: ProposalDocuments,
    private readonly pending: PendingApprovals,
    private readonly runId: () => string | undefined,
    private readonly folder: vscode.WorkspaceFolder,
    private readonly log: Logger,
    private readonly answerer?: ApprovalAnswerer,
  ) {}

  async ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    if (signal.aborted) return 'deny';
    // A request names its run when one approver serves several (a loop's sub-runs): the sub-run's ISC table shows it.
    const { approval, answer } = this.pending.add(request.runId ?? this.runId() ?? 'run', request, signal);
    if (this.answerer) {
      const answerer = this.answerer;
      void Promise.resolve()
        .then(() => answerer(request))
        .then(
          (a) => this.pending.decide(approval.id, a, 'the test hook'),
          () => this.pending.decide(approval.id, 'deny', 'the test hook failed'),
        );
    } else {
      void this.notify(approval).catch((error: unknown) => this.log.warn(`the approval notification failed: ${error instanceof Error ? error.message : String(error)}`));
    }
    try {
      return await answer;
    } finally {
      this.proposals.release(approval.id);
    }
  }

  /** The notification, again after Show Diff; an answer given elsewhere first makes a late click change nothing. */
  private async notify(approval: PendingApproval): Promise<void> {
    for (;;) {
      const choice = await vscode.window.showWarningMessage(approvalMessage(approval), ...approvalButtons(approval));
      if (!this.pending.get(approval.id)) {
        // VS Code cannot close a notification: a button clicked after the run (or loop) was
        // cancelled, or after the table answered, does nothing and says so.
        if (choice !== undefined) void vscode.window.showInformationMessage(`Ideal State: ${approval.title} — ${this.pending.whyNotPending(approval.id)}.`);
        return;
      }
      if (choice === SHOW_DIFF) {
        await showApprovalDiff(approval, this.proposals, this.folder);
        continue;
      }
      if (choice === undefined) {
        this.log.info(`${approval.title}: the notification was closed; the request waits in the ISC table and "Ideal State: Approve or Deny Pending Changes…"`);
        return;
      }
      const answer = answerOfButton(choice, approval) ?? 'deny';
      const decided = this.pending.decide(approval.id, answer, 'the notification');
      if (decided.decided && answer === 'never') void vscode.window.showInformationMessage(`Ideal State: ${deniedAlwaysMessage(approval, await engine().deniedCommandsFile(approval.cwd ?? this.folder.uri.fsPath))}`);
      return;
    }
  }

}

/** One line for the notification: a notification shows no detail, so the essentials go here. */
export function approvalMessage(approval: PendingApproval): string {
  if (approval.kind === 'command') {
    const lines = (approval.command ?? approval.summary).split('\n').filter((l) => l.trim() !== '');
    const where = approval.cwd === undefined ? ' — in the workspace folder' : approval.title.includes(approval.cwd) ? '' : ` — in ${approval.cwd}`;
    return `Ideal State run: ${approval.title}? ${lines.join(' ; ')}${where}.`;
  }
  const { added, removed } = diffTotals(approval.summary);
  if (approval.kind === 'config') return `Ideal State run: ${approval.title} (+${added} −${removed}). Approve this configuration change? It is asked on its own: approving edits does not cover it. Show Diff opens it beside the file.`;
  return `Ideal State run: ${approval.title} (+${added} −${removed})? Show Diff opens it beside the file; an approved edit is undoable, and "Undo Run Changes" restores every file the run changed.`;
}

