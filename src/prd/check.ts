import { byPosition, diagnostic, type PrdDiagnostic } from './diagnostics';
import { lintPrd, type LintOptions } from './lint';
import type { PrdDocument } from './model';
import { parsePrd } from './parse';

/** Past this many diagnostics of one rule, the rest are counted in one more: a generated PRD can have a million. */
const MAX_PER_RULE = 100;

/** Parses and lints a PRD: every diagnostic, in document order (at most MAX_PER_RULE of a rule, then a count). */
export function checkPrd(text: string, options: LintOptions = {}): { document: PrdDocument; diagnostics: PrdDiagnostic[] } {
  const shipped = options.effortTable === undefined;
  if (shipped && last?.text === text) return last.checked;
  const document = parsePrd(text);
  // A file too large to read has no content to lint: "0 criteria" would only mislead.
  const lint = document.diagnostics.some((d) => d.rule === 'prd-too-large') ? [] : lintPrd(document, options);
  const diagnostics = capPerRule([...document.diagnostics, ...lint].sort(byPosition));
  if (!shipped) return { document, diagnostics };
  last = { text, checked: frozen({ document, diagnostics }) };
  return last.checked;
}

/**
 * The last text checked against the shipped effort table, and what it gave: the MCP server
 * verifies the same PRD turn after turn, and parsing it again cost a few milliseconds a call.
 * Frozen all through, so no reader can change what the next one is given.
 */
let last: { text: string; checked: { document: PrdDocument; diagnostics: PrdDiagnostic[] } } | undefined;

function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) frozen((value as Record<string, unknown>)[key]);
  }
  return value;
}

function capPerRule(sorted: readonly PrdDiagnostic[]): PrdDiagnostic[] {
  const counts = new Map<string, number>();
  const firstLeftOut = new Map<string, PrdDiagnostic>();
  const out: PrdDiagnostic[] = [];
  for (const d of sorted) {
    const n = (counts.get(d.rule) ?? 0) + 1;
    counts.set(d.rule, n);
    if (n <= MAX_PER_RULE) out.push(d);
    else if (!firstLeftOut.has(d.rule)) firstLeftOut.set(d.rule, d);
  }
  if (firstLeftOut.size === 0) return out;
  for (const [rule, first] of firstLeftOut) {
    const more = counts.get(rule)! - MAX_PER_RULE;
    out.push(diagnostic(first.severity, rule, first.range, `${more} more like this (${rule}) from here on are not listed; fix the ones above and check again`));
  }
  return out.sort(byPosition);
}
