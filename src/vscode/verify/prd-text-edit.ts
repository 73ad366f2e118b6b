import * as vscode from 'vscode';

/**
 * The smallest WorkspaceEdit that turns `before` into `after`: one replacement of the lines
 * between their common first and last lines. Applied to the open document, it is one undo
 * step, keeps the user's unsaved edits elsewhere, and never rewrites lines it does not change.
 */
export function minimalEdit(document: vscode.TextDocument, after: string): vscode.WorkspaceEdit | undefined {
  const before = document.getText();
  if (before === after) return undefined;
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  // Replace whole lines [start, endA) of the old text by lines [start, endB) of the new one.
  const offsetOf = (lines: string[], line: number) => lines.slice(0, line).reduce((n, l) => n + l.length + 1, 0);
  const from = document.positionAt(offsetOf(a, start));
  const to = document.positionAt(Math.min(before.length, offsetOf(a, endA)));
  const newText = after.slice(offsetOf(b, start), Math.min(after.length, offsetOf(b, endB)));
  const edit = new vscode.WorkspaceEdit();
  edit.replace(document.uri, new vscode.Range(from, to), newText);
  return edit;
}
