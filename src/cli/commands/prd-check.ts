import { criterionData, formatDiagnostic, checkIsa, checkPrd, recogniseFormat } from '../../prd';
import { isInputLimit } from '../../prd/limits';
import { readPrdFile } from '../../app/read-prd-file';

type Output = { out: (s: string) => void; err: (s: string) => void };

/**
 * `ideal-state prd check <PRD.md> [--json]`: the PRD's diagnostics and ISC lint findings.
 * Exits 0 without errors (warnings allowed), 1 with errors, 2 when the file cannot be read:
 * missing, or past an input limit (size, line length, frontmatter size, YAML depth or
 * aliases), which is also a located diagnostic in the output.
 */
export async function prdCheck(file: string | undefined, json: boolean, io: Output): Promise<number> {
  if (!file) {
    io.err('ideal-state: prd check needs a file: ideal-state prd check <PRD.md> [--json]');
    return 2;
  }
  const read = await readPrdFile(file);
  if (!read.ok && read.diagnostic === undefined) {
    io.err(`ideal-state: cannot read ${file}: ${read.reason}`);
    return 2;
  }
  if (read.ok && recogniseFormat(read.text, file) === 'isa') return isaCheck(file, read.text, json, io);
  const { document, diagnostics } = read.ok ? checkPrd(read.text) : { document: undefined, diagnostics: [read.diagnostic!] };
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  if (json) {
    io.out(
      JSON.stringify({
        diagnostics: diagnostics.map(({ line, column, severity, message, rule }) => ({ line, column, severity, message, rule })),
        criteria: (document?.criteria ?? []).map((c) => {
          const d = criterionData(c);
          return { id: d.id, text: d.text, checked: d.checked, anti: d.kind === 'anti-criterion', priority: d.priority, source: d.source, ...(d.domain ? { domain: d.domain } : {}), verify: d.verify ?? null, line: c.line + 1 };
        }),
      }),
    );
  } else {
    for (const d of diagnostics) io.out(formatDiagnostic(file, d));
    const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
    io.out(`${file}: ${document?.criteria.length ?? 0} criteria, ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`);
  }
  if (diagnostics.some(isInputLimit)) return 2;
  return errors > 0 ? 1 : 0;
}

/** The same for a PAI ISA: its diagnostics, and its claims with the probe that proves each. */
function isaCheck(file: string, text: string, json: boolean, io: Output): number {
  const { document, diagnostics } = checkIsa(text);
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const claims = document.claims.filter((c) => !c.tombstone);
  if (json) {
    const probe = (id: string) => document.probes.find((p) => p.isc === id);
    io.out(
      JSON.stringify({
        format: 'isa',
        diagnostics: diagnostics.map(({ line, column, severity, message, rule }) => ({ line, column, severity, message, rule })),
        criteria: claims.map((c) => ({ id: c.id, text: c.text, checked: c.checked, anti: c.anti, priority: 'CRITICAL', probe: probe(c.id) ?? null, line: c.line + 1 })),
      }),
    );
  } else {
    for (const d of diagnostics) io.out(formatDiagnostic(file, d));
    const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
    io.out(`${file}: ISA, ${claims.length} claims, ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`);
  }
  if (diagnostics.some(isInputLimit)) return 2;
  return errors > 0 ? 1 : 0;
}

// Moved to src/app/read-prd-file.ts (the MCP server reads PRDs too; src/mcp may not import src/cli).
export { readPrdFile } from '../../app/read-prd-file';
