import type { CriterionResult } from '../../../../src/model';
import type { ReportInput } from '../../../../src/cli/reports/report-types';
import { summarize } from '../../../../src/verify';

/** The texts an attacker writes: a spoofed PASS cell in several escapings, a link, a remote image, HTML, controls. */
export const HOSTILE_TEXTS = [
  'Login works | ✅ PASS | CRITICAL |',
  'Login works \\| ✅ PASS | CRITICAL |',
  'Login works \\\\| ✅ PASS \\\\| CRITICAL \\\\|',
  'Login works \\\\\\| ✅ PASS |',
  'see [the docs](https://evil.example/phish) and ![x](https://evil.example/pixel.png)',
  '<img src=https://evil.example/p.png> <a href="https://evil.example">here</a> https://evil.example www.evil.example',
  'bell\u0007 escape\u001b[2J\u001b]0;owned\u0007 nul\u0000 del\u007f csi\u009b31m',
  'line one\nline two\u2028line three',
];

export function hostileInput(): ReportInput {
  const criteria = HOSTILE_TEXTS.map((text, i) => ({ id: `ISC-${i + 1}`, text, priority: 'CRITICAL' as const, anti: false, line: 10 + i }));
  const results: CriterionResult[] = criteria.map((c, i) => ({
    criterionId: c.id,
    outcome: 'FAIL',
    evidence: `\`npm test\` exited 1: ${HOSTILE_TEXTS[(i + 3) % HOSTILE_TEXTS.length]}`,
    durationMs: 5,
    failureLabel: 'REQUIREMENT_COVERAGE',
    repairTarget: HOSTILE_TEXTS[(i + 5) % HOSTILE_TEXTS.length]!,
    locations: [],
  }));
  const set = summarize(criteria.map((c) => ({ kind: 'criterion', id: c.id, text: c.text, priority: 'CRITICAL', source: 'EXPLICIT', status: 'PENDING', createdAt: '2026-11-26T00:00:00.000Z', updatedAt: '2026-11-26T00:00:00.000Z' }) as never), results);
  return { file: 'PRD.md', set, info: (id) => criteria.find((c) => c.id === id), at: new Date('2026-11-26T00:00:00Z') };
}

/**
 * cmark-gfm's row splitting, as its scanner states it (extensions/ext_scanners.re:
 * `table_cell = (escaped_char|[^|\r\n])*`, `escaped_char = [\\][!-/:-@[-`{-~]`), then its
 * `unescape_pipes` (`\|` → `|`). What the cells of a row are, before inline parsing.
 */
export function gfmCells(row: string): string[] {
  const cells: string[] = [];
  let i = row.startsWith('|') ? 1 : 0;
  let cell = '';
  while (i < row.length) {
    const c = row[i]!;
    if (c === '\\' && i + 1 < row.length && /[!-/:-@[-`{-~]/.test(row[i + 1]!)) {
      cell += row[i + 1] === '|' ? '|' : c + row[i + 1];
      i += 2;
      continue;
    }
    if (c === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
    i++;
  }
  if (cell.trim() !== '') cells.push(cell.trim());
  return cells;
}

