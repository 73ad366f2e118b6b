import * as fs from 'node:fs/promises';
import { criterionData, formatDiagnostic, checkPrd } from '../prd';

type Output = { out: (s: string) => void; err: (s: string) => void };

/**
 * `ideal-state prd check <PRD.md> [--json]`: the PRD's diagnostics and ISC lint findings.
 * Exits 0 without errors (warnings allowed), 1 with errors, 2 when the file cannot be read.
 */
export async function prdCheck(file: string | undefined, json: boolean, io: Output): Promise<number> {
  if (!file) {
    io.err('ideal-state: prd check needs a file: ideal-state prd check <PRD.md> [--json]');
    return 2;
  }
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    io.err(`ideal-state: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    return 2;
  }
  const { document, diagnostics } = checkPrd(text);
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  if (json) {
    io.out(
      JSON.stringify({
        diagnostics: diagnostics.map(({ line, column, severity, message, rule }) => ({ line, column, severity, message, rule })),
        criteria: document.criteria.map((c) => {
          const d = criterionData(c);
          return { id: d.id, text: d.text, checked: d.checked, anti: d.kind === 'anti-criterion', priority: d.priority, source: d.source, ...(d.domain ? { domain: d.domain } : {}), verify: d.verify ?? null, line: c.line + 1 };
        }),
      }),
    );
  } else {
    for (const d of diagnostics) io.out(formatDiagnostic(file, d));
    const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
    io.out(`${file}: ${document.criteria.length} criteria, ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`);
  }
  return errors > 0 ? 1 : 0;
}
