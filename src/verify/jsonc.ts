/**
 * JSON with comments and trailing commas, as VS Code writes `tasks.json`. Comments and
 * trailing commas are blanked out (strings left alone) and the rest is read with JSON.parse.
 */
export function parseJsonc(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const comment = text.slice(i, end === -1 ? text.length : end + 2);
      out += comment.replace(/[^\n]/g, ' ');
      i += comment.length;
    } else if (ch === ',' && /[}\]]/.test(text[skipBlank(text, i + 1)] ?? '')) {
      out += ' '; // a trailing comma
      i++;
    } else {
      out += ch;
      i++;
    }
  }
  try {
    return { ok: true, value: JSON.parse(out.replace(/^\uFEFF/, '')) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** The index of the next character that is not white space or inside a comment. */
function skipBlank(text: string, from: number): number {
  let i = from;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text[i] === '/' && text[i + 1] === '/') while (i < text.length && text[i] !== '\n') i++;
    else if (text[i] === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 2;
    } else return i;
  }
}
