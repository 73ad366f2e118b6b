import * as crypto from 'node:crypto';
import * as path from 'node:path';
import { z } from 'zod';
import { ProposedCriterion } from './gate/answers';
import { gateStateFolder, writeJsonAtomically } from './gate/state-folder';
import { readStateRecord } from './state-record';

/**
 * What an agent proposed and a person has not yet accepted, and the commands criteria gained
 * through proposals, kept beside the criteria lock in the user's state folder (outside the
 * workspace an agent edits; `IDEAL_STATE_STATE_DIR` moves it for tests):
 *
 * - `pending-proposals.json`: proposals an MCP client could not ask a person about (no
 *   elicitation); `ideal-state criteria pending` shows each on a terminal and writes it only
 *   when the person says yes.
 * - `proposed-commands.json`: each command a criterion gained through a proposal. It runs
 *   only once a person allowed it on a terminal, whatever the allow-list's patterns say
 *   (`task: *` let an agent's `Task: npm: release` run the release script).
 *
 * An agent running as the user can still forge these files on purpose; what they stop is an
 * agent that goes through the tools.
 */

/** At most this many proposals wait at once: an agent cannot bury the one that matters. */
export const MAX_PENDING_PROPOSALS = 20;

export const PendingProposal = z.object({
  id: z.string().regex(/^[0-9a-f]{12}$/),
  /** Workspace-relative PRD path. */
  prd: z.string().min(1),
  criteria: z.array(ProposedCriterion).min(1),
  proposedAt: z.string(),
  /** The MCP client that sent it (its own word for its name). */
  client: z.string().optional(),
});
export type PendingProposal = z.infer<typeof PendingProposal>;

const PendingFile = z.object({ version: z.literal(1), proposals: z.array(PendingProposal) });

export const ProposedCommand = z.object({
  command: z.string().min(1),
  prd: z.string(),
  criterion: z.string(),
  addedAt: z.string(),
  /** Set once a person allowed it on a terminal. */
  allowedAt: z.string().optional(),
});
export type ProposedCommand = z.infer<typeof ProposedCommand>;

const CommandsFile = z.object({ version: z.literal(1), commands: z.array(ProposedCommand) });

type Env = NodeJS.ProcessEnv;

async function fileOf(workspace: string, name: string, env: Env): Promise<string> {
  return path.join(await gateStateFolder(workspace, env), name);
}

/** A record that cannot be read is an error the caller says, never an empty list (which would let commands run). */
function readRecord<T>(file: string, schema: z.ZodType<T>, empty: T): Promise<T> {
  return readStateRecord(file, schema, empty, (m) => new ProposalStateError(m));
}

export class ProposalStateError extends Error {
  override readonly name = 'ProposalStateError';
  readonly code = 'proposal-state';
}

export async function pendingProposals(workspace: string, env: Env = process.env): Promise<PendingProposal[]> {
  return (await readRecord(await fileOf(workspace, 'pending-proposals.json', env), PendingFile, { version: 1, proposals: [] })).proposals;
}

/** Keeps a proposal for a person to accept; refused past MAX_PENDING_PROPOSALS. */
export async function addPendingProposal(workspace: string, proposal: Omit<PendingProposal, 'id'>, env: Env = process.env): Promise<PendingProposal> {
  const file = await fileOf(workspace, 'pending-proposals.json', env);
  const current = await pendingProposals(workspace, env);
  if (current.length >= MAX_PENDING_PROPOSALS) throw new ProposalStateError(`${current.length} proposals already wait for a person (at most ${MAX_PENDING_PROPOSALS}); the user accepts or drops them with \`ideal-state criteria pending\` on a terminal`);
  const added = { ...proposal, id: crypto.randomBytes(6).toString('hex') };
  await writeJsonAtomically(file, { version: 1, proposals: [...current, added] });
  return added;
}

export async function removePendingProposal(workspace: string, id: string, env: Env = process.env): Promise<void> {
  const file = await fileOf(workspace, 'pending-proposals.json', env);
  const current = await pendingProposals(workspace, env);
  await writeJsonAtomically(file, { version: 1, proposals: current.filter((p) => p.id !== id) });
}

export async function proposedCommands(workspace: string, env: Env = process.env): Promise<ProposedCommand[]> {
  return (await readRecord(await fileOf(workspace, 'proposed-commands.json', env), CommandsFile, { version: 1, commands: [] })).commands;
}

/** Records commands criteria gained through a proposal: each needs a person's yes before it runs. */
export async function recordProposedCommands(workspace: string, commands: readonly Omit<ProposedCommand, 'allowedAt'>[], env: Env = process.env): Promise<void> {
  if (commands.length === 0) return;
  const current = await proposedCommands(workspace, env);
  const fresh = commands.filter((c) => !current.some((k) => k.command === c.command && k.allowedAt === undefined));
  // A command a person allowed before and a proposal brings back needs their yes again.
  const kept = current.filter((k) => !commands.some((c) => c.command === k.command));
  await writeJsonAtomically(await fileOf(workspace, 'proposed-commands.json', env), { version: 1, commands: [...kept, ...current.filter((k) => k.allowedAt === undefined && commands.some((c) => c.command === k.command)), ...fresh] });
}

export async function allowProposedCommand(workspace: string, command: string, now: Date, env: Env = process.env): Promise<void> {
  const current = await proposedCommands(workspace, env);
  await writeJsonAtomically(await fileOf(workspace, 'proposed-commands.json', env), { version: 1, commands: current.map((c) => (c.command === command ? { ...c, allowedAt: now.toISOString() } : c)) });
}

/** The commands that may not run until a person allows them. */
export async function commandsAwaitingPerson(workspace: string, env: Env = process.env): Promise<Set<string>> {
  return new Set((await proposedCommands(workspace, env)).filter((c) => c.allowedAt === undefined).map((c) => c.command));
}
