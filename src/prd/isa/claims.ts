import { diagnostic, rangeOn, type PrdDiagnostic } from '../diagnostics';
import type { SourceLine } from '../lines';
import type { Heading } from '../outline';
import type { IsaClaim, IsaSection, IsaSectionKind } from './model';

const KINDS: Record<string, IsaSectionKind> = {
  claims: 'claims',
  criteria: 'claims',
  'isc criteria': 'claims',
  'ideal state criteria': 'claims',
  isc: 'claims',
  'anti-claims': 'anti-claims',
  'anti claims': 'anti-claims',
  'anti-criteria': 'anti-claims',
  'anti criteria': 'anti-claims',
  'bridge criteria': 'bridge',
  'bridge claims': 'bridge',
  features: 'features',
  'test strategy': 'test-strategy',
  verification: 'verification',
  log: 'verification',
  'not yet specified': 'fog',
  language: 'language',
};

/** `## Claims`, `## Test Strategy (harness)`, `## anti-claims:` … by name, in any case. */
export function isaSectionKind(heading: string): IsaSectionKind {
  // Loops, not `/\s*\(.*\)\s*$/` or `/[\s:]+$/`: those retry at every position and are quadratic on a long heading of `(` or blanks.
  let text = trimEnd(heading, (c) => /\s/.test(c));
  const open = text.indexOf('(');
  if (text.endsWith(')') && open >= 0) text = text.slice(0, open);
  const key = trimEnd(text, (c) => c === ':' || /\s/.test(c))
    .replace(/\s+/g, ' ')
    .toLowerCase()
    .trim();
  return KINDS[key] ?? 'other';
}

function trimEnd(s: string, drop: (c: string) => boolean): string {
  let end = s.length;
  while (end > 0 && drop(s[end - 1]!)) end--;
  return s.slice(0, end);
}

export const CLAIM_SECTIONS: ReadonlySet<IsaSectionKind> = new Set(['claims', 'anti-claims', 'bridge', 'features']);

/**
 * The ids the format knows: `ISC-N` with splits `ISC-N.M.K`, legacy anti `ISC-A-N`, and the
 * short forms of Algorithm v8 (`C1`, `A3`, `EQ-12`, split as `C1.2`).
 */
export const ISA_ID = /^(?:ISC-A-\d+|ISC-\d+(?:\.\d+)*|[A-Z]{1,4}-?\d+(?:\.\d+)*)$/;

// `- [ ] ID: text`, the separator a colon or an em/en dash (v8 writes both).
const CLAIM_LINE = /^([ \t]*[-*+][ \t]+\[)([ xX])\][ \t]+([A-Za-z][A-Za-z0-9.-]*?)([ \t]*(?::|—|–)[ \t]*)(.*)$/;
const CHECKBOX = /^[ \t]*[-*+][ \t]+\[[ xX]\]/;
const ANTI_PREFIX = /^Anti[ \t]*:[ \t]*/i;
const TOMBSTONE = /^\[(?:DROPPED|REMOVED|TOMBSTONE)\b/i;
/** `A3`, `A-3`, `ISC-A-3`: ids that name an anti-claim by themselves. */
const ANTI_ID = /^(?:A-?\d+(?:\.\d+)*|ISC-A-\d+)$/;

export function readClaims(lines: readonly SourceLine[], structural: readonly boolean[], headings: readonly Heading[], sections: readonly IsaSection[], diagnostics: PrdDiagnostic[]): IsaClaim[] {
  const claims: IsaClaim[] = [];
  const h3 = new Map(headings.filter((h) => h.level >= 3).map((h) => [h.line, h]));
  for (const section of sections.filter((s) => CLAIM_SECTIONS.has(s.kind))) {
    let antiGroup = false;
    for (let i = section.line + 1; i < section.end; i++) {
      if (!structural[i]) continue;
      const heading = h3.get(i);
      if (heading) {
        antiGroup = /^anti[- ]?(?:claims|criteria)\b/i.test(heading.text);
        continue;
      }
      const text = lines[i]!.text;
      const m = CLAIM_LINE.exec(text);
      if (!m || !ISA_ID.test(m[3]!)) {
        if (CHECKBOX.test(text)) {
          diagnostics.push(diagnostic('error', 'malformed-claim', rangeOn(i, 0, text.length), 'a claim needs an id and a colon: "- [ ] ISC-1: text" (or C1, A3 for an anti-claim); this line is not read as a claim'));
        }
        continue;
      }
      const [, lead, check, id, , rest] = m as unknown as [string, string, string, string, string, string];
      const anti = ANTI_PREFIX.exec(rest);
      const body = anti ? rest.slice(anti[0].length) : rest;
      claims.push({
        id,
        line: i,
        checked: check !== ' ',
        checkColumn: lead.length,
        text: body.trim(),
        textColumn: text.length - body.length,
        anti: anti !== null || ANTI_ID.test(id) || antiGroup || section.kind === 'anti-claims',
        tombstone: TOMBSTONE.test(body.trim()),
        section: section.kind,
      });
    }
  }
  const ids = new Set<string>();
  for (const c of claims) {
    if (ids.has(c.id)) diagnostics.push(diagnostic('error', 'duplicate-id', rangeOn(c.line, c.checkColumn + 3, c.checkColumn + 3 + c.id.length), `${c.id} is used by an earlier claim; ids never repeat (split as ${c.id}.1, drop with a tombstone)`));
    ids.add(c.id);
    if (!c.text) diagnostics.push(diagnostic('error', 'malformed-claim', rangeOn(c.line, 0, lines[c.line]!.text.length), `claim ${c.id} has no text; state what must be true after the colon`));
  }
  for (const c of claims) {
    const dot = c.id.lastIndexOf('.');
    if (dot > 0 && ids.has(c.id.slice(0, dot))) c.parent = c.id.slice(0, dot);
  }
  return claims;
}
