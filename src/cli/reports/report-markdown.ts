import { markdownCell, redactionNote, visibleControls } from './report-escape';
import { firstLine, type ReportInput } from './report-types';

const ICON = { PASS: '✅', FAIL: '❌', PARTIAL: '🟠', UNKNOWN: '❔' } as const;

/** A job summary (GitHub's $GITHUB_STEP_SUMMARY, or any Markdown view): the verdict, the counts, one table row per criterion. */
export function markdownReport(input: ReportInput): string {
  const { set } = input;
  const out = [
    `### ${set.passed ? '✅ Ideal State: every CRITICAL criterion passes' : '❌ Ideal State: not done'} — ${code(input.file)}`,
    '',
    cell(set.summary),
    '',
    ...(redactionNote(set.redactions) ? [`${redactionNote(set.redactions)}.`, ''] : []),
    '| Criterion | Outcome | Priority | Evidence |',
    '| --- | --- | --- | --- |',
  ];
  for (const r of set.results) {
    const c = input.info(r.criterionId);
    const name = c ? `**${cell(r.criterionId)}** ${cell(c.text)}` : `**${cell(r.criterionId)}**`;
    const evidence = cell(firstLine(r.evidence)) + (r.outcome !== 'PASS' && r.repairTarget ? `<br>needs: ${cell(r.repairTarget)}` : '');
    out.push(`| ${name} | ${ICON[r.outcome]} ${r.outcome} | ${c?.priority ?? ''} | ${evidence} |`);
  }
  const skipped = set.commands?.refused ?? [];
  if (skipped.length > 0) out.push('', `Skipped ${skipped.length} command${skipped.length === 1 ? '' : 's'} (their criteria are UNKNOWN):`, ...skipped.map((s) => `- ${code(s.command)}: ${cell(s.reason)}`));
  return `${out.join('\n')}\n`;
}

/** Text in a table cell or a line of the summary (report-escape.ts). */
const cell = markdownCell;

/** A command as a code span (not in a table): one line, no backtick to end it early, controls visible. */
function code(s: string): string {
  return `\`${visibleControls(s.replace(/\r\n|\n|\r|\u2028|\u2029/g, ' ')).replace(/`/g, "'")}\``;
}
