import * as vscode from 'vscode';
import { engine } from '../engine';

/**
 * Turns a document's text into `next` with one WorkspaceEdit of line-local replacements, so
 * only the lines that differ are touched: undo/redo, dirty state and every open editor of
 * the document see a normal edit. Resolves false when VS Code refused it (the document
 * changed between reading and applying); nothing was changed then.
 */
export async function replaceDocumentText(document: vscode.TextDocument, next: string): Promise<boolean> {
  const changes = engine().textChanges(document.getText(), next);
  if (changes.length === 0) return true;
  const edit = new vscode.WorkspaceEdit();
  for (const c of changes) edit.replace(document.uri, new vscode.Range(document.positionAt(c.start), document.positionAt(c.end)), c.text);
  return vscode.workspace.applyEdit(edit);
}
