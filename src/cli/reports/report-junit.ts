import type { CriterionResult } from '../../model';
import { firstLine, type ReportInput } from './report-types';

/**
 * JUnit XML, the format every CI test view reads: one test suite for the file, one test
 * case per criterion. FAIL and PARTIAL are failures, UNKNOWN is skipped (not proven, not
 * failed), each with the evidence in its body; a PASS keeps its evidence in system-out.
 * It stays inside the JUnit XSD Jenkins' xUnit plugin checks (test/fixtures/schemas/junit-10.xsd),
 * which skips a whole file over one unknown attribute: so no "skipped" count on <testsuites>,
 * and the criterion's file and line go in the body ("criterion at FILE:LINE"), not in file/line
 * attributes on <testcase>; the file is on <testsuite>, where the XSD allows it.
 */
export function junitReport(input: ReportInput): string {
  const { set, file } = input;
  const failures = set.results.filter((r) => r.outcome === 'FAIL' || r.outcome === 'PARTIAL').length;
  const skipped = set.results.filter((r) => r.outcome === 'UNKNOWN').length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = set.results.reduce((s, r) => s + r.durationMs, 0);
  const counts = `tests="${set.results.length}" failures="${failures}" errors="0"`;
  const time = `time="${seconds(total)}"`;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="ideal-state verify" ${counts} ${time}>`,
    `  <testsuite name="${attr(file)}" ${counts} skipped="${skipped}" ${time} timestamp="${input.at.toISOString().slice(0, 19)}" file="${attr(file)}">`,
    `    <properties>`,
    `      <property name="passed" value="${set.passed}"/>`,
    `      <property name="summary" value="${attr(set.summary)}"/>`,
    ...(set.redactions ? [`      <property name="redactions" value="${set.redactions}"/>`] : []),
    `    </properties>`,
  ];
  for (const r of set.results) out.push(...testCase(r, input));
  out.push('  </testsuite>', '</testsuites>', '');
  return out.join('\n');
}

function testCase(r: CriterionResult, input: ReportInput): string[] {
  const c = input.info(r.criterionId);
  const name = c ? `${r.criterionId}: ${c.text}` : r.criterionId;
  const open = `    <testcase name="${attr(name)}" classname="${attr(input.file)}" time="${(r.durationMs / 1000).toFixed(3)}">`;
  const where = c ? `criterion at ${input.file}:${c.line}` : '';
  const body = text([r.evidence, r.repairTarget ? `needs: ${r.repairTarget}` : '', ...r.locations.map((l) => `at ${l.file}:${l.line}`), where].filter(Boolean).join('\n'));
  const message = attr(`${r.outcome}${r.failureLabel ? ` [${r.failureLabel}]` : ''}: ${firstLine(r.evidence)}`);
  switch (r.outcome) {
    case 'PASS':
      return [open, `      <system-out>${body}</system-out>`, '    </testcase>'];
    case 'UNKNOWN':
      return [open, `      <skipped message="${message}">${body}</skipped>`, '    </testcase>'];
    default:
      return [open, `      <failure message="${message}" type="${attr(r.failureLabel ?? r.outcome)}">${body}</failure>`, '    </testcase>'];
  }
}

/** Characters XML 1.0 cannot hold at all (most C0 controls, lone surrogates, U+FFFE/FFFF) become U+FFFD. */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function text(s: string): string {
  return s.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An attribute value: line breaks and tabs as references, or XML would read them as blanks. */
export function attr(s: string): string {
  return text(s).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\r/g, '&#13;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}
