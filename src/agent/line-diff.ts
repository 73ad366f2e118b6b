/**
 * The line diff an approval shows: what an edit really adds and removes, in order, with a few
 * lines of context, like `diff -u`. The totals go in the `+++` header, so a summary cut to fit
 * never under-reports: `+++ src/greet.js (+6 −0)`.
 */

const CONTEXT = 2;
/** Past this many cells the middle is shown as replaced, not aligned line by line. */
const MAX_CELLS = 4_000_000;
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

/** Common prefix and suffix kept, the middle aligned by longest common subsequence. */
function align(a: readonly string[], b: readonly string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head: Op[] = a.slice(0, start).map((text) => ({ kind: ' ', text }));
  const tail: Op[] = a.slice(endA).map((text) => ({ kind: ' ', text }));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  return [...head, ...middle(midA, midB), ...tail];
}

function middle(a: readonly string[], b: readonly string[]): Op[] {
  if (a.length * b.length > MAX_CELLS || a.length === 0 || b.length === 0) {
    return [...a.map((text): Op => ({ kind: '-', text })), ...b.map((text): Op => ({ kind: '+', text }))];
  }
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j] ? lcs[(i + 1) * width + j + 1]! + 1 : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      ops.push({ kind: ' ', text: a[i]! });
      i++;
      j++;
    } else if (lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!) ops.push({ kind: '-', text: a[i++]! });
    else ops.push({ kind: '+', text: b[j++]! });
  }
  while (i < a.length) ops.push({ kind: '-', text: a[i++]! });
  while (j < b.length) ops.push({ kind: '+', text: b[j++]! });
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
