import * as vscode from 'vscode';
import type { PendingApproval } from '../../agent/pending-approvals';
import { PROPOSAL_SCHEME, type ProposalDocuments } from './proposal-documents';

export interface DiffShown {
  readonly ok: boolean;
  readonly message: string;
}

/**
 * "Show Diff" of a pending edit: VS Code's diff editor with the file as the workspace has it
 * now on the left (an open editor's unsaved text included) and the proposal, a read-only
 * virtual document, on the right. A new file is diffed against an empty one. Nothing is
 * written: the file changes only once the edit is approved. `viewColumn` keeps the diff out
 * of the way of what asked for it (the ISC table).
 */
export async function showApprovalDiff(approval: PendingApproval, proposals: ProposalDocuments, folder: vscode.WorkspaceFolder | undefined, viewColumn?: vscode.ViewColumn): Promise<DiffShown> {
  if (approval.kind === 'command') return { ok: false, message: `${approval.title} is a command; there is no diff to show.` };
  const name = (approval.path ?? approval.title.replace(/^(Edit|Create|Change configuration:)\s+/, '')).split('/').pop() || 'change';
  if (approval.path !== undefined && approval.proposed !== undefined && folder) {
    const file = vscode.Uri.joinPath(folder.uri, approval.path);
    const exists = !approval.creates && (await vscode.workspace.fs.stat(file).then(() => true, () => false));
    const current = exists ? file : proposals.add(`${approval.id}:empty`, name, '');
    const proposed = proposals.add(approval.id, name, approval.proposed);
    await vscode.commands.executeCommand('vscode.diff', current, proposed, diffTitle(approval.path, !exists), { preview: true, ...(viewColumn ? { viewColumn } : {}) });
    return { ok: true, message: `The diff of ${approval.path} is open: approve or deny it here or in the notification.` };
  }
  // A request that carries only its summary (an older engine): show that, as a diff document.
  const uri = proposals.add(approval.id, `${name}.diff`, approval.summary);
  const document = await vscode.languages.setTextDocumentLanguage(await vscode.workspace.openTextDocument(uri), 'diff');
  await vscode.window.showTextDocument(document, { preview: true, ...(viewColumn ? { viewColumn } : {}) });
  return { ok: true, message: `The change to ${name} is open.` };
}

/** The diff editor's title, e.g. "greet.js (current ↔ proposed by the run)". */
export function diffTitle(path: string, creates: boolean): string {
  return `${path} (${creates ? 'new file' : 'current'} ↔ proposed by the run)`;
}

/** How long an approved edit's diff stays open at most while the run writes the file. */
const WRITE_WAIT_MS = 60_000;

/**
 * Closes the diff editors of an answered approval: both sides would soon show the same text.
 * A denied edit's close at once; an approved one's only once the run has saved the file —
 * closing the file's editor while the run's WorkspaceEdit is being applied and saved would
 * close the very document it writes.
 */
export function closeApprovalDiffs(approval: PendingApproval, approved: boolean, folder: vscode.WorkspaceFolder | undefined): void {
  const close = () => {
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === PROPOSAL_SCHEME && t.input.modified.query === approval.id);
    if (tabs.length > 0) void vscode.window.tabGroups.close(tabs, true).then(undefined, () => undefined);
  };
  if (!approved || approval.kind === 'command' || approval.path === undefined || !folder) return close();
  const file = vscode.Uri.joinPath(folder.uri, approval.path).toString();
  const stop = () => {
    clearTimeout(timer);
    saved.dispose();
  };
  const saved = vscode.workspace.onDidSaveTextDocument((document) => {
    if (document.uri.toString() !== file) return;
    stop();
    close();
  });
  // A write that never comes (the run failed or was cancelled) leaves the diff to the person.
  const timer = setTimeout(stop, WRITE_WAIT_MS);
}
