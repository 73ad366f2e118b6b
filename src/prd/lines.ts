/** One line of a document with the line ending it had, so writing it back is byte-exact. */
export interface SourceLine {
  text: string;
  eol: '' | '\n' | '\r\n' | '\r';
}

export interface SourceLines {
  /** The document started with a byte order mark (U+FEFF); it is not part of line 0's text. */
  readonly bom: boolean;
  readonly lines: SourceLine[];
}

const BOM = '\uFEFF';

/** Splits text into lines, keeping each line's own ending (LF, CRLF or a lone CR). */
export function splitLines(text: string): SourceLines {
  const bom = text.startsWith(BOM);
  const body = bom ? text.slice(1) : text;
  const lines: SourceLine[] = [];
  const re = /\r\n|\n|\r/g;
  let start = 0;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    lines.push({ text: body.slice(start, m.index), eol: m[0] as SourceLine['eol'] });
    start = m.index + m[0].length;
  }
  lines.push({ text: body.slice(start), eol: '' });
  return { bom, lines };
}

export function joinLines(source: SourceLines): string {
  return (source.bom ? BOM : '') + source.lines.map((l) => l.text + l.eol).join('');
}

/** The line ending new lines get: the document's most common one, LF for a one-line document. */
export function dominantEol(lines: readonly SourceLine[]): SourceLine['eol'] {
  const counts = new Map<string, number>();
  for (const l of lines) if (l.eol) counts.set(l.eol, (counts.get(l.eol) ?? 0) + 1);
  let best: SourceLine['eol'] = '\n';
  let bestCount = 0;
  for (const [eol, n] of counts) if (n > bestCount) [best, bestCount] = [eol as SourceLine['eol'], n];
  return best;
}

/**
 * `s` without trailing spaces and tabs. A loop, not `/[ \t]+$/`: JavaScript's regex engine
 * tries that at every blank of a long run, which is quadratic on a line of blanks.
 */
export function trimBlanksEnd(s: string): string {
  let end = s.length;
  while (end > 0 && (s.charCodeAt(end - 1) === 32 || s.charCodeAt(end - 1) === 9)) end--;
  return end === s.length ? s : s.slice(0, end);
}
