import { dominantEol, joinLines, splitLines } from './lines';
import type { PrdDocument } from './model';
import { parsePrd } from './parse';

/**
 * Notes Ideal State writes under a criterion, one indented list item each, right after the
 * criterion's line:
 *
 *     - [ ] ISC-2: farewell refuses an empty name | Verify: CLI: node -e "…"
 *       - Not approved (sha256:1a2b3c4d5e6f): a person denied this command on 2026-11-26; …
 *       - Probe: passes before any work — can this check fail? (2026-11-26)
 *
 * To the parser they are prose inside the criteria section: a PRD with notes reads as one
 * without them, and a round trip keeps them byte for byte. A "Not approved" note names the
 * exact command it is about by digest (src/verify/command-digest.ts), so a note left under a criterion whose command was
 * changed since says nothing about the new one.
 */
export type CriterionNoteKind = 'not-approved' | 'probe';

export interface CriterionNote {
  readonly kind: CriterionNoteKind;
  /** 0-based line. */
  readonly line: number;
  /** What follows the label's colon. */
  readonly text: string;
  /** A "Not approved" note's command digest (src/verify/command-digest.ts). */
  readonly digest?: string;
}

const LABELS: Record<CriterionNoteKind, string> = { 'not-approved': 'Not approved', probe: 'Probe' };
const NOTE = /^[ \t]{2,}[-*+][ \t]+(Not approved|Probe)[ \t]*(?:\((sha256:[0-9a-f]{12})\))?[ \t]*:[ \t]*(.*)$/i;

/** Reads one line as a note, if it is one. */
export function parseNoteLine(line: string): Omit<CriterionNote, 'line'> | undefined {
  const m = NOTE.exec(line);
  if (!m) return undefined;
  const kind: CriterionNoteKind = m[1]!.toLowerCase() === 'probe' ? 'probe' : 'not-approved';
  return { kind, text: m[3]!.trim(), ...(m[2] ? { digest: m[2] } : {}) };
}

/** The notes under criterion `id` (none when the PRD has no such criterion). */
export function notesOf(doc: PrdDocument, id: string): CriterionNote[] {
  const c = doc.criteria.find((x) => x.id === id);
  if (!c) return [];
  const out: CriterionNote[] = [];
  for (let i = c.line + 1; i < doc.source.lines.length; i++) {
    if (!doc.structural[i]) break;
    const note = parseNoteLine(doc.source.lines[i]!.text);
    if (!note) break;
    out.push({ ...note, line: i });
  }
  return out;
}

export function renderNote(kind: CriterionNoteKind, text: string, digest?: string): string {
  return `  - ${LABELS[kind]}${digest ? ` (${digest})` : ''}: ${text.replace(/\s*[\r\n]+\s*/g, ' ').trim()}`;
}

/**
 * Sets (or with `text` undefined, removes) criterion `id`'s note of `kind`. Every other line
 * keeps its bytes; an unknown id leaves the text as it was.
 */
export function setNote(text: string, id: string, kind: CriterionNoteKind, note: { text: string; digest?: string } | undefined): string {
  const doc = parsePrd(text);
  const c = doc.criteria.find((x) => x.id === id);
  if (!c) return text;
  const existing = notesOf(doc, id).filter((n) => n.kind === kind);
  const source = splitLines(text);
  const lines = source.lines;
  const rendered = note ? renderNote(kind, note.text, note.digest) : undefined;
  if (existing.length > 0) {
    const [first, ...rest] = existing;
    if (rendered === lines[first!.line]!.text && rest.length === 0) return text;
    for (const n of rest.reverse()) removeLine(lines, n.line);
    if (rendered === undefined) removeLine(lines, first!.line);
    else lines[first!.line]!.text = rendered;
    return joinLines(source);
  }
  if (rendered === undefined) return text;
  const after = c.line + notesOf(doc, id).length;
  const eol = lines[after]!.eol || dominantEol(lines);
  lines.splice(after + 1, 0, { text: rendered, eol: lines[after]!.eol === '' ? '' : eol });
  if (lines[after]!.eol === '') lines[after]!.eol = eol;
  return joinLines(source);
}

function removeLine(lines: { text: string; eol: '' | '\n' | '\r\n' | '\r' }[], at: number): void {
  const [gone] = lines.splice(at, 1);
  // The file's last line lost: the line before it becomes the last, ending as the removed one did.
  if (at === lines.length && at > 0) lines[at - 1]!.eol = gone!.eol;
}
