/**
 * Where a file's frontmatter opens. Its own module with no imports, so the editor can tell a
 * PRD or ISA from other Markdown without loading the parser.
 */
const FENCE = /^---[ \t]*$/;

/** How far down a file its frontmatter may open, after leading comments and blank lines. */
const MAX_LEAD_LINES = 200;

/**
 * The line where a file's frontmatter opens: the first line, or the first after nothing but
 * blank lines and HTML comments (LifeOS ISAs open with `<!-- Fictitious example … -->`); -1
 * when the file has none. One pass, each line looked at once.
 */
export function frontmatterStart(lines: readonly { readonly text: string }[]): number {
  let inComment = false;
  for (let i = 0; i < lines.length && i < MAX_LEAD_LINES; i++) {
    let rest = lines[i]!.text;
    if (!inComment && FENCE.test(rest)) return i;
    for (;;) {
      if (inComment) {
        const end = rest.indexOf('-->');
        if (end < 0) break;
        inComment = false;
        rest = rest.slice(end + 3);
        continue;
      }
      rest = rest.trimStart();
      if (rest === '') break;
      if (!rest.startsWith('<!--')) return -1;
      inComment = true;
      rest = rest.slice(4);
    }
  }
  return -1;
}
