/** 0-based position, as editors count (VS Code's Position). */
export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** A replacement of one range of the document by new text. */
export interface TextEdit {
  range: Range;
  newText: string;
}

export type Severity = 'error' | 'warning' | 'info';

/**
 * A problem found in a PRD: by the parser (the file could not be read as the user meant)
 * or by the ISC linter (the criteria do not follow the rules). `line` and `column` are
 * 1-based, `range` is 0-based.
 */
export interface PrdDiagnostic {
  severity: Severity;
  line: number;
  column: number;
  range: Range;
  message: string;
  /** Which rule found it, e.g. `duplicate-id` or `isc-compound`. */
  rule: string;
  /** A mechanical fix, when there is one. */
  fix?: { description: string; edits: TextEdit[] };
}

export function rangeOn(line: number, start: number, end = start): Range {
  return { start: { line, character: start }, end: { line, character: end } };
}

export function diagnostic(severity: Severity, rule: string, range: Range, message: string, fix?: PrdDiagnostic['fix']): PrdDiagnostic {
  return { severity, line: range.start.line + 1, column: range.start.character + 1, range, message, rule, ...(fix ? { fix } : {}) };
}

export function byPosition(a: PrdDiagnostic, b: PrdDiagnostic): number {
  return a.line - b.line || a.column - b.column;
}

export function formatDiagnostic(file: string, d: PrdDiagnostic): string {
  return `${file}:${d.line}:${d.column}: ${d.severity}: ${d.message} [${d.rule}]`;
}
