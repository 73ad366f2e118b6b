import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { redactedInput } from './report-escape';
import { junitReport } from './report-junit';
import { markdownReport } from './report-markdown';
import { sarifReport } from './report-sarif';
import { REPORT_FORMATS, type ReportFormat, type ReportInput } from './report-types';

export interface ReportRequest {
  format: ReportFormat;
  /** Where it goes; absent: standard output, in place of the table. */
  file?: string;
}

export const REPORT_USAGE = `  --report FORMAT[=FILE]
                     a CI report: junit (criteria as test cases), sarif (code-scanning
                     results at each criterion's line) or markdown (a job summary table).
                     Repeatable; each FILE is replaced. At most one goes to standard
                     output (no =FILE), in place of the table; not with --json`;

/** `--report junit`, `--report sarif=out/ideal-state.sarif`: each format at most once, at most one without a file. */
export function parseReports(values: readonly string[]): { ok: true; requests: ReportRequest[] } | { ok: false; message: string } {
  const requests: ReportRequest[] = [];
  for (const v of values) {
    const eq = v.indexOf('=');
    const name = (eq >= 0 ? v.slice(0, eq) : v).trim().toLowerCase();
    const file = eq >= 0 ? v.slice(eq + 1).trim() : undefined;
    if (!(REPORT_FORMATS as readonly string[]).includes(name)) return { ok: false, message: `--report takes ${REPORT_FORMATS.join(', ')} (optionally =FILE), not "${v}"` };
    if (file === '') return { ok: false, message: `--report ${name}= needs a file after the "="` };
    if (requests.some((r) => r.format === name)) return { ok: false, message: `--report ${name} is given twice` };
    requests.push({ format: name as ReportFormat, ...(file ? { file } : {}) });
  }
  if (requests.filter((r) => !r.file).length > 1) return { ok: false, message: 'only one --report can go to standard output; give the others a file (--report sarif=ideal-state.sarif)' };
  return { ok: true, requests };
}

/** A report of the input, its texts without the credentials this process holds (report-escape.ts). */
export function renderReport(format: ReportFormat, raw: ReportInput): string {
  const input = redactedInput(raw);
  switch (format) {
    case 'junit':
      return junitReport(input);
    case 'sarif':
      return sarifReport(input);
    case 'markdown':
      return markdownReport(input);
  }
}

/** Writes each report to its file (folders made as needed); returns the one for standard output, if any. */
export async function writeReports(requests: readonly ReportRequest[], input: ReportInput): Promise<string | undefined> {
  let stdout: string | undefined;
  for (const r of requests) {
    const text = renderReport(r.format, input);
    if (!r.file) {
      stdout = text.replace(/\n$/, '');
      continue;
    }
    await fs.mkdir(path.dirname(path.resolve(r.file)), { recursive: true });
    await fs.writeFile(r.file, text, 'utf8');
  }
  return stdout;
}
