/**
 * Gitignore-style patterns, the dialect of `.gitignore` files and of ripgrep's `--glob`, so
 * the ripgrep search and the pure-JS one select the same files:
 * - a pattern with a `/` at the start or in the middle is anchored to its base folder;
 *   one without matches a name at any depth (`*.log`, `node_modules`);
 * - a trailing `/` matches folders only; `!` negates;
 * - `*` and `?` never cross `/`; `**` spans folders (`**\/x`, `x/**`, `a/**\/b`); `[...]` classes;
 *   `{a,b}` alternatives (ripgrep's and VS Code's globs have them; git's do not).
 */
export interface GlobRule {
  readonly source: string;
  readonly negated: boolean;
  readonly dirOnly: boolean;
  readonly regex: RegExp;
}

export function compileGlob(pattern: string): GlobRule | undefined {
  let p = pattern;
  let negated = false;
  if (p.startsWith('!')) {
    negated = true;
    p = p.slice(1);
  } else if (p.startsWith('\\!') || p.startsWith('\\#')) p = p.slice(1);
  let dirOnly = false;
  if (p.endsWith('/') && !p.endsWith('\\/')) {
    dirOnly = true;
    p = p.replace(/\/+$/, '');
  }
  if (p === '') return undefined;
  const anchored = p.startsWith('/') || p.slice(0, -1).includes('/');
  if (p.startsWith('/')) p = p.slice(1);
  const body = translate(p);
  const regex = new RegExp(`^${anchored ? '' : '(?:.*/)?'}${body}$`, 's');
  return { source: pattern, negated, dirOnly, regex };
}

function translate(p: string): string {
  let out = '';
  let i = 0;
  while (i < p.length) {
    const ch = p[i]!;
    if (ch === '*' && p[i + 1] === '*' && (i === 0 || p[i - 1] === '/') && (i + 2 === p.length || p[i + 2] === '/')) {
      if (i + 2 === p.length) {
        // `x/**`: everything inside; a lone `**`: everything.
        out += i === 0 ? '.*' : '.*';
        i += 2;
      } else {
        out += '(?:.*/)?';
        i += 3;
      }
      continue;
    }
    if (ch === '*') {
      out += '[^/]*';
      i++;
      continue;
    }
    if (ch === '?') {
      out += '[^/]';
      i++;
      continue;
    }
    if (ch === '[') {
      const close = p.indexOf(']', i + 2);
      if (close > 0) {
        let cls = p.slice(i + 1, close);
        if (cls.startsWith('!')) cls = `^${cls.slice(1)}`;
        out += `[${cls.replace(/\\/g, '\\\\').replace(/^\^?\]/, (m) => m.replace(']', '\\]'))}]`;
        i = close + 1;
        continue;
      }
    }
    if (ch === '{') {
      // `{a,b}` alternatives, as ripgrep's globs and VS Code's files.exclude read them.
      const close = p.indexOf('}', i + 1);
      if (close > 0 && !p.slice(i + 1, close).includes('{')) {
        out += `(?:${p.slice(i + 1, close).split(',').map(translate).join('|')})`;
        i = close + 1;
        continue;
      }
    }
    if (ch === '\\' && i + 1 < p.length) {
      out += escape(p[i + 1]!);
      i += 2;
      continue;
    }
    out += escape(ch);
    i++;
  }
  return out;
}

function escape(ch: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(ch) ? `\\${ch}` : ch;
}

/** Escapes a literal path so it can be given as a glob (e.g. the PRD file to leave out). */
export function literalGlob(path: string): string {
  return `/${path.replace(/[*?[\]\\!#]/g, (c) => `\\${c}`)}`;
}

/** The last rule that matches decides; undefined when none does. */
export function lastMatch(rules: readonly GlobRule[], relative: string, isDir: boolean): GlobRule | undefined {
  for (let i = rules.length - 1; i >= 0; i--) {
    const r = rules[i]!;
    if (r.dirOnly && !isDir) continue;
    if (r.regex.test(relative)) return r;
  }
  return undefined;
}

/** The rules of one `.gitignore` file (blank lines and `#` comments skipped, trailing spaces trimmed). */
export function parseIgnoreFile(text: string): GlobRule[] {
  const rules: GlobRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    if (raw === '' || raw.startsWith('#')) continue;
    const line = raw.replace(/(?<!\\)\s+$/, '');
    const rule = compileGlob(line);
    if (rule) rules.push(rule);
  }
  return rules;
}
