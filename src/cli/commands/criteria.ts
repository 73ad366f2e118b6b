import * as path from 'node:path';

import { approveChanges, changesSinceLock, commitLock, describeChanges, describeLock, heldRecord, lockFilePath, lockStatus, prepareLock, whoLocks, type LockedPrd, type PreparedLock } from '../../app/gate';
import { candidateSummary, nameOnePrdMessage, type LockCandidate } from '../../app/gate/lock-choice';
import { undecidableLines } from '../../app/gate/undecidable';
import { LOCK_NAMES } from '../../app/gate/lock';
import { lockHistoryLine } from '../../app/gate/lock-events';
import { gateStateFolder, stateFolderRefusals } from '../../app/gate/state-folder';
import { openControllingTerminal, type TerminalOpen } from '../shared/terminal';
import { doneWords, probePrd, PROBE_WORDS } from '../../app/probe';
import { defineCommand, USAGE_EXIT } from '../shared/command';
import type { CliIo } from '../shared/io';
import { CRITERIA_USAGE } from '../shared/usage';


const CRITERIA_HELP = `Usage:\n${CRITERIA_USAGE}\n  --workspace DIR            the workspace (default: the current directory)`;
const CRITERIA = defineCommand({ name: 'ideal-state criteria', usage: CRITERIA_USAGE, help: CRITERIA_HELP, options: { workspace: { type: 'string' }, json: { type: 'boolean', default: false } } });

export interface CriteriaIo extends CliIo {
  /** The controlling terminal (tests give a scripted one); default: /dev/tty. */
  terminal?: () => TerminalOpen;
  env?: NodeJS.ProcessEnv;
}

/** Exit codes: 0 done, 1 declined (or, for status, something changed), 2 bad usage, 3 no terminal to ask. */
export async function criteriaCommand(argv: string[], io: CriteriaIo): Promise<number> {
  const parsed = CRITERIA.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [action, ...files] = positionals;
  if (action === undefined) {
    io.err(CRITERIA_HELP);
    return USAGE_EXIT;
  }
  const workspace = path.resolve(values.workspace ?? process.cwd());
  const env = io.env ?? process.env;
  if (action === 'status') return status(workspace, env, values.json, io);
  if (action !== 'lock' && action !== 'approve') {
    io.err(`ideal-state criteria: unknown action "${action}"; lock, approve or status`);
    return 2;
  }
  // With no file named, which PRD is the person's to say: when it cannot be chosen and there is no terminal to ask, they are named.
  const first = action === 'lock' && files.length === 0 ? await prepareLock(workspace, { by: whoLocks(), how: 'terminal', now: new Date(), env }) : undefined;
  if (first?.candidates?.length === 0) {
    io.err(`ideal-state criteria lock: nothing to lock: no PRD with criteria in ${workspace}`);
    return 2;
  }
  const opened = (io.terminal ?? openControllingTerminal)();
  if (!opened.ok && first && mustChoose(first)) {
    io.err(`ideal-state criteria lock: ${nameOnePrdMessage(first.candidates ?? [])}`);
    return 2;
  }
  if (!opened.ok) {
    io.err(`ideal-state criteria ${action}: refused: ${opened.reason}. Only a person locks or approves criteria: run it yourself in a terminal, or use "Ideal State: ${action === 'lock' ? 'Lock Criteria' : 'Approve Criteria Changes'}" in the editor.`);
    return 3;
  }
  const terminal = opened.terminal;
  try {
    return action === 'lock' ? await lock(workspace, files, env, terminal, io, first) : await approve(workspace, files, env, terminal, io);
  } finally {
    terminal.close();
  }
}

type Terminal = Extract<TerminalOpen, { ok: true }>['terminal'];

function yes(answer: string): boolean {
  return /^(y|yes)$/i.test(answer.trim());
}

/** No file was named and no PRD is the one to lock without asking. */
function mustChoose(prepared: PreparedLock): boolean {
  return prepared.locked.length === 0 && prepared.refused.length === 0 && (prepared.candidates?.length ?? 0) > 0;
}

/** The person picks one PRD by its number; undefined when they pick none. */
function choosePrd(candidates: readonly LockCandidate[], terminal: Terminal, io: CriteriaIo): LockCandidate | undefined {
  terminal.write(`PRDs with criteria here, newest first:\n${candidates.map((c, i) => `  ${i + 1}. ${c.relative}  (${candidateSummary(c)})`).join('\n')}\n`);
  const answer = terminal.ask(`Which one do you lock? [1-${candidates.length}, Enter: none] `).trim();
  const n = Number(answer);
  if (answer !== '' && Number.isInteger(n) && n >= 1 && n <= candidates.length) return candidates[n - 1];
  io.err(`ideal-state criteria lock: ${answer === '' ? 'no PRD chosen' : `"${answer}" is not one of 1-${candidates.length}`}; nothing was locked`);
  return undefined;
}

/**
 * One question per PRD, each showing only that PRD's criteria and the CRITICAL ones the done
 * gate cannot decide: what is said yes to is locked, exactly as it was shown.
 */
async function lock(workspace: string, files: readonly string[], env: NodeJS.ProcessEnv, terminal: Terminal, io: CriteriaIo, first?: PreparedLock): Promise<number> {
  const now = new Date();
  let prepared = first ?? (await prepareLock(workspace, { ...(files.length > 0 ? { files } : {}), by: whoLocks(), how: 'terminal', now, env }));
  if (mustChoose(prepared)) {
    const chosen = choosePrd(prepared.candidates ?? [], terminal, io);
    if (!chosen) return 1;
    prepared = await prepareLock(workspace, { files: [chosen.relative], by: whoLocks(), how: 'terminal', now, env });
  }
  for (const w of prepared.warnings) terminal.write(`warning: ${w}\n`);
  for (const r of prepared.refused) terminal.write(`not locked: ${r.path}: ${r.message}\n`);
  if (prepared.locked.length === 0) {
    io.err('ideal-state criteria lock: nothing to lock');
    return 2;
  }
  const several = prepared.locked.length > 1;
  const confirmed: LockedPrd[] = [];
  const declined: string[] = [];
  for (const p of prepared.locked) {
    const undecidable = undecidableLines(prepared.undecidable.find((u) => u.path === p.path)?.criteria ?? []);
    terminal.write([describeLock(p), ...undecidable].join('\n'));
    if (yes(terminal.ask(`\nLock these criteria${several ? ` of ${p.path}` : ''}? An agent is then held to them. [y/N] `))) confirmed.push(p);
    else declined.push(p.path);
  }
  if (confirmed.length === 0) {
    io.err('ideal-state criteria lock: not locked');
    return 1;
  }
  const file = await commitLock(workspace, 'lock', confirmed, { env });
  io.out(`Locked ${confirmed.map((p) => `${p.path} (criteria version ${p.version})`).join(', ')} in ${file}`);
  if (declined.length > 0) io.err(`ideal-state criteria lock: not locked (declined): ${declined.join(', ')}`);
  await probeLocked(workspace, confirmed, terminal, io, now);
  return 0;
}

/**
 * Probe the probes: each locked PRD's runnable checks run once on the workspace as
 * it is (its commands asked about on this terminal, as `ideal-state verify` asks); a criterion
 * whose check already passes is said here and noted in the PRD. A probe that cannot run changes
 * nothing about the lock.
 */
async function probeLocked(workspace: string, locked: readonly LockedPrd[], terminal: Terminal, io: CriteriaIo, now: Date): Promise<void> {
  for (const p of locked.filter((x) => x.format === 'prd')) {
    const probed = await probePrd(path.join(workspace, p.path), workspace, { ask: async (q) => terminal.ask(q), warn: (s) => terminal.write(`${s}\n`), now });
    if (probed.kind === 'not-probed') {
      io.err(`ideal-state criteria lock: ${p.path}: the checks were not probed: ${probed.message}`);
      continue;
    }
    for (const f of probed.flags) io.out(`${p.path}: ${f.id} ${PROBE_WORDS}${f.evidence ? ` (${f.evidence.split('\n')[0]})` : ''}`);
    if (probed.done.length > 0) io.out(`${p.path}: ${doneWords(probed.done)}`);
  }
}

async function approve(workspace: string, files: readonly string[], env: NodeJS.ProcessEnv, terminal: Terminal, io: CriteriaIo): Promise<number> {
  const now = new Date();
  const held = await heldRecord(workspace, env);
  if (held === undefined) {
    io.err('ideal-state criteria approve: nothing is locked here; lock the criteria with `ideal-state criteria lock`');
    return 2;
  }
  if ('error' in held) {
    io.err(`ideal-state criteria approve: ${held.error}; lock the criteria again with \`ideal-state criteria lock\``);
    return 2;
  }
  const changed = await changesSinceLock(workspace, held, { files, now });
  if (changed.length === 0) {
    io.out('Nothing changed since the criteria were locked; nothing to approve.');
    return 0;
  }
  terminal.write(describeChanges(changed));
  if (!yes(terminal.ask('\nApprove these changes? The agent is then held to the criteria as they are now. [y/N] '))) {
    io.err('ideal-state criteria approve: not approved; the gate keeps blocking until the files are put back or a person approves');
    return 1;
  }
  const result = await approveChanges(workspace, held.kind, changed, { by: whoLocks(), how: 'terminal', now, env });
  for (const r of result.refused) io.err(`ideal-state criteria approve: ${r.path} not approved: ${r.message}`);
  for (const p of result.logProblems) io.err(`warning: ${p}`);
  io.out(`Approved: ${[...result.approved.map((p) => `${p.path} is criteria version ${p.version}`), ...result.dropped.map((p) => `${p} is no longer locked`)].join('; ')} (${result.file})`);
  return 0;
}

async function status(workspace: string, env: NodeJS.ProcessEnv, json: boolean, io: CriteriaIo): Promise<number> {
  for (const r of await stateFolderRefusals(workspace, env)) io.err(r);
  const history = await lockHistoryLine(await gateStateFolder(workspace, env), LOCK_NAMES);
  const status = await lockStatus(workspace, { env, now: new Date() });
  if ('error' in status) {
    io.err(`ideal-state criteria status: ${status.error}`);
    return 2;
  }
  if (!json) io.out(history);
  const rows = status.rows;
  const changed = rows.some((r) => r.changes.length > 0);
  if (json) io.out(JSON.stringify({ workspace, lockFile: await lockFilePath(workspace, 'lock', env), prds: rows }));
  else {
    if (rows.length === 0) io.out(`No PRD with criteria in ${workspace}, and nothing locked.`);
    for (const r of rows) {
      if (r.held === 'not locked') io.out(`${r.path}: not locked`);
      else {
        const what = r.held === 'lock' ? `locked as criteria version ${r.version} by ${r.by} at ${r.at}` : `session baseline of ${r.at}`;
        io.out(`${r.path}: ${what}; ${r.changes.length === 0 ? 'as locked' : `${r.changes.length} change${r.changes.length === 1 ? '' : 's'} since, TAMPERED until approved or put back:`}`);
        for (const c of r.changes) io.out([`  ${c.summary}`, ...c.diff.map((d) => `    ${d}`)].join('\n'));
      }
    }
  }
  return changed ? 1 : 0;
}
