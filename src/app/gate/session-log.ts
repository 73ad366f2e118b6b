import { createHash } from 'node:crypto';

/**
 * One LOG entry per agent session. Every stop of a session is verified, and
 * each verification is recorded in the store; the tracked PRD keeps only the session's latest
 * verdict, so a session that was blocked twice and then let go leaves one entry (its final
 * verdict), not three. A session is told apart by the host adapter's session key, shown as a
 * short digest (`session 1a2b3c4d`) in the entry's Work line.
 */
export function sessionMark(sessionKey: string): string {
  return `session ${createHash('sha256').update(sessionKey).digest('hex').slice(0, 8)}`;
}

const HEADING = /^#{1,2}\s/;
const ENTRY = /^###\s/;
const LOG = /^##\s+LOG\s*$/i;

/**
 * The PRD text with every LOG entry (`### …` with its `- Key: value` lines) whose Work line
 * carries `mark` removed but the last. Nothing else changes: other entries, other sections,
 * line endings.
 */
export function keepLastSessionEntry(text: string, mark: string): string {
  const lines = text.split(/(?<=\n)/);
  const logAt = lines.findIndex((l) => LOG.test(l.trimEnd()));
  if (logAt < 0) return text;
  let logEnd = lines.findIndex((l, i) => i > logAt && HEADING.test(l));
  if (logEnd < 0) logEnd = lines.length;
  const entries: { start: number; end: number }[] = [];
  for (let i = logAt + 1; i < logEnd; i++) {
    if (!ENTRY.test(lines[i]!)) continue;
    let end = i + 1;
    while (end < logEnd && !ENTRY.test(lines[end]!)) end++;
    const body = lines.slice(i, end);
    if (body.some((l) => /^- Work:/.test(l) && l.includes(`, ${mark})`))) entries.push({ start: i, end });
  }
  if (entries.length < 2) return text;
  const drop = new Set<number>();
  for (const e of entries.slice(0, -1)) {
    // The entry, and the blank line that separated it from what came before.
    const from = e.start > 0 && lines[e.start - 1]!.trim() === '' ? e.start - 1 : e.start;
    let to = e.end;
    // Its own trailing blank lines stay with the next entry's separation.
    while (to > e.start + 1 && lines[to - 1]!.trim() === '') to--;
    for (let i = from; i < to; i++) drop.add(i);
  }
  return lines.filter((_, i) => !drop.has(i)).join('');
}
