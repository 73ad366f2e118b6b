import { byPosition, type PrdDiagnostic } from './diagnostics';
import { lintPrd, type LintOptions } from './lint';
import type { PrdDocument } from './model';
import { parsePrd } from './parse';

/** Parses and lints a PRD: every diagnostic, in document order. */
export function checkPrd(text: string, options: LintOptions = {}): { document: PrdDocument; diagnostics: PrdDiagnostic[] } {
  const document = parsePrd(text);
  const diagnostics = [...document.diagnostics, ...lintPrd(document, options)].sort(byPosition);
  return { document, diagnostics };
}
