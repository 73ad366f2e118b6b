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

/** `## Ideal State Criteria (Verification Criteria)` and `## ideal state criteria:` are both the criteria section. */
export function sectionKind(heading: string): SectionKind {
  const key = heading
    .replace(/\s*\(.*\)\s*$/, '')
    .replace(/[:\s]+$/, '')
    .replace(/\s+/g, ' ')
    .toLowerCase();
  return NAMES[key] ?? 'unknown';
}

const ITEM = /^[ \t]*[-*+][ \t]+(.*?)[ \t]*$/;

export function listItems(texts: readonly string[]): string[] {
  return texts.flatMap((t) => {
    const m = ITEM.exec(t);
    return m && m[1] ? [m[1]] : [];
  });
}

export function prose(texts: readonly string[]): string | undefined {
  const joined = texts.join('\n').trim();
  return joined || undefined;
}

type Line = { line: number; text: string };

const FIELD = /^[ \t]*[-*+][ \t]+(?:\*\*)?([A-Za-z][A-Za-z ]*?)(?::\*\*|\*\*:|:)[ \t]*(.*?)[ \t]*$/;
const H3 = /^ {0,3}#{3,6}[ \t]+(.*?)[ \t]*$/;
const DATED = /^(\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?)[ \t]*:?[ \t]*(.*)$/;

/** `### 2026-02-17: Title` with `- **Decision:**` bullets (seed), or `- 2026-02-24 02:00: Chose X` (PAI v2). */
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

/** `### Iteration 1 — 2026-02-17` with `- Key: value` bullets (seed), or one bullet per entry (PAI's CHANGELOG). */
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

const EVIDENCE = /^[ \t]*[-*+][ \t]+(ISC-[A-Za-z0-9-]+)[ \t]*:[ \t]*(.*?)[ \t]*$/;

/** PAI v2's `- ISC-1: evidence` lines. */
export function evidence(lines: readonly Line[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { text } of lines) {
    const m = EVIDENCE.exec(text);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}
