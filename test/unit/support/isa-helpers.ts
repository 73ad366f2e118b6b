import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './repo-root';

export const ISA_FIXTURES = path.resolve(REPO_ROOT, 'test/unit/fixtures/isa');

export function isaFixture(name: string): string {
  return fs.readFileSync(path.join(ISA_FIXTURES, name), 'utf8');
}

export function isaFixtureNames(): string[] {
  return fs.readdirSync(ISA_FIXTURES).filter((n) => n.endsWith('.md')).sort();
}

/** The 1-based lines where two texts differ (same line count assumed unless lines were added). */
export function differingLines(before: string, after: string): number[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const out: number[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) out.push(i + 1);
  return out;
}
