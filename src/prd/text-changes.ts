/**
 * The smallest set of line replacements that turns one text into another, as character
 * offsets into the first. An editor applies them as separate edits, so a change to line 40
 * and one to line 90 never rewrite the lines between them (where the user may be typing).
 */
export interface TextChange {
  /** Offset in the old text where the replaced part starts. */
  start: number;
  /** Offset in the old text where it ends (exclusive). */
  end: number;
  text: string;
}

/** Lines with their endings, so offsets and joins are exact whatever the line endings are. */
function linesWithEol(text: string): string[] {
  return text.match(/[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+$/g) ?? [];
}

/** Cells above this make the middle one hunk instead of a line diff (a PRD is far smaller). */
const MAX_DIFF_CELLS = 4_000_000;

export function textChanges(before: string, after: string): TextChange[] {
  if (before === after) return [];
  const a = linesWithEol(before);
  const b = linesWithEol(after);
  const offsets = [0];
  for (const line of a) offsets.push(offsets.at(-1)! + line.length);
  return lineHunks(a, b).map((h) => ({ start: offsets[h.a0]!, end: offsets[h.a1]!, text: b.slice(h.b0, h.b1).join('') }));
}

/** Lines `a0..a1` of the old text replaced by lines `b0..b1` of the new one (end exclusive; an empty range inserts or deletes). */
export interface LineHunk {
  a0: number;
  a1: number;
  b0: number;
  b1: number;
}

/**
 * The line diff, the one every surface uses (an approval's diff, a PRD's minimal edits): the
 * common first and last lines kept, the middle aligned by longest common subsequence, and each
 * run of unmatched lines a hunk, in order. Past MAX_DIFF_CELLS the middle is one hunk.
 */
export function lineHunks(a: readonly string[], b: readonly string[]): LineHunk[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  if (midA.length === 0 && midB.length === 0) return [];
  if (midA.length * midB.length > MAX_DIFF_CELLS) return [{ a0: head, a1: a.length - tail, b0: head, b1: b.length - tail }];
  return hunks(midA, midB).map((h) => ({ a0: head + h.a0, a1: head + h.a1, b0: head + h.b0, b1: head + h.b1 }));
}

/** Longest-common-subsequence line diff; runs of unmatched lines become hunks. */
function hunks(a: readonly string[], b: readonly string[]): LineHunk[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: length of the LCS of a[i..] and b[j..], in one flat array.
  const lcs = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[at(i, j)] = a[i] === b[j] ? lcs[at(i + 1, j + 1)]! + 1 : Math.max(lcs[at(i + 1, j)]!, lcs[at(i, j + 1)]!);
    }
  }
  const out: LineHunk[] = [];
  let i = 0;
  let j = 0;
  let open: LineHunk | undefined;
  const flush = () => {
    if (open) out.push(open);
    open = undefined;
  };
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      flush();
      i++;
      j++;
    } else if (j < m && (i === n || lcs[at(i, j + 1)]! >= lcs[at(i + 1, j)]!)) {
      open ??= { a0: i, a1: i, b0: j, b1: j };
      open.b1 = ++j;
    } else {
      open ??= { a0: i, a1: i, b0: j, b1: j };
      open.a1 = ++i;
    }
  }
  flush();
  return out;
}

/** Applies changes made against one text (in any order, not overlapping). */
export function applyTextChanges(text: string, changes: readonly TextChange[]): string {
  let out = text;
  for (const c of [...changes].sort((x, y) => y.start - x.start)) out = out.slice(0, c.start) + c.text + out.slice(c.end);
  return out;
}
