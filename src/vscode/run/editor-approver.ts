import * as vscode from 'vscode';
import type { ApprovalAnswer, ApprovalRequest, Approver } from '../../agent/approvals';
import type { Logger } from '../../core/log';
import type { Settings } from '../../core/settings';
import { allowList } from '../verify/allowed-commands';
import type { ProposalDocuments } from './proposal-documents';

/** An approval request that may also carry the edit's file and its full proposed text (for a side-by-side diff). */
export type EditorApprovalRequest = ApprovalRequest & { readonly path?: string; readonly proposed?: string };

/** Answers approvals instead of the dialog: the integration tests' hook (see RunService.answerApprovalsWith). */
export type ApprovalAnswerer = (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;

const APPROVE = 'Approve';
const ALWAYS = 'Always for this run';
const SHOW_DIFF = 'Show Diff';
const DENY = 'Deny';
const DETAIL_LINES = 14;

/**
 * Asks the person at the editor, in a modal dialog: Approve / Always for this run / Deny,
 * and for an edit "Show Diff", which opens the change beside the file and asks again.
 * Commands matching `idealState.run.allowedCommands` (the same pattern syntax as
 * `idealState.verify.allowedCommands`: `*` never spans a shell operator) are approved
 * without asking. Trust and auto-approve are decided before this, by the run's policy.
 */
export class EditorApprover implements Approver {
  constructor(
    private readonly settings: Settings,
    private readonly proposals: ProposalDocuments,
    private readonly log: Logger,
    private readonly answerer?: ApprovalAnswerer,
  ) {}

  async ask(request: EditorApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    if (signal.aborted) return 'deny';
    if (request.kind === 'command' && this.allowListed(request.detail)) {
      this.log.info('command approved by idealState.run.allowedCommands');
      return 'approve';
    }
    if (this.answerer) return this.answerer(request);
    for (;;) {
      const buttons = request.kind === 'edit' ? [APPROVE, ALWAYS, SHOW_DIFF, DENY] : [APPROVE, ALWAYS, DENY];
      const answer = await vscode.window.showWarningMessage(`Ideal State run: ${request.title}?`, { modal: true, detail: this.detail(request) }, ...buttons);
      if (signal.aborted) return 'deny';
      if (answer === SHOW_DIFF) {
        await this.showDiff(request);
        continue;
      }
      return answer === APPROVE ? 'approve' : answer === ALWAYS ? 'always' : 'deny';
    }
  }

  private allowListed(commands: string): boolean {
    const list = allowList(this.settings.get('runAllowedCommands'));
    for (const problem of list.problems) this.log.warn(`idealState.run.allowedCommands: ${problem}`);
    const lines = commands.split('\n').map((c) => c.trim()).filter(Boolean);
    return lines.length > 0 && lines.every((c) => list.match(c) !== undefined);
  }

  private detail(request: EditorApprovalRequest): string {
    if (request.kind === 'command') {
      return `${request.detail}\n\nIt runs in the workspace folder. "Always for this run" approves the run's further commands without asking; commands you always trust can go in the setting idealState.run.allowedCommands.`;
    }
    const lines = request.detail.split('\n');
    const shown = lines.length > DETAIL_LINES ? [...lines.slice(0, DETAIL_LINES), `… ${lines.length - DETAIL_LINES} more lines (Show Diff)`] : lines;
    return `${shown.join('\n')}\n\nThe edit is undoable, and "Undo Run Changes" restores every file the run changed. "Always for this run" approves the run's further edits without asking.`;
  }

  /** The file beside its proposed text when the request carries it; else the change as a diff document. */
  private async showDiff(request: EditorApprovalRequest): Promise<void> {
    const name = (request.path ?? request.title.replace(/^(Edit|Create)\s+/, '')).split('/').pop() || 'change';
    if (request.path !== undefined && request.proposed !== undefined) {
      const folder = vscode.workspace.workspaceFolders?.[0];
      if (folder) {
        const current = vscode.Uri.joinPath(folder.uri, request.path);
        const proposed = this.proposals.add(name, request.proposed);
        await vscode.commands.executeCommand('vscode.diff', current, proposed, `${request.path} ↔ proposed by the run`, { preview: true });
        return;
      }
    }
    const uri = this.proposals.add(`${name}.diff`, request.detail);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(vscode.languages.setTextDocumentLanguage ? await vscode.languages.setTextDocumentLanguage(document, 'diff') : document, { preview: true });
  }
}
