import * as vscode from 'vscode';
import { textChanges } from '../../prd/text-changes';

/**
 * The smallest WorkspaceEdit that turns `before` into `after`: one replacement per run of
 * changed lines (the one line diff, src/prd/text-changes.ts). Applied to the open document, it
 * is one undo step, keeps the user's unsaved edits elsewhere, and never rewrites lines it does
 * not change.
 */
export function minimalEdit(document: vscode.TextDocument, after: string): vscode.WorkspaceEdit | undefined {
  const changes = textChanges(document.getText(), after);
  if (changes.length === 0) return undefined;
  const edit = new vscode.WorkspaceEdit();
  for (const c of changes) edit.replace(document.uri, new vscode.Range(document.positionAt(c.start), document.positionAt(c.end)), c.text);
  return edit;
}
