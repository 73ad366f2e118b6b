import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DiagnosticEntry, DiagnosticsSource } from '../../verify/types';

/**
 * STATIC criteria read the editor's own diagnostics (language servers, linters, our PRD
 * checker): files inside the workspace folder, as workspace-relative paths with 1-based lines.
 */
export class EditorDiagnosticsSource implements DiagnosticsSource {
  constructor(private readonly workspaceRoot: string) {}

  /** Every file's diagnostics: the engine applies `glob` with its own rules, the same in the editor and the CLI. */
  async collect(_glob: string | undefined, signal: AbortSignal): Promise<DiagnosticEntry[]> {
    signal.throwIfAborted();
    const entries: DiagnosticEntry[] = [];
    for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
      if (uri.scheme !== 'file' || diagnostics.length === 0) continue;
      const relative = path.relative(this.workspaceRoot, uri.fsPath);
      if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) continue;
      const file = relative.split(path.sep).join('/');
      for (const d of diagnostics) {
        entries.push({
          file,
          line: d.range.start.line + 1,
          severity: SEVERITY[d.severity],
          message: d.message,
          ...(d.source ? { source: d.source } : {}),
        });
      }
    }
    return entries.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  }
}

const SEVERITY: Record<vscode.DiagnosticSeverity, DiagnosticEntry['severity']> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'information',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};
