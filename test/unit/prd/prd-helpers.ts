import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/repo-root';

export const FIXTURES = path.resolve(REPO_ROOT, 'test/unit/fixtures/prd');

export function fixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, name), 'utf8');
}

export function fixtureNames(): string[] {
  return fs.readdirSync(FIXTURES).filter((n) => n.endsWith('.md')).sort();
}

/** The same document with other line endings or a byte order mark. */
export const VARIANTS: Record<string, (text: string) => string> = {
  LF: (t) => t,
  CRLF: (t) => t.replace(/\n/g, '\r\n'),
  CR: (t) => t.replace(/\n/g, '\r'),
  'BOM+LF': (t) => `\uFEFF${t}`,
  'BOM+CRLF': (t) => `\uFEFF${t.replace(/\n/g, '\r\n')}`,
};

/** Lines of a text without their endings. */
export function textLines(text: string): string[] {
  return text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
}

/** What changed between two texts, as the lines removed and added between their common prefix and suffix. */
export function changedRegion(before: string, after: string): { at: number; removed: string[]; added: string[] } {
  const a = textLines(before);
  const b = textLines(after);
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  return { at: p, removed: a.slice(p, a.length - s), added: b.slice(p, b.length - s) };
}
