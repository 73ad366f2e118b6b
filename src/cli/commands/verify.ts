import * as path from 'node:path';
import { criteriaReview, withReview } from '../../app/gate/criteria-from';
import { freezeForVerify } from '../../app/gate/freeze-verify';
import { verifyPrdFile } from '../../app/verify-prd-file';
import type { CriterionInfo } from '../../app/verify-source';
import { formatDiagnostic, type PrdDiagnostic } from '../../prd/diagnostics';
import { VERIFY_COMMANDS_FILE } from '../../verify/verify-commands-file';
import { formatJson, formatTable } from '../reports/verify-output';
import { parseReports, REPORT_USAGE, writeReports } from '../reports/report';
import { defineCommand } from '../shared/command';
import type { CliIo } from '../shared/io';
import { productVersion } from '../shared/version';

export const VERIFY_USAGE = `Usage: ideal-state verify <PRD.md | ISA.md> [options]

Verifies every criterion of a PRD (or every claim of a PAI ISA) in the workspace and
exits 0 when every CRITICAL criterion passes, 1 when one does not, 2 on bad input.

Options:
  --workspace DIR    the workspace folder (default: the current directory)
  --json             one JSON object: { passed, results: [{ id, outcome, evidence, durationMs, … }], counts }
  --effort LEVEL     parallelism from this effort level (default: the PRD's effort_level, else STANDARD)
  --write            write outcomes back: a PRD's checkboxes and a LOG entry, an ISA's checkboxes,
                     progress and Verification lines; no other line changes
  --store FILE       the store to record the verification report in (default: the workspace's store)
  --no-store         record nothing
  --timeout SECONDS  per criterion, unless its method sets one (default 300)
  --yes              run every command of the PRD without asking (on a terminal or in CI)
  --no-commands      run no command, task or test (those criteria are UNKNOWN)
  --rg PATH          the ripgrep binary for Grep (default: rg on PATH, else a built-in search)
  --criteria-from REF  hold the PRD to its criteria and protected inputs as they are at the git
                     revision REF (e.g. origin/main): each one the change removed or altered is
                     "changed, needs review" in every report format and fails the job
  --allow-criteria-changes  a reviewer accepts those changes: listed, not failing
  --in-place         run the checks in the workspace itself, not in a snapshot of it (for a later
                     step that reads what a check wrote outside the ignored folders)
${REPORT_USAGE}

The PRD's commands (CLI, Test, Task, a Static command) run in the workspace with secrets
removed from their environment. On a terminal they are listed and need a "y" once. Without
a terminal (CI) only the commands that ${VERIFY_COMMANDS_FILE} allows run: exact
commands or patterns in its \`commands:\` list, where * never spans a shell operator
(\`npm run *\` allows \`npm run lint\`, never \`npm run lint && curl …\`); the others are
not run, their criteria are UNKNOWN, and the output names each skipped command and why.
\`--yes\` runs them all.
The checks run in a snapshot of the workspace (ignored folders such as node_modules linked to
the live ones), as the stop gate runs them; --in-place runs them in the workspace.
`;

const VERIFY = defineCommand({
  name: 'ideal-state verify',
  usage: VERIFY_USAGE,
  options: {
    workspace: { type: 'string' },
    json: { type: 'boolean', default: false },
    effort: { type: 'string' },
    write: { type: 'boolean', default: false },
    store: { type: 'string' },
    'no-store': { type: 'boolean', default: false },
    timeout: { type: 'string' },
    yes: { type: 'boolean', default: false },
    'no-commands': { type: 'boolean', default: false },
    rg: { type: 'string' },
    report: { type: 'string', multiple: true },
    'criteria-from': { type: 'string' },
    'allow-criteria-changes': { type: 'boolean', default: false },
    'in-place': { type: 'boolean', default: false },
  },
});

/** `ideal-state verify`: every criterion of one PRD, in a snapshot of the workspace; exit 0, 1 or 2. */
export async function verifyCommand(argv: string[], io: CliIo): Promise<number> {
  const parsed = VERIFY.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) return VERIFY.usageError(io, 'give exactly one PRD file');
  const file = positionals[0]!;
  const timeoutSeconds = values.timeout === undefined ? 300 : Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) return VERIFY.refuse(io, `--timeout takes a number of seconds above 0, not "${values.timeout}"`);
  const reports = parseReports(values.report ?? []);
  if (!reports.ok || (values.json && reports.requests.some((r) => !r.file))) {
    return VERIFY.refuse(io, reports.ok ? '--json and a --report without a file both want standard output; give the report a file (--report sarif=FILE)' : reports.message);
  }
  const workspace = path.resolve(values.workspace ?? process.cwd());
  // Where a check can tell a verification from the stop gate's, it can pass one and fail the other:
  // both run the checks in a snapshot, from a detached process (src/app/gate/freeze-verify.ts).
  const frozen = values['in-place'] || values['no-commands'] ? undefined : await freezeForVerify(workspace, io.err);
  if (frozen?.note) io.err(frozen.note);
  const result = await verifyPrdFile({
    ...(frozen ? { frozen: { root: frozen.root } } : {}),
    file,
    workspace,
    ...(values.effort !== undefined ? { select: { effort: values.effort } } : {}),
    commands: { yes: values.yes, off: values['no-commands'], ...(io.ask ? { ask: io.ask } : {}) },
    checks: { timeoutSeconds, ...(io.signal ? { signal: io.signal } : {}), ...(values.rg ? { rg: values.rg } : {}), ...(frozen?.processes ? { processes: frozen.processes } : {}) },
    ...(values.write ? { write: { by: () => 'ideal-state verify' } } : {}),
    // The answer does not wait for SQLite: the report is left as a pending record beside the
    // store (one small file, flushed and renamed into place) that its next writable open folds in.
    report: { store: values['no-store'] ? false : values.store, later: true },
    warn: io.err,
  }).finally(() => frozen?.dispose());
  if (result.kind === 'bad-input') return badInput(io, values.json, file, result.problems, result.summary);
  if (result.kind === 'refused') return VERIFY.refuse(io, result.message);
  if (result.kind === 'cancelled') {
    io.err(`ideal-state verify: ${result.message}`);
    return 130;
  }
  const { prd, effort, parallelism, written, stored, storeWarnings } = result;
  let set = result.set;
  let removedInfo: (id: string) => CriterionInfo | undefined = () => undefined;
  if (values['criteria-from'] !== undefined) {
    // CI's lock: the criteria as they are on the default branch, which this change cannot rewrite.
    const reviewed = await criteriaReview(workspace, file, values['criteria-from']);
    if (!reviewed.ok) return VERIFY.refuse(io, reviewed.message);
    set = withReview(set, reviewed.review, values['criteria-from'], values['allow-criteria-changes']);
    const base = new Map(reviewed.review.base.map((c) => [c.id, c]));
    removedInfo = (id) => {
      const c = base.get(id);
      return c ? { id, text: c.text, priority: c.priority, anti: c.kind === 'anti-criterion', line: 1 } : undefined;
    };
  }

  // The table says it on stdout; next to JSON or a report (often sent to a file in CI) the log says it.
  const skipped = set.commands?.refused ?? [];
  const prdRelative = path.relative(workspace, path.resolve(file));
  const reportFile = (!prdRelative.startsWith('..') && !path.isAbsolute(prdRelative) ? prdRelative : path.resolve(file)).split(path.sep).join('/');
  const reportOut = await writeReports(reports.requests, { file: reportFile, set, info: (id) => prd.info(id) ?? removedInfo(id), at: new Date(), ...(await toolVersion()) });
  if ((values.json || reportOut !== undefined) && skipped.length > 0) io.err(`ideal-state verify: skipped ${skipped.length} command${skipped.length === 1 ? '' : 's'} (their criteria are UNKNOWN):\n${skipped.map((c) => `  ${c.command}: ${c.reason}`).join('\n')}`);
  io.out(reportOut ?? (values.json ? formatJson(set, { effort, parallelism, written, ...(stored ? { stored } : {}), warnings: storeWarnings }) : formatTable(set, { effort, parallelism, written, ...(stored ? { stored } : {}) })));
  return set.passed ? 0 : 1;
}

/** The release, for SARIF's tool: none where the package beside the command line cannot be read. */
async function toolVersion(): Promise<{ version?: string }> {
  const version = await productVersion();
  return version === 'unknown' ? {} : { version };
}

/**
 * Bad input ends verify with 2, never with 1 ("a criterion did not pass"): each problem on
 * stderr as file:line:column, and with --json one object on stdout that CI can read.
 */
function badInput(io: CliIo, json: boolean, file: string, problems: readonly PrdDiagnostic[], summary: string): number {
  for (const d of problems) io.err(formatDiagnostic(file, d));
  io.err(`ideal-state verify: ${summary}`);
  if (json) {
    const diagnostics = problems.map(({ line, column, severity, message, rule }) => ({ file, line, column, severity, message, rule }));
    io.out(JSON.stringify({ passed: false, error: { code: 'bad-input', message: summary }, diagnostics }));
  }
  return 2;
}
