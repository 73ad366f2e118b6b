import * as vscode from 'vscode';
import { approveEffect } from '../../agent/approval-words';
import type { ApprovalAnswer } from '../../agent/approvals';
import type { PendingApproval } from '../../agent/pending-approvals';
import { engine } from '../engine';
import { deniedAlwaysMessage } from './approval-buttons';
import type { RunService } from './run-service';

const ANSWERS: readonly ApprovalAnswer[] = ['approve', 'deny', 'always', 'never'];

/**
 * "Approve or Deny Pending Changes…": the runs' pending edits and commands from the palette —
 * for a notification that was closed, or a person who prefers the keyboard. Scripts may pass
 * `{ approvalId, answer }` to answer one without a pick. The first answer from any surface wins.
 */
export function registerDecideApproval(service: RunService): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.decideApproval', async (args?: { approvalId?: unknown; answer?: unknown }): Promise<boolean> => {
    if (typeof args?.approvalId === 'string' && ANSWERS.includes(args.answer as ApprovalAnswer)) {
      // "Deny always" only where it is remembered (a run's verification commands).
      if (args.answer === 'never' && !service.approvals.get(args.approvalId)?.remembersDenial) return false;
      return service.decideApproval(args.approvalId, args.answer as ApprovalAnswer, 'a command').decided;
    }
    const pending = service.approvals.list();
    if (pending.length === 0) {
      void vscode.window.showInformationMessage('Ideal State: no edit or command waits for approval.');
      return false;
    }
    const approval = pending.length === 1 ? pending[0]! : await pickApproval(pending);
    if (!approval) return false;
    for (;;) {
      // A configuration change is approved one at a time: no "Always" for it.
      const items: (vscode.QuickPickItem & { answer: ApprovalAnswer | 'diff' })[] = [
        { label: '$(check) Approve', description: approveEffect(approval), answer: 'approve' },
        ...(approval.kind === 'config' ? [] : [{ label: '$(check-all) Always for this run', description: `and the run's further ${approval.kind === 'edit' ? 'edits' : 'commands'}`, answer: 'always' as const }]),
        ...(approval.kind !== 'command' ? [{ label: '$(diff) Show Diff', description: 'the file beside the proposal, then ask again', answer: 'diff' as const }] : []),
        { label: '$(close) Deny', description: 'the agent is told and must not work around it', answer: 'deny' },
        ...(approval.kind === 'command' && approval.remembersDenial ? [{ label: '$(circle-slash) Deny always', description: 'never asked about or run again in this workspace, until removed from the state folder', answer: 'never' as const }] : []),
      ];
      const picked = await vscode.window.showQuickPick(items, { title: `Ideal State: ${approval.title}`, placeHolder: what(approval) });
      if (!picked) return false;
      if (picked.answer === 'diff') {
        const shown = await service.showApprovalDiff(approval.id);
        if (!shown.ok) {
          void vscode.window.showInformationMessage(`Ideal State: ${shown.message}`);
          return false;
        }
        continue;
      }
      const result = service.decideApproval(approval.id, picked.answer, 'the palette');
      if (!result.decided) void vscode.window.showInformationMessage(`Ideal State: ${approval.title} — ${result.reason}.`);
      else if (picked.answer === 'never') void vscode.window.showInformationMessage(`Ideal State: ${deniedAlwaysMessage(approval, await engine().deniedCommandsFile(approval.cwd ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '.'))}`);
      return result.decided;
    }
  });
}

async function pickApproval(pending: readonly PendingApproval[]): Promise<PendingApproval | undefined> {
  const picked = await vscode.window.showQuickPick(
    pending.map((a) => ({ label: a.title, description: a.kind === 'command' ? a.cwd : a.path, detail: what(a), approval: a })),
    { title: 'Ideal State: Approve or Deny Pending Changes', placeHolder: 'Which change?', matchOnDetail: true },
  );
  return picked?.approval;
}

function what(a: PendingApproval): string {
  if (a.kind === 'command') return (a.command ?? a.summary).split('\n').join(' ; ');
  const lines = a.summary.split('\n').filter((l) => /^[+-]/.test(l) && !/^(\+\+\+|---)/.test(l));
  const counts = `${lines.filter((l) => l.startsWith('+')).length} line(s) added, ${lines.filter((l) => l.startsWith('-')).length} removed in ${a.path ?? a.title} (run ${a.runId})`;
  return a.kind === 'config' ? `configuration change: ${counts}` : counts;
}
