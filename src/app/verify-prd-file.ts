import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { formatProblem } from '../model/data-file';
import { isCancellation } from '../model/errors';
import { AUTO, resolveEffort } from './effort';
import type { PreparedPrd } from './verify-prd';
import { composeVerification, isVerificationRefused, VerificationRefusedError, type PrdSource } from './compose-verification';
import { fileReport } from './verification-report';
import { loadEffortTable } from '../model/effort-table';
import type { AnyCriterion } from '../model/criterion';
import type { EffortLevel } from '../model/effort';
import { SETTINGS } from '../model/settings';
import type { PrdDiagnostic } from '../prd/diagnostics';
import type { PrdDocument } from '../prd/model';
import { defaultCliStoreFile } from '../store/store-paths';
import type { CommandApprover, VerifySetResult, ApprovedIgnores } from '../verify/types';
import type { ProcessRunner } from '../verify/process-runner';
import { readVerifyCommands, VERIFY_COMMANDS_FILE, type VerifyCommands } from '../verify/verify-commands-file';
import { readPrdFile } from './read-prd-file';
import { readRegularText, readRegularTextOrAbsent } from '../verify/safe-read';
import type { storeWarningsJson } from './store-warnings';
import { commandsAwaitingPerson } from './proposals';
import { deniedIn, forgetDenials, recordDenials, type Denied } from './denied-commands';
import { allowing, approvalAfter, ASK_MARKS, COMMAND_REASONS, decideCommands, type CommandFacts } from '../verify/decide-commands';

/**
 * One PRD verified from the command line's side of the world: the adapter that fills
 * composeVerification's ports from files — the PRD read and checked, its commands decided by
 * the one rule with the committed allow-list, the remembered denials and a terminal if there is
 * one, outcomes written back atomically, the report left in the store. `ideal-state verify`,
 * `ideal-state gate` and `ideal-state mcp` all go through here, so a criterion means the same
 * thing to each of them.
 */
export interface VerifyPrdRequest {
  /** The PRD file (absolute, or relative to the current directory). */
  file: string;
  /** Absolute path of the workspace folder. */
  workspace: string;
  /** Which criteria: `only` these ids, as the file names them (all when absent), at `effort` (a level name or alias; default: the PRD's, else STANDARD). */
  select?: { effort?: string; only?: readonly string[] };
  /**
   * What the person said about commands ahead and who can be asked (the facts of
   * src/verify/decide-commands.ts): `yes` runs every PRD command that needs no particular person;
   * `off` runs none (those criteria are UNKNOWN); `ask` asks on a terminal (absent without one,
   * when only the committed allow-list runs commands).
   */
  commands: { yes?: boolean; off?: boolean; ask?: (question: string) => Promise<string> };
  /**
   * How the checks run: per criterion `timeoutSeconds`; `rg`, the ripgrep to search with;
   * `processes`, what starts commands and ripgrep (a long-lived server's process host; absent:
   * this process); `approvedIgnores`, the .gitignore files a person approved (the gate's lock or
   * baseline): Greps search under them, not the files as the agent left them.
   */
  checks: { timeoutSeconds: number; signal?: AbortSignal; rg?: string; processes?: ProcessRunner; approvedIgnores?: ApprovedIgnores };
  /**
   * Write outcomes back into the PRD; `by` names who verified, for the LOG entry; `finish`
   * reworks the written text (the gate keeps one LOG entry per agent session). `later`: nothing
   * is written now; the outcome's `writeBack` writes it when the caller knows its verdict (the
   * gate, once it has compared the workspace after every check).
   */
  write?: { by: (set: VerifySetResult) => string; finish?: (text: string) => string; later?: boolean };
  /**
   * Where the report goes: `store`, the store file (default: the workspace's), or false for none;
   * `later`: left for the store's next writer (a pending record beside it, folded in when the
   * store is next opened for writing) instead of opening the store now, so a one-shot process
   * that says nothing of the store in its answer (the stop hook's gate) never loads SQLite.
   */
  report: { store: string | false | undefined; later?: boolean };
  /** Warnings and the terminal's approval prompt (stderr). */
  warn: (s: string) => void;
  /**
   * `onStart`: the criteria about to be verified (the gate names those still running when its
   * budget ends); `onResult`: each criterion's result as it comes (the MCP server's progress).
   */
  progress?: { onStart?: (criteria: readonly AnyCriterion[]) => void; onResult?: (done: number, total: number, criterionId: string) => void };
  /**
   * Verify one state of the workspace (the stop gate, src/app/gate/frozen.ts): `root` is a copy of
   * it (src/app/gate/snapshot.ts) that the checks read and run in, with its own settings and
   * allow-list; `text` is the PRD as the gate read it from there and compared with the lock (absent:
   * read from the copy, once). Written back to `file` only where it still holds that text; the
   * evidence names the workspace, never the copy.
   */
  frozen?: { root: string; text?: string };
}

export type VerifyPrdOutcome =
  | {
      kind: 'verified';
      document: PrdDocument;
      text: string;
      criteria: readonly AnyCriterion[];
      /** The engine's results under the file's own ids (an ISA's C1, ISC-2.1; a PRD's are the same). */
      set: VerifySetResult;
      /** The file as read: its format, how its criteria are named and located (for reports). */
      prd: PreparedPrd;
      effort: EffortLevel;
      parallelism: number;
      written: boolean;
      /** With `write.later`: writes the outcomes and LOG entry back (unless the file changed meanwhile); true when written. */
      writeBack?: () => Promise<boolean>;
      /**
       * The report as stored, or (`pending: true`, with `storeLater`) as left for the store's next
       * writer: its id is final; its run is named when the PRD names it, else chosen when it is folded in.
       */
      stored?: { runId?: string; reportId: string; store: string; pending?: true };
      storeWarnings: ReturnType<typeof storeWarningsJson>;
    }
  /** The PRD's own problems, each at its line: exit 2. */
  | { kind: 'bad-input'; problems: PrdDiagnostic[]; summary: string }
  /** Input that is not the PRD's fault (a missing file, a bad option, an unreadable allow-list): exit 2. */
  | { kind: 'refused'; message: string }
  | { kind: 'cancelled'; message: string };

export async function verifyPrdFile(request: VerifyPrdRequest): Promise<VerifyPrdOutcome> {
  const { file, workspace } = request;
  const { yes = false, off: noCommands = false, ask } = request.commands;
  const { timeoutSeconds, signal, rg, processes, approvedIgnores } = request.checks;
  const { effort: effortName, only } = request.select ?? {};
  const { onStart, onResult } = request.progress ?? {};
  if (!(await isDirectory(workspace))) return { kind: 'refused', message: `the workspace ${workspace} is not a folder` };
  // The workspace's other inputs are read while the effort table is read and the PRD read and parsed; each answer is taken where it was before.
  const frozen = request.frozen;
  // What the checks read: the copy where the gate froze the workspace, else the workspace itself.
  const root = frozen?.root ?? workspace;
  const overrideFile = path.join(root, SETTINGS.effortLevelsFile.default);
  const overrideRead = readRegularTextOrAbsent(overrideFile);
  const listFile = path.join(root, VERIFY_COMMANDS_FILE);
  // Without a terminal, the committed allow-list decides which commands run (unless yes or noCommands).
  const listWanted = !yes && !noCommands && !ask;
  // Only a regular file is read (a FIFO would hang the gate): anything else is an unreadable allow-list.
  const listRead = listWanted ? readRegularText(listFile, { shown: VERIFY_COMMANDS_FILE }).then((r) => (r.ok ? r.text : r.reason === 'absent' ? undefined : new Error(r.message))) : undefined;
  const awaitingRead = noCommands ? Promise.resolve(new Set<string>()) : commandsAwaitingPerson(workspace);
  // Their failures are reported where they are awaited, once the PRD is read.
  awaitingRead.catch(() => undefined);
  listRead?.catch(() => undefined);
  const overrideText = await overrideRead;
  const effortTable = loadEffortTable(overrideText === undefined ? undefined : { file: overrideFile, text: overrideText });
  for (const p of effortTable.problems) request.warn(`warning: ${formatProblem(p)}`);
  let chosen: EffortLevel | undefined;
  if (effortName !== undefined) {
    const found = resolveEffort(effortName, effortTable.table);
    if (!found.ok) return { kind: 'refused', message: found.message };
    if (found.level === AUTO) return { kind: 'refused', message: 'AUTO is for runs; name an effort level to verify at' };
    chosen = found.level;
  }
  const now = new Date();
  const prdAbsolute = path.resolve(file);
  const prdRelative = path.relative(workspace, prdAbsolute);
  const insideWorkspace = !prdRelative.startsWith('..') && !path.isAbsolute(prdRelative);
  const shownPath = insideWorkspace ? prdRelative.split(path.sep).join('/') : prdAbsolute;
  const storeFile = request.report.store === false ? undefined : request.report.store ? path.resolve(request.report.store) : defaultCliStoreFile(workspace);
  const write = request.write;
  let total = 0;
  let done = 0;
  let verification;
  try {
    verification = await composeVerification({
      source: { kind: 'prd', from: prdOnDisk(file, workspace, frozen, request.warn), ...(chosen ? { effort: chosen } : {}), ...(only ? { only: { ids: only, unknown: 'refuse' as const } } : {}) },
      effortTable: effortTable.table,
      // Who may run the PRD's commands is known once it is read: its "Not approved" note is a denial.
      host: async ({ prepared }) => {
        const facts = await commandFacts(listRead, listFile, awaitingRead, noCommands ? undefined : () => deniedIn(workspace, prepared.document), request.warn);
        return {
          workspaceRoot: root,
          // The copy's ignored folders are links into the workspace: a path through one stays inside.
          ...(frozen ? { linkedRoot: workspace } : {}),
          ...(rg ? { ripgrepPath: path.resolve(rg) } : {}),
          approver: approver(request, facts.allowed, facts.awaiting, facts.denied, workspace),
          ...(processes ? { processes: processes } : {}),
          ...(approvedIgnores ? { approvedIgnores: approvedIgnores } : {}),
        };
      },
      timeoutMs: Math.round(timeoutSeconds * 1000),
      now,
      ...(signal ? { signal: signal } : {}),
      ...(insideWorkspace ? { prdPath: prdRelative.split(path.sep).join('/') } : {}),
      progress: {
        onStart: (criteria) => ((total = criteria.length), onStart?.(criteria)),
        ...(onResult ? { onResult: (result: { criterionId: string }) => onResult(++done, total, result.criterionId) } : {}),
      },
      // What is shown, written back and reported names the workspace, never the gate's copy.
      ...(frozen ? { results: (set: VerifySetResult) => ({ ...set, results: set.results.map((r) => namingWorkspace(r, root, workspace)) }) } : {}),
      ...(write ? { writeBack: { ...(write.later ? { later: true } : {}), write: ({ prd, shown }) => writeBackToFile(file, prd!.text, prd!.prepared, shown, { date: now.toISOString().slice(0, 10), by: write.by(shown), ...(write.finish ? { finish: write.finish } : {}), warn: request.warn }) } } : {}),
      ...(storeFile ? { report: fileReport(storeFile, { later: request.report.later === true, prdPath: shownPath, workspaceFolder: workspace, warn: request.warn }) } : {}),
    });
  } catch (error) {
    if (isVerificationRefused(error)) return error.problems ? { kind: 'bad-input', problems: [...error.problems], summary: error.message } : { kind: 'refused', message: error.message };
    if (isCancellation(error)) return { kind: 'cancelled', message: error instanceof Error ? error.message : 'verification was cancelled' };
    throw error;
  }
  const { shown, written, writeBack, report } = verification;
  const { prepared: prd, text } = verification.prd!;
  const parallelism = effortTable.table.levels[prd.level].parallelism;
  return { kind: 'verified', document: prd.document, text, criteria: prd.criteria, set: shown, prd, effort: prd.level, parallelism, written, ...(writeBack ? { writeBack } : {}), ...(report?.stored ? { stored: report.stored } : {}), storeWarnings: report?.storeWarnings ?? [] };
}

/**
 * The PRD as a file on disk, or as the gate's frozen copy has it: the text the gate read and
 * compared with the lock, else the copy's file (a PRD outside the workspace is not in the copy:
 * read where it is). Its warnings go to stderr, named by the file.
 */
function prdOnDisk(file: string, workspace: string, frozen: VerifyPrdRequest['frozen'], warn: (s: string) => void): PrdSource {
  const inCopy = path.relative(workspace, path.resolve(file));
  const copied = frozen && !inCopy.startsWith('..') && !path.isAbsolute(inCopy) ? path.join(frozen.root, inCopy) : file;
  return {
    name: file,
    read: () => (frozen?.text !== undefined ? Promise.resolve({ ok: true as const, text: frozen.text }) : readPrdFile(copied)),
    warn: (w) => warn(`warning: ${file}: ${w}`),
  };
}

/**
 * What the command line knows about the PRD's commands: the committed allow-list (when no one can
 * be asked), the commands awaiting a person, the denials. Any of them unreadable refuses the
 * verification: no command runs on a record that cannot be read.
 */
async function commandFacts(
  listRead: Promise<string | Error | undefined> | undefined,
  listFile: string,
  awaitingRead: Promise<Set<string>>,
  deniedRead: (() => Promise<Map<string, Denied>>) | undefined,
  warn: (s: string) => void,
): Promise<{ allowed: VerifyCommands | undefined; awaiting: Set<string>; denied: Map<string, Denied> }> {
  let allowed: VerifyCommands | undefined;
  const listText = await listRead;
  if (listText instanceof Error) throw new VerificationRefusedError(`cannot read ${listFile}: ${(listText as NodeJS.ErrnoException).code ?? listText.message}`);
  if (listText !== undefined) {
    allowed = readVerifyCommands(VERIFY_COMMANDS_FILE, listText);
    if (!allowed.ok) {
      for (const p of allowed.problems) warn(formatProblem(p));
      throw new VerificationRefusedError(`${VERIFY_COMMANDS_FILE} cannot be read; fix it, or pass --yes or --no-commands`);
    }
  }
  // Commands criteria gained through an agent's proposal run only once a person allowed them.
  let awaiting: Set<string>;
  try {
    awaiting = await awaitingRead;
  } catch (error) {
    throw new VerificationRefusedError(`${(error as Error).message}; no command runs until it can be read`);
  }
  // Commands a person did not approve: remembered in the user's state folder, or named by the PRD's "Not approved" note.
  try {
    return { allowed, awaiting, denied: deniedRead ? await deniedRead() : new Map() };
  } catch (error) {
    throw new VerificationRefusedError(`${(error as Error).message}; no command runs until it can be read`);
  }
}

/** The outcomes and LOG entry written into the PRD file, unless it changed while it was being verified; true when written. */
async function writeBackToFile(file: string, text: string, prd: PreparedPrd, shown: VerifySetResult, o: { date: string; by: string; finish?: (text: string) => string; warn: (s: string) => void }): Promise<boolean> {
  const current = await readRegularTextOrAbsent(file, Buffer.byteLength(text) + 1);
  if (current !== text) {
    o.warn(`ideal-state verify: ${file} changed while it was being verified; outcomes not written back`);
    return false;
  }
  const output = prd.write(shown.results, { date: o.date, by: o.by });
  await writeAtomically(file, o.finish ? o.finish(output) : output);
  return true;
}

/**
 * The command line's facts for the one rule (src/verify/decide-commands.ts): noCommands refuses; yes
 * allows; on a terminal the user is asked once; without one (CI, a hook, an MCP client) only what
 * the committed allow-list names runs, so a command a model wrote into a PRD never runs unasked.
 */
function approver(request: Pick<VerifyPrdRequest, 'commands' | 'warn'>, allowed: VerifyCommands | undefined, awaiting: ReadonlySet<string>, denied: ReadonlyMap<string, Denied>, workspace: string): CommandApprover | undefined {
  const { yes = false, off: noCommands = false, ask } = request.commands;
  // --yes with nothing a person must answer: every command runs, and no approver is asked.
  if (!noCommands && yes && (ask || awaiting.size === 0) && denied.size === 0) return undefined;
  const list = allowed?.ok ? allowed.list : undefined;
  const facts: CommandFacts = {
    off: noCommands,
    yes: yes,
    asker: ask ? 'terminal' : 'nobody',
    ...(list ? { allowList: allowing(list) } : {}),
    denied,
    awaiting,
  };
  return {
    async approve(commands) {
      const decisions = decideCommands(commands, facts);
      const asked = decisions.filter((d) => d.verdict === 'ask');
      if (asked.length === 0 || !ask) return approvalAfter(decisions);
      const mark = (d: (typeof asked)[number]) => ('mark' in d && d.mark ? `   ${ASK_MARKS[d.mark].terminal}` : '');
      request.warn(`This PRD runs ${asked.length} command${asked.length === 1 ? '' : 's'} in the workspace${yes ? ' that need a person\'s yes' : ''}:\n${asked.map((d) => `  ${d.command}${mark(d)}`).join('\n')}`);
      const answer = (await ask('Run them? [y/N] ')).trim().toLowerCase();
      const said = answer === 'y' || answer === 'yes';
      const askedCommands = asked.map((d) => d.command);
      // The person's answer is remembered as the run's would be; a record that cannot be written changes nothing now.
      await (said ? forgetDenials(workspace, askedCommands) : recordDenials(workspace, askedCommands.filter((c) => denied.has(c)), { always: false, now: new Date() })).catch(() => undefined);
      return approvalAfter(decisions, { yes: said, refused: COMMAND_REASONS.terminalNo });
    },
  };
}

/** A result whose evidence names the copy's folder (a stack trace, a compiler's message) names the workspace instead. */
function namingWorkspace<R extends { evidence: string; actual?: string; repairTarget?: string }>(result: R, root: string, workspace: string): R {
  const swap = (s: string | undefined) => (s === undefined ? s : s.split(root).join(workspace));
  return { ...result, evidence: swap(result.evidence)!, ...(result.actual !== undefined ? { actual: swap(result.actual) } : {}), ...(result.repairTarget !== undefined ? { repairTarget: swap(result.repairTarget) } : {}) };
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** Never a half-written PRD: write beside it, then rename over it. */
export async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = `${file}.ideal-state-${process.pid}.tmp`;
  await fs.writeFile(tmp, text, 'utf8');
  await fs.rename(tmp, file);
}
