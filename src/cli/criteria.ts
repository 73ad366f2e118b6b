import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { commitLock, compareWithLock, criteriaPrds, criterionLine, lockFilePath, prepareLock, readLock, type LockChange, type LockedPrd, type LockKind } from '../app/gate';
import { applyEdits } from '../prd';
import { openControllingTerminal, type TerminalOpen } from './terminal';
import { probePrd, PROBE_WORDS } from '../app/probe';
import type { VerifyIo } from './verify';
import { writeAtomically } from './verify-prd';

export const CRITERIA_USAGE = `  criteria lock [FILE…]      lock the PRDs' criteria (default: every PRD with criteria in the PRD
                             folder): the done gate holds an agent to them; asks on the terminal
  criteria approve [FILE…]   approve changes to locked criteria and their inputs as a new
                             criteria version, logged in the PRD; asks on the terminal
  criteria status [--json]   what is locked, and what changed since (exit 1 when something did)
                             lock and approve ask on the controlling terminal and refuse without
                             one (exit 3): an agent's shell has none. There is no --yes.`;

export interface CriteriaIo extends VerifyIo {
  /** The controlling terminal (tests give a scripted one); default: /dev/tty. */
  terminal?: () => TerminalOpen;
  env?: NodeJS.ProcessEnv;
}

/** Exit codes: 0 done, 1 declined (or, for status, something changed), 2 bad usage, 3 no terminal to ask. */
export async function criteriaCommand(argv: string[], io: CriteriaIo): Promise<number> {
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { workspace: { type: 'string' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } } }));
  } catch (error) {
    io.err(`ideal-state criteria: ${(error as Error).message}\n\n${CRITERIA_USAGE}`);
    return 2;
  }
  const [action, ...files] = positionals;
  if (values.help || action === undefined) {
    (values.help ? io.out : io.err)(`Usage:\n${CRITERIA_USAGE}\n  --workspace DIR            the workspace (default: the current directory)`);
    return values.help ? 0 : 2;
  }
  const workspace = path.resolve(values.workspace ?? process.cwd());
  const env = io.env ?? process.env;
  if (action === 'status') return status(workspace, env, values.json, io);
  if (action !== 'lock' && action !== 'approve') {
    io.err(`ideal-state criteria: unknown action "${action}"; lock, approve or status`);
    return 2;
  }
  const opened = (io.terminal ?? openControllingTerminal)();
  if (!opened.ok) {
    io.err(`ideal-state criteria ${action}: refused: ${opened.reason}. Only a person locks or approves criteria: run it yourself in a terminal, or use "Ideal State: ${action === 'lock' ? 'Lock Criteria' : 'Approve Criteria Changes'}" in the editor.`);
    return 3;
  }
  const terminal = opened.terminal;
  try {
    return action === 'lock' ? await lock(workspace, files, env, terminal, io) : await approve(workspace, files, env, terminal, io);
  } finally {
    terminal.close();
  }
}

type Terminal = Extract<TerminalOpen, { ok: true }>['terminal'];

function who(): string {
  try {
    return os.userInfo().username || 'a person';
  } catch {
    return 'a person';
  }
}

function yes(answer: string): boolean {
  return /^(y|yes)$/i.test(answer.trim());
}

async function lock(workspace: string, files: readonly string[], env: NodeJS.ProcessEnv, terminal: Terminal, io: CriteriaIo): Promise<number> {
  const now = new Date();
  const prepared = await prepareLock(workspace, { ...(files.length > 0 ? { files } : {}), by: who(), how: 'terminal', now, env });
  for (const w of prepared.warnings) terminal.write(`warning: ${w}\n`);
  for (const r of prepared.refused) terminal.write(`not locked: ${r.path}: ${r.message}\n`);
  if (prepared.locked.length === 0) {
    io.err('ideal-state criteria lock: nothing to lock');
    return 2;
  }
  terminal.write(prepared.locked.map(describeLock).join('\n'));
  if (!yes(terminal.ask(`\nLock ${prepared.locked.length === 1 ? 'these criteria' : `the criteria of these ${prepared.locked.length} PRDs`}? An agent is then held to them. [y/N] `))) {
    io.err('ideal-state criteria lock: not locked');
    return 1;
  }
  const file = await commitLock(workspace, 'lock', prepared.locked, { env });
  io.out(`Locked ${prepared.locked.map((p) => `${p.path} (criteria version ${p.version})`).join(', ')} in ${file}`);
  await probeLocked(workspace, prepared.locked, terminal, io, now);
  return 0;
}

/**
 * Probe the probes (issue 28 §5): each locked PRD's runnable checks run once on the workspace as
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
  }
}

function describeLock(p: LockedPrd): string {
  const inputs = p.inputs.filter((i) => i.digest !== null);
  return [
    `${p.path} — criteria version ${p.version}`,
    ...p.criteria.map((c) => `  ${criterionLine(c)}`),
    `  and ${inputs.length} input${inputs.length === 1 ? '' : 's'} their verification depends on: ${inputs.map((i) => i.name).join(', ') || 'none'}`,
    ...(p.walkTruncated ? ['  (the search for protected files stopped at its limit; files past it are not locked)'] : []),
  ].join('\n');
}

/** The record the gate holds the workspace to now: the lock, else the baseline. */
async function heldRecord(workspace: string, env: NodeJS.ProcessEnv): Promise<{ kind: LockKind; prds: readonly LockedPrd[] } | { error: string } | undefined> {
  for (const kind of ['lock', 'baseline'] as const) {
    const read = await readLock(workspace, kind, env);
    if (!read.ok) return { error: read.message };
    if (read.record && read.record.prds.length > 0) return { kind, prds: read.record.prds };
  }
  return undefined;
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
  const wanted = files.length > 0 ? new Set(files.map((f) => path.relative(workspace, path.resolve(workspace, f)).split(path.sep).join('/'))) : undefined;
  const changed: { locked: LockedPrd; changes: LockChange[]; gone: boolean }[] = [];
  for (const locked of held.prds) {
    if (wanted && !wanted.has(locked.path)) continue;
    const c = await compareWithLock(workspace, locked, now);
    if (c.changes.length > 0) changed.push({ locked, changes: c.changes, gone: !c.readable && c.changes.some((x) => x.what === 'prd') });
  }
  if (changed.length === 0) {
    io.out('Nothing changed since the criteria were locked; nothing to approve.');
    return 0;
  }
  const shown = changed.map((c) => [`${c.locked.path} (locked as criteria version ${c.locked.version} by ${c.locked.by}, ${c.locked.at}):`, ...c.changes.flatMap((x) => [`  ${x.summary}`, ...x.diff.map((d) => `    ${d}`)])].join('\n'));
  terminal.write(shown.join('\n'));
  if (!yes(terminal.ask('\nApprove these changes? The agent is then held to the criteria as they are now. [y/N] '))) {
    io.err('ideal-state criteria approve: not approved; the gate keeps blocking until the files are put back or a person approves');
    return 1;
  }
  const by = who();
  const present = changed.filter((c) => !c.gone).map((c) => c.locked.path);
  const prepared = await prepareLock(workspace, { files: present, by, how: 'terminal', now, kind: held.kind, env });
  for (const r of prepared.refused) io.err(`ideal-state criteria approve: ${r.path} not approved: ${r.message}`);
  const file = await commitLock(workspace, held.kind, prepared.locked, { env, drop: changed.filter((c) => c.gone).map((c) => c.locked.path) });
  for (const p of prepared.locked) {
    const c = changed.find((x) => x.locked.path === p.path)!;
    if (p.format === 'prd') await logApproval(path.join(workspace, p.path), p, c.changes, now).catch((error: Error) => io.err(`warning: the approval was not logged in ${p.path}: ${error.message}`));
  }
  io.out(`Approved: ${[...prepared.locked.map((p) => `${p.path} is criteria version ${p.version}`), ...changed.filter((c) => c.gone).map((c) => `${c.locked.path} is no longer locked`)].join('; ')} (${file})`);
  return 0;
}

/** Who approved what and when, in the PRD's LOG; its criteria_version follows the lock's. */
async function logApproval(file: string, locked: LockedPrd, changes: readonly LockChange[], now: Date): Promise<void> {
  const text = await fs.readFile(file, 'utf8');
  const next = applyEdits(text, [
    { kind: 'setFrontmatter', key: 'criteria_version', value: locked.version },
    {
      kind: 'appendLog',
      entry: {
        iteration: 0,
        date: now.toISOString().slice(0, 10),
        phase: 'CRITERIA APPROVED',
        criteria: `version ${locked.version}`,
        work: `Criteria changes approved by ${locked.by} on a terminal at ${now.toISOString()}: ${changes.map((c) => c.summary).join('; ')}`,
        failing: [],
      },
    },
  ]);
  await writeAtomically(file, next);
}

async function status(workspace: string, env: NodeJS.ProcessEnv, json: boolean, io: CriteriaIo): Promise<number> {
  const now = new Date();
  const held = await heldRecord(workspace, env);
  if (held !== undefined && 'error' in held) {
    io.err(`ideal-state criteria status: ${held.error}`);
    return 2;
  }
  const rows: { path: string; held: LockKind | 'not locked'; version?: number; by?: string; at?: string; changes: LockChange[] }[] = [];
  for (const locked of held?.prds ?? []) {
    const c = await compareWithLock(workspace, locked, now);
    rows.push({ path: locked.path, held: held!.kind, version: locked.version, by: locked.by, at: locked.at, changes: c.changes });
  }
  for (const p of await criteriaPrds(workspace)) if (!rows.some((r) => r.path === p.relative)) rows.push({ path: p.relative, held: 'not locked', changes: [] });
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
