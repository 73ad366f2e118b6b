/**
 * The line diff an approval shows: what an edit really adds and removes, in order, with a few
 * lines of context, like `diff -u`. The totals go in the `+++` header, so a summary cut to fit
 * never under-reports: `+++ src/greet.js (+6 −0)`.
 */

import { lineHunks } from '../prd/text-changes';

const CONTEXT = 2;
const MAX_LINES = 80;

type Op = { kind: ' ' | '-' | '+'; text: string };

export interface LineDiff {
  readonly added: number;
  readonly removed: number;
  /** The unified-style text: `--- a`, `+++ b (+A −R)`, hunks of ` `, `-` and `+` lines. */
  readonly text: string;
}

export function lineDiff(path: string, before: string | undefined, after: string): LineDiff {
  const a = before === undefined ? [] : splitLines(before);
  const b = splitLines(after);
  const ops = align(a, b);
  const added = ops.filter((o) => o.kind === '+').length;
  const removed = ops.filter((o) => o.kind === '-').length;
  const body = hunks(ops);
  const header = [`--- ${before === undefined ? '/dev/null' : path}`, `+++ ${path} (+${added} −${removed})`];
  const lines = body.length > MAX_LINES ? [...body.slice(0, MAX_LINES), `… ${body.length - MAX_LINES} more lines`] : body;
  return { added, removed, text: [...header, ...lines].join('\n') };
}

/** The totals of a summary made by `lineDiff` (its `+++` header), else counted from its lines. */
export function diffTotals(summary: string): { added: number; removed: number } {
  const header = /^\+\+\+ .* \(\+(\d+) −(\d+)\)$/m.exec(summary);
  if (header) return { added: Number(header[1]), removed: Number(header[2]) };
  let added = 0;
  let removed = 0;
  for (const line of summary.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) added++;
    else if (line.startsWith('-') && !line.startsWith('---')) removed++;
  }
  return { added, removed };
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The lines in order: unchanged ones, and each hunk of the one line diff as its removed lines then its added ones. */
function align(a: readonly string[], b: readonly string[]): Op[] {
  const ops: Op[] = [];
  let i = 0;
  for (const h of lineHunks(a, b)) {
    for (; i < h.a0; i++) ops.push({ kind: ' ', text: a[i]! });
    for (const text of a.slice(h.a0, h.a1)) ops.push({ kind: '-', text });
    for (const text of b.slice(h.b0, h.b1)) ops.push({ kind: '+', text });
    i = h.a1;
  }
  for (; i < a.length; i++) ops.push({ kind: ' ', text: a[i]! });
  return ops;
}

/** The changed lines with CONTEXT unchanged lines around each run of changes; `…` between hunks. */
function hunks(ops: readonly Op[]): string[] {
  const keep = new Array<boolean>(ops.length).fill(false);
  ops.forEach((op, k) => {
    if (op.kind === ' ') return;
    for (let c = Math.max(0, k - CONTEXT); c <= Math.min(ops.length - 1, k + CONTEXT); c++) keep[c] = true;
  });
  const out: string[] = [];
  let gap = false;
  ops.forEach((op, k) => {
    if (!keep[k]) {
      gap = out.length > 0;
      return;
    }
    if (gap) out.push('…');
    gap = false;
    out.push(`${op.kind}${op.text}`);
  });
  return out;
}
