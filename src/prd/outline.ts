import { trimBlanksEnd, type SourceLine } from './lines';

export interface Heading {
  /** 0-based line index. */
  line: number;
  level: number;
  text: string;
}

export interface Outline {
  /** Per line: false inside fenced code blocks and multi-line HTML comments, where nothing is structure. */
  structural: boolean[];
  headings: Heading[];
  /** Where a fence or comment opens and is never closed (the rest of the file is inside it). */
  unclosed: { line: number; what: 'fence' | 'comment' }[];
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const ATX_OPEN = /^ {0,3}(#{1,6})(?:[ \t]|$)/;

/**
 * An ATX heading's level and text: `## Title ##` → 2, `Title`. What the regex
 * `/^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/` read, without its lazy middle,
 * which is quadratic on a long run of blanks inside the heading.
 */
function atxHeading(text: string): { level: number; text: string } | undefined {
  const open = ATX_OPEN.exec(text);
  if (!open) return undefined;
  let rest = trimBlanksEnd(text.slice(open[0].length));
  let hashes = rest.length;
  while (hashes > 0 && rest[hashes - 1] === '#') hashes--;
  // A closing run of `#` counts only after a blank (`## C#` is about C#).
  if (hashes > 0 && hashes < rest.length && (rest[hashes - 1] === ' ' || rest[hashes - 1] === '\t')) rest = rest.slice(0, hashes);
  return { level: open[1]!.length, text: rest.trim() };
}

/**
 * The markdown structure that matters to a PRD: headings, and which lines are code or
 * comment. `## LOG` inside a code block is text, not a section.
 */
export function outline(lines: readonly SourceLine[], from: number): Outline {
  const structural = lines.map(() => false);
  const headings: Heading[] = [];
  const unclosed: Outline['unclosed'] = [];
  let fence: { char: string; length: number; line: number } | undefined;
  let comment: number | undefined;
  for (let i = from; i < lines.length; i++) {
    const text = lines[i]!.text;
    if (fence) {
      const close = new RegExp(`^ {0,3}${fence.char === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`);
      if (close.test(text)) fence = undefined;
      continue;
    }
    if (comment !== undefined) {
      if (text.includes('-->')) comment = undefined;
      continue;
    }
    const f = FENCE_OPEN.exec(text);
    if (f && !(f[1]![0] === '`' && f[2]!.includes('`'))) {
      fence = { char: f[1]![0]!, length: f[1]!.length, line: i };
      continue;
    }
    structural[i] = true;
    const open = text.lastIndexOf('<!--');
    if (open >= 0 && !text.includes('-->', open + 4)) comment = i;
    const h = atxHeading(text);
    if (h && open !== 0) headings.push({ line: i, ...h });
  }
  if (fence) unclosed.push({ line: fence.line, what: 'fence' });
  if (comment !== undefined) unclosed.push({ line: comment, what: 'comment' });
  return { structural, headings, unclosed };
}
