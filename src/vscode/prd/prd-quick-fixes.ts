import * as vscode from 'vscode';
import { toRange, type PrdDiagnostics } from './prd-diagnostics';

/**
 * Quick fixes for PRD findings that carry a mechanical fix (next free id, missing checkbox
 * or colon, a Verify line to fill in), applied as one undoable WorkspaceEdit each.
 */
export class PrdQuickFixes implements vscode.CodeActionProvider {
  static readonly metadata: vscode.CodeActionProviderMetadata = { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] };

  constructor(private readonly diagnostics: PrdDiagnostics) {}

  provideCodeActions(document: vscode.TextDocument, range: vscode.Range | vscode.Selection): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    for (const finding of this.diagnostics.findingsFor(document)) {
      const { diagnostic, fix } = finding;
      if (!fix || !diagnostic.range.intersection(range)) continue;
      const action = new vscode.CodeAction(`Ideal State: ${fix.description}`, vscode.CodeActionKind.QuickFix);
      action.diagnostics = [diagnostic];
      action.edit = new vscode.WorkspaceEdit();
      for (const e of fix.edits) action.edit.replace(document.uri, toRange(e.range), e.newText);
      action.isPreferred = fix.edits.length > 0;
      actions.push(action);
    }
    return actions;
  }
}
