import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { formatProblem } from '../core/data-file';
import { isCancellation } from '../core/errors';
import { loadEffortTable, resolveEffortLevel } from '../core/effort-table';
import type { EffortLevel } from '../core/model';
import { SETTINGS } from '../core/settings';
import { formatDiagnostic, type PrdDiagnostic } from '../prd';
import { defaultCliStoreFile, Store } from '../store/store';
import { effortOf } from '../verify/effort';
import { verifyCriteria } from '../verify/engine';
import { recordVerification } from '../verify/store-verification';
import type { CommandApprover, VerifyHost } from '../verify/types';
import { readVerifyCommands, VERIFY_COMMANDS_FILE, type VerifyCommands } from '../verify/verify-commands-file';
import { readPrdFile } from './prd-check';
import { parseReports, REPORT_USAGE, writeReports } from './report';
import { loadVerifySource } from './verify-source';
import { formatJson, formatTable } from './verify-output';
import { printStoreWarnings, storeWarningsJson } from './store-warnings';

export interface VerifyIo {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Asks a yes/no question on the terminal; absent when there is none (CI). */
  ask?: (question: string) => Promise<string>;
  /** Aborts on Ctrl+C. */
  signal?: AbortSignal;
}

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
${REPORT_USAGE}

The PRD's commands (CLI, Test, Task, a Static command) run in the workspace with secrets
removed from their environment. On a terminal they are listed and need a "y" once. Without
a terminal (CI) only the commands that ${VERIFY_COMMANDS_FILE} allows run: exact
commands or patterns in its \`commands:\` list, where * never spans a shell operator
(\`npm run *\` allows \`npm run lint\`, never \`npm run lint && curl …\`); the others are
not run, their criteria are UNKNOWN, and the output names each skipped command and why.
\`--yes\` runs them all.
`;

export async function verifyCommand(argv: string[], io: VerifyIo): Promise<number> {
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
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
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    io.err(`ideal-state verify: ${(error as Error).message}\n\n${VERIFY_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(VERIFY_USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    io.err(`ideal-state verify: give exactly one PRD file\n\n${VERIFY_USAGE}`);
    return 2;
  }
  const file = positionals[0]!;
  const timeoutSeconds = values.timeout === undefined ? 300 : Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    io.err(`ideal-state verify: --timeout takes a number of seconds above 0, not "${values.timeout}"`);
    return 2;
  }
  const reports = parseReports(values.report ?? []);
  if (!reports.ok || (values.json && reports.requests.some((r) => !r.file))) {
    io.err(`ideal-state verify: ${reports.ok ? '--json and a --report without a file both want standard output; give the report a file (--report sarif=FILE)' : reports.message}`);
    return 2;
  }
  const workspace = path.resolve(values.workspace ?? process.cwd());
  if (!(await isDirectory(workspace))) {
    io.err(`ideal-state verify: the workspace ${workspace} is not a folder`);
    return 2;
  }

  const read = await readPrdFile(file);
  if (!read.ok) {
    if (read.diagnostic) return badInput(io, values.json, file, [read.diagnostic], `${file} is not read`);
    io.err(`ideal-state verify: cannot read ${file}: ${read.reason}`);
    return 2;
  }
  const text = read.text;
  const now = new Date();
  // A PRD (the seed's format, PAI v2) or a PAI ISA: the source knows its own ids and how to write outcomes back.
  const source = loadVerifySource(text, file, now);
  if (!source.ok) return badInput(io, values.json, file, source.problems, source.summary);
  const { document, criteria } = source;

  const overrideFile = path.join(workspace, SETTINGS.effortLevelsFile.default);
  const overrideText = await fs.readFile(overrideFile, 'utf8').catch(() => undefined);
  const effortTable = loadEffortTable(overrideText === undefined ? undefined : { file: overrideFile, text: overrideText });
  for (const p of effortTable.problems) io.err(`warning: ${formatProblem(p)}`);
  let effort: EffortLevel = effortOf(document, effortTable.table);
  if (values.effort !== undefined) {
    const found = resolveEffortLevel(values.effort, effortTable.table);
    if (!found.ok) {
      io.err(`ideal-state verify: ${found.message}`);
      return 2;
    }
    effort = found.level;
  }
  const parallelism = effortTable.table.levels[effort].parallelism;

  // Without a terminal, the committed allow-list decides which commands run (unless --yes or --no-commands).
  let allowed: VerifyCommands | undefined;
  if (!values.yes && !values['no-commands'] && !io.ask) {
    const listFile = path.join(workspace, VERIFY_COMMANDS_FILE);
    const listText = await fs.readFile(listFile, 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : error));
    if (listText instanceof Error) {
      io.err(`ideal-state verify: cannot read ${listFile}: ${listText.code ?? listText.message}`);
      return 2;
    }
    if (listText !== undefined) {
      allowed = readVerifyCommands(VERIFY_COMMANDS_FILE, listText);
      if (!allowed.ok) {
        for (const p of allowed.problems) io.err(formatProblem(p));
        io.err(`ideal-state verify: ${VERIFY_COMMANDS_FILE} cannot be read; fix it, or pass --yes or --no-commands`);
        return 2;
      }
    }
  }

  const prdAbsolute = path.resolve(file);
  const prdRelative = path.relative(workspace, prdAbsolute);
  const insideWorkspace = !prdRelative.startsWith('..') && !path.isAbsolute(prdRelative);
  const host: VerifyHost = {
    workspaceRoot: workspace,
    ...(values.rg ? { ripgrepPath: path.resolve(values.rg) } : {}),
    approver: approver(values.yes, values['no-commands'], io, allowed),
  };
  let set;
  try {
    set = await verifyCriteria(criteria, host, {
      parallelism,
      timeoutMs: Math.round(timeoutSeconds * 1000),
      ...(io.signal ? { signal: io.signal } : {}),
      ...(insideWorkspace ? { excludeFiles: [prdRelative.split(path.sep).join('/')] } : {}),
      criteriaVersion: document.meta.criteriaVersion ?? 1,
    });
  } catch (error) {
    if (isCancellation(error)) {
      io.err(`ideal-state verify: ${error instanceof Error ? error.message : 'verification was cancelled'}`);
      return 130;
    }
    throw error;
  }
  // What is shown, written back and reported names criteria as the file does (an ISA's C1, ISC-2.1); the store keeps the engine's ids.
  const shown = source.shown(set);

  let written = false;
  if (values.write) {
    const current = await fs.readFile(file, 'utf8').catch(() => undefined);
    if (current !== text) io.err(`ideal-state verify: ${file} changed while it was being verified; outcomes not written back`);
    else {
      await writeAtomically(file, source.write(shown.results, { date: now.toISOString().slice(0, 10), by: 'ideal-state verify' }));
      written = true;
    }
  }
  let stored: { runId: string; reportId: string; store: string } | undefined;
  let storeWarnings: ReturnType<typeof storeWarningsJson> = [];
  if (!values['no-store']) {
    const storeFile = values.store ? path.resolve(values.store) : defaultCliStoreFile(workspace);
    try {
      const store = await Store.open({ file: storeFile });
      try {
        // A busy store changes no exit code: the criteria's verdict is what verify reports.
        printStoreWarnings(store, io.err);
        storeWarnings = storeWarningsJson(store);
        const r = recordVerification(store, { prdPath: insideWorkspace ? prdRelative.split(path.sep).join('/') : prdAbsolute, document, text, criteria, set, effortTable: effortTable.table, workspaceFolder: workspace, now });
        if (r.stored) stored = { runId: r.runId, reportId: r.reportId, store: store.location };
        else io.err(`warning: verification report not stored: ${r.reason}`);
      } finally {
        store.close();
      }
    } catch (error) {
      io.err(`warning: verification report not stored in ${storeFile}: ${(error as Error).message}`);
    }
  }

  // The table says it on stdout; next to JSON or a report (often sent to a file in CI) the log says it.
  const skipped = set.commands?.refused ?? [];
  const reportFile = insideWorkspace ? prdRelative.split(path.sep).join('/') : prdAbsolute.split(path.sep).join('/');
  const reportOut = await writeReports(reports.requests, { file: reportFile, set: shown, info: (id) => source.info(id), at: now, ...(await toolVersion()) });
  if ((values.json || reportOut !== undefined) && skipped.length > 0) io.err(`ideal-state verify: skipped ${skipped.length} command${skipped.length === 1 ? '' : 's'} (their criteria are UNKNOWN):\n${skipped.map((c) => `  ${c.command}: ${c.reason}`).join('\n')}`);
  io.out(reportOut ?? (values.json ? formatJson(shown, { effort, parallelism, written, ...(stored ? { stored } : {}), warnings: storeWarnings }) : formatTable(shown, { effort, parallelism, written, ...(stored ? { stored } : {}) })));
  return shown.passed ? 0 : 1;
}

/**
 * --no-commands refuses; --yes allows; on a terminal the user is asked once; without one
 * (CI) only what the committed allow-list names runs, so a command a model wrote into a PRD
 * never runs unasked (issue 15).
 */
function approver(yes: boolean, noCommands: boolean, io: VerifyIo, allowed: VerifyCommands | undefined): CommandApprover | undefined {
  if (noCommands) return { approve: async () => ({ approved: false, reason: 'commands were turned off with --no-commands' }) };
  if (yes) return undefined;
  if (!io.ask) {
    const list = allowed?.ok ? allowed.list : undefined;
    return {
      approve: async (commands) => ({
        approved: true,
        only: list ? commands.filter((c) => list.match(c) !== undefined) : [],
        reason: list ? `not in ${VERIFY_COMMANDS_FILE}; pass --yes to run every PRD command` : `no terminal to ask, and no ${VERIFY_COMMANDS_FILE} allows it; list it there, or pass --yes to run every PRD command`,
      }),
    };
  }
  const ask = io.ask;
  return {
    async approve(commands) {
      io.err(`This PRD runs ${commands.length} command${commands.length === 1 ? '' : 's'} in the workspace:\n${commands.map((c) => `  ${c}`).join('\n')}`);
      const answer = (await ask('Run them? [y/N] ')).trim().toLowerCase();
      return answer === 'y' || answer === 'yes' ? { approved: true } : { approved: false, reason: 'the commands were not approved on the terminal' };
    },
  };
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Bad input ends verify with 2, never with 1 ("a criterion did not pass"): each problem on
 * stderr as file:line:column, and with --json one object on stdout that CI can read.
 */
function badInput(io: VerifyIo, json: boolean, file: string, problems: readonly PrdDiagnostic[], summary: string): number {
  for (const d of problems) io.err(formatDiagnostic(file, d));
  io.err(`ideal-state verify: ${summary}`);
  if (json) {
    const diagnostics = problems.map(({ line, column, severity, message, rule }) => ({ file, line, column, severity, message, rule }));
    io.out(JSON.stringify({ passed: false, error: { code: 'bad-input', message: summary }, diagnostics }));
  }
  return 2;
}

/** The version in the package beside the built command line (dist/../package.json), for SARIF's tool. */
async function toolVersion(): Promise<{ version?: string }> {
  try {
    const { version } = JSON.parse(await fs.readFile(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? { version } : {};
  } catch {
    return {};
  }
}

/** Never a half-written PRD: write beside it, then rename over it. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = `${file}.ideal-state-${process.pid}.tmp`;
  await fs.writeFile(tmp, text, 'utf8');
  await fs.rename(tmp, file);
}
