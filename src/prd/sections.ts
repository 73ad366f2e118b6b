import { trimBlanksEnd } from './lines';
import type { PrdDecision, PrdLogEntry, SectionKind } from './model';

const NAMES: Record<string, SectionKind> = {
  'problem space': 'problem-space',
  problem: 'problem-space',
  'key files': 'key-files',
  constraints: 'constraints',
  decisions: 'decisions',
  'ideal state criteria': 'criteria',
  criteria: 'criteria',
  isc: 'criteria',
  'anti-criteria': 'anti-criteria',
  'anti criteria': 'anti-criteria',
  anticriteria: 'anti-criteria',
  log: 'log',
  changelog: 'log',
  context: 'context',
  verification: 'verification',
};

/**
 * `## Ideal State Criteria (Verification Criteria)` and `## ideal state criteria:` are both the criteria section.
 *
 * No regex here and below may try a match at every position of a line and scan on from
 * there (`/\s*\(.*\)\s*$/`, `/(.*?)[ \t]*$/`): on a long line of `(` or of blanks that is
 * quadratic, and a 1 MB heading took hours. Patterns are anchored and end in a greedy `(.*)$`,
 * and trailing blanks are cut with a loop.
 */
export function sectionKind(heading: string): SectionKind {
  const key = trimEndWhere(withoutTrailingParenthesis(heading), (c) => c === ':' || /\s/.test(c))
    .replace(/\s+/g, ' ')
    .toLowerCase();
  return NAMES[key] ?? 'unknown';
}

/** `Title (note)` → `Title `: from the first `(` to a closing `)` at the end (what `/\s*\(.*\)\s*$/` removed, blanks before it aside). */
function withoutTrailingParenthesis(text: string): string {
  const trimmed = trimEndWhere(text, (c) => /\s/.test(c));
  if (!trimmed.endsWith(')')) return text;
  const open = trimmed.indexOf('(');
  return open >= 0 && open < trimmed.length - 1 ? text.slice(0, open) : text;
}

function trimEndWhere(s: string, drop: (c: string) => boolean): string {
  let end = s.length;
  while (end > 0 && drop(s[end - 1]!)) end--;
  return s.slice(0, end);
}

const ITEM = /^[ \t]*[-*+][ \t]+(.*)$/;

export function listItems(texts: readonly string[]): string[] {
  return texts.flatMap((t) => {
    const m = ITEM.exec(t);
    const item = m ? trimBlanksEnd(m[1]!) : '';
    return item ? [item] : [];
  });
}

export function prose(texts: readonly string[]): string | undefined {
  const joined = texts.join('\n').trim();
  return joined || undefined;
}

type Line = { line: number; text: string };

const FIELD_RE = /^[ \t]*[-*+][ \t]+(?:\*\*)?([A-Za-z][A-Za-z ]*?)(?::\*\*|\*\*:|:)[ \t]*(.*)$/;
const H3_RE = /^ {0,3}#{3,6}[ \t]+(.*)$/;
/** The regex's captures, the last one without trailing blanks. */
const withTrimmedLast = (re: RegExp) => ({
  exec(text: string): RegExpExecArray | null {
    const m = re.exec(text);
    if (m) m[m.length - 1] = trimBlanksEnd(m[m.length - 1]!);
    return m;
  },
});
const FIELD = withTrimmedLast(FIELD_RE);
const H3 = withTrimmedLast(H3_RE);
const DATED = /^(\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?)[ \t]*:?[ \t]*(.*)$/;

/** `### 2026-02-17: Title` with `- **Decision:**` bullets (this product's), or `- 2026-02-24 02:00: Chose X` (PAI v2). */
export function decisions(lines: readonly Line[]): PrdDecision[] {
  const out: PrdDecision[] = [];
  let current: PrdDecision | undefined;
  for (const { line, text } of lines) {
    const h = H3.exec(text);
    if (h) {
      const d = DATED.exec(h[1]!);
      current = { line, title: d ? d[2]! : h[1]!, ...(d ? { date: d[1] } : {}), alternatives: [] };
      out.push(current);
      continue;
    }
    const f = FIELD.exec(text);
    const key = f?.[1]?.toLowerCase();
    if (current && f && (key === 'decision' || key === 'rationale' || key === 'alternatives')) {
      if (key === 'alternatives') current.alternatives = f[2]!.split(',').map((s) => s.trim()).filter(Boolean);
      else current[key] = f[2]!;
      continue;
    }
    const item = listItems([text])[0];
    const d = item !== undefined && !current ? DATED.exec(item) : null;
    if (d) out.push({ line, date: d[1], title: d[2]!, decision: d[2]!, alternatives: [] });
  }
  return out;
}

/** `### Iteration 1 — 2026-02-17` with `- Key: value` bullets (this product's), or one bullet per entry (PAI's CHANGELOG). */
export function logEntries(lines: readonly Line[]): PrdLogEntry[] {
  const out: PrdLogEntry[] = [];
  let current: PrdLogEntry | undefined;
  for (const { line, text } of lines) {
    const h = H3.exec(text);
    if (h) {
      current = { line, title: h[1]!, fields: {} };
      out.push(current);
      continue;
    }
    const f = FIELD.exec(text);
    if (current && f) {
      current.fields[f[1]!.toLowerCase()] = f[2]!;
      continue;
    }
    const item = listItems([text])[0];
    if (!current && item) out.push({ line, title: item, fields: {} });
  }
  return out;
}

const EVIDENCE = withTrimmedLast(/^[ \t]*[-*+][ \t]+(ISC-[A-Za-z0-9-]+)[ \t]*:[ \t]*(.*)$/);

/** PAI v2's `- ISC-1: evidence` lines. */
export function evidence(lines: readonly Line[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { text } of lines) {
    const m = EVIDENCE.exec(text);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}
