import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { formatProblem } from '../core/data-file';
import { loadEffortTable, resolveEffortLevel } from '../core/effort-table';
import type { AnyCriterion, EffortLevel } from '../core/model';
import { SETTINGS } from '../core/settings';
import { checkPrd, formatDiagnostic, toCoreCriterion, writeOutcomes } from '../prd';
import { defaultCliStoreFile, Store } from '../store/store';
import { effortOf } from '../verify/effort';
import { verifyCriteria } from '../verify/engine';
import { isVerifyCancellation } from '../verify/errors';
import { recordVerification } from '../verify/store-verification';
import type { CommandApprover, VerifyHost } from '../verify/types';
import { formatJson, formatTable } from './verify-output';

export interface VerifyIo {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Asks a yes/no question on the terminal; absent when there is none (CI). */
  ask?: (question: string) => Promise<string>;
  /** Aborts on Ctrl+C. */
  signal?: AbortSignal;
}

export const VERIFY_USAGE = `Usage: ideal-state verify <PRD.md> [options]

Verifies every criterion of a PRD in the workspace and exits 0 when every CRITICAL
criterion passes, 1 when one does not, 2 on bad input.

Options:
  --workspace DIR    the workspace folder (default: the current directory)
  --json             one JSON object: { passed, results: [{ id, outcome, evidence, durationMs, … }], counts }
  --effort LEVEL     parallelism from this effort level (default: the PRD's effort_level, else STANDARD)
  --write            write outcomes back into the PRD (checkboxes and a LOG entry; no other line changes)
  --store FILE       the store to record the verification report in (default: the workspace's store)
  --no-store         record nothing
  --timeout SECONDS  per criterion, unless its method sets one (default 300)
  --yes              run the PRD's commands without asking, even on a terminal
  --no-commands      run no command, task or test (those criteria are UNKNOWN)
  --rg PATH          the ripgrep binary for Grep (default: rg on PATH, else a built-in search)

The PRD's commands (CLI, Test, Task) run in the workspace with secrets removed from their
environment. On a terminal they are listed and need a "y" once; without a terminal (CI)
they run, because running them is what \`verify\` is for.
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
  const workspace = path.resolve(values.workspace ?? process.cwd());
  if (!(await isDirectory(workspace))) {
    io.err(`ideal-state verify: the workspace ${workspace} is not a folder`);
    return 2;
  }

  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    io.err(`ideal-state verify: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    return 2;
  }
  const { document, diagnostics } = checkPrd(text);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    for (const d of errors) io.err(formatDiagnostic(file, d));
    io.err(`ideal-state verify: ${file} has ${errors.length} error${errors.length === 1 ? '' : 's'}; fix ${errors.length === 1 ? 'it' : 'them'} before verifying`);
    return 2;
  }
  const now = new Date();
  const criteria: AnyCriterion[] = [];
  for (const c of document.criteria) {
    const core = toCoreCriterion(c, now.toISOString());
    if (!core.ok) {
      io.err(`${file}:${c.line + 1}:1: error: ${core.message}`);
      return 2;
    }
    criteria.push(core.criterion);
  }
  if (criteria.length === 0) {
    io.err(`ideal-state verify: ${file} has no criteria to verify`);
    return 2;
  }

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

  const prdAbsolute = path.resolve(file);
  const prdRelative = path.relative(workspace, prdAbsolute);
  const insideWorkspace = !prdRelative.startsWith('..') && !path.isAbsolute(prdRelative);
  const host: VerifyHost = {
    workspaceRoot: workspace,
    ...(values.rg ? { ripgrepPath: path.resolve(values.rg) } : {}),
    approver: approver(values.yes, values['no-commands'], io),
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
    if (isVerifyCancellation(error)) {
      io.err(`ideal-state verify: ${error.message}`);
      return 130;
    }
    throw error;
  }

  let written = false;
  if (values.write) {
    const current = await fs.readFile(file, 'utf8').catch(() => undefined);
    if (current !== text) io.err(`ideal-state verify: ${file} changed while it was being verified; outcomes not written back`);
    else {
      await writeAtomically(file, writeOutcomes(document, set.results, { date: now.toISOString().slice(0, 10), by: 'ideal-state verify' }));
      written = true;
    }
  }
  let stored: { runId: string; reportId: string; store: string } | undefined;
  if (!values['no-store']) {
    const storeFile = values.store ? path.resolve(values.store) : defaultCliStoreFile(workspace);
    try {
      const store = await Store.open({ file: storeFile });
      try {
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

  io.out(values.json ? formatJson(set, { effort, parallelism, written, ...(stored ? { stored } : {}) }) : formatTable(set, { effort, parallelism, written, ...(stored ? { stored } : {}) }));
  return set.passed ? 0 : 1;
}

/** --no-commands refuses; --yes or no terminal allows; on a terminal the user is asked once. */
function approver(yes: boolean, noCommands: boolean, io: VerifyIo): CommandApprover | undefined {
  if (noCommands) return { approve: async () => ({ approved: false, reason: 'commands were turned off with --no-commands' }) };
  if (yes || !io.ask) return undefined;
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

/** Never a half-written PRD: write beside it, then rename over it. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = `${file}.ideal-state-${process.pid}.tmp`;
  await fs.writeFile(tmp, text, 'utf8');
  await fs.rename(tmp, file);
}
