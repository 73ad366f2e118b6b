import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { PrdDiagnostic, Range } from '../../prd';
import type { DefinitionsHost } from '../definitions-host';
import { frontmatterStart } from '../../prd/frontmatter-start';
import { engine } from '../engine';

const DEBOUNCE_MS = 300;

/** A published problem together with the mechanical fix the checker offered for it. */
export interface PrdFinding {
  readonly diagnostic: vscode.Diagnostic;
  readonly fix?: PrdDiagnostic['fix'];
}

export function toRange(r: Range): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

/**
 * Parser and ISC linter findings for PRD files in the Problems panel: on open, on change
 * (debounced) and on save; gone on close or delete. Reads only text, so it works in
 * Restricted Mode too.
 */
export class PrdDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('ideal-state-prd');
  private readonly findings = new Map<string, { version: number; list: PrdFinding[] }>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly disposables: vscode.Disposable[] = [this.collection];

  constructor(
    private readonly definitions: DefinitionsHost,
    private readonly log: Logger,
  ) {
    this.disposables.push(
      vscode.workspace.onDidOpenTextDocument((d) => this.schedule(d, 0)),
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document, DEBOUNCE_MS)),
      vscode.workspace.onDidSaveTextDocument((d) => this.schedule(d, 0)),
      vscode.workspace.onDidCloseTextDocument((d) => this.clear(d.uri)),
      vscode.workspace.onDidDeleteFiles((e) => e.files.forEach((uri) => this.clear(uri))),
      vscode.workspace.onDidRenameFiles((e) => e.files.forEach(({ oldUri }) => this.clear(oldUri))),
      // A new effort table changes the minimum criteria count: check open PRDs again.
      definitions.onDidChange(() => this.findings.forEach((_, uri) => {
        const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
        if (document) this.schedule(document, 0);
      })),
    );
    for (const d of vscode.workspace.textDocuments) this.schedule(d, 0);
  }

  /** What was published for this document at this version; empty when it has changed since. */
  findingsFor(document: vscode.TextDocument): readonly PrdFinding[] {
    const entry = this.findings.get(document.uri.toString());
    return entry && entry.version === document.version ? entry.list : [];
  }

  private schedule(document: vscode.TextDocument, delay: number): void {
    if (document.languageId !== 'markdown' || document.uri.scheme === 'output') return;
    // Only a file that opens with frontmatter (after blank lines and HTML comments, as LifeOS ISAs do) can be a PRD; anything else never loads the engine.
    if (!this.findings.has(document.uri.toString()) && !opensWithFrontmatter(document)) return;
    const key = document.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.check(document).catch((e: unknown) => this.log.error(`checking ${vscode.workspace.asRelativePath(document.uri)} failed: ${String(e)}`));
      }, delay),
    );
  }

  private async check(document: vscode.TextDocument): Promise<void> {
    if (document.isClosed) return;
    const version = document.version;
    const effortTable = await this.definitions.get().then(
      (d) => d.effort.table,
      () => undefined,
    );
    if (document.isClosed || document.version !== version) return; // a newer check is scheduled
    const text = document.getText();
    const e = engine();
    // An ISA is checked as `prd check` checks it (its own claims, probes and rules), never by the PRD linter.
    const isa = e.recogniseFormat(text, document.uri.path) === 'isa';
    const prd = isa ? undefined : e.checkPrd(text, effortTable ? { effortTable } : {});
    if (prd && !e.isPrdDocument(prd.document)) return this.clear(document.uri);
    const diagnostics = prd ? prd.diagnostics : e.checkIsa(text).diagnostics;
    const list = diagnostics.map((d): PrdFinding => {
      const diagnostic = new vscode.Diagnostic(toRange(d.range), d.message, severity(d.severity));
      diagnostic.source = 'Ideal State';
      diagnostic.code = d.rule;
      return { diagnostic, ...(d.fix ? { fix: d.fix } : {}) };
    });
    this.findings.set(document.uri.toString(), { version, list });
    this.collection.set(
      document.uri,
      list.map((f) => f.diagnostic),
    );
  }

  private clear(uri: vscode.Uri): void {
    const key = uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.findings.delete(key);
    this.collection.delete(uri);
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const d of this.disposables) d.dispose();
  }
}

function severity(s: PrdDiagnostic['severity']): vscode.DiagnosticSeverity {
  return s === 'error' ? vscode.DiagnosticSeverity.Error : s === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Information;
}

/** The first lines are enough: frontmatter opens within the first 200 (see frontmatterStart). */
function opensWithFrontmatter(document: vscode.TextDocument): boolean {
  const head = Array.from({ length: Math.min(document.lineCount, 200) }, (_, i) => ({ text: document.lineAt(i).text.replace(/^\uFEFF/, '') }));
  return frontmatterStart(head) >= 0;
}
