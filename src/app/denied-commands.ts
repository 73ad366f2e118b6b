import * as path from 'node:path';
import { z } from 'zod';
import { methodCommand } from '../model/verification-method';
import type { PrdDocument } from '../prd/model';
import { notesOf } from '../prd/notes';
import { commandDigest } from '../verify/command-digest';
import { gateStateFolder, writeJsonAtomically } from './gate/state-folder';
import { readStateRecord } from './state-record';

/**
 * The verification commands a person did not approve, per workspace, in the
 * user's state folder beside the criteria lock: outside the workspace an agent edits, so an
 * agent cannot erase a denial to get its command run. A denial changes what runs, never what
 * the PRD says: the criterion keeps its method (with a "Not approved" note) and verifies
 * UNKNOWN, "not approved".
 *
 * What a remembered denial does to the next verification of that exact command:
 * - the next run, the editor's Verify Criteria and `ideal-state verify` on a terminal ask a
 *   person again, whatever an allow-list or "Always for this run" says;
 * - with no person to ask (CI, a hook, an MCP client), it does not run, `--yes` or not;
 * - "Deny always" (`always`): it is never asked about again and never runs, until a person
 *   removes it (`ideal-state verify` names this file).
 *
 * A person's later approval of the command removes a one-time denial.
 */
export const DENIED_COMMANDS_FILE = 'denied-commands.json';

export const DeniedCommand = z.object({
  digest: z.string().regex(/^sha256:[0-9a-f]{12}$/),
  command: z.string().min(1),
  deniedAt: z.string(),
  /** "Deny always": never asked about again. */
  always: z.boolean().default(false),
});
export type DeniedCommand = z.infer<typeof DeniedCommand>;

const DeniedFile = z.object({ version: z.literal(1), commands: z.array(DeniedCommand) });

type Env = NodeJS.ProcessEnv;

export class DeniedCommandsError extends Error {
  override readonly name = 'DeniedCommandsError';
  readonly code = 'denied-commands-state';
}

export async function deniedCommandsFile(workspace: string, env: Env = process.env): Promise<string> {
  return path.join(await gateStateFolder(workspace, env), DENIED_COMMANDS_FILE);
}

/** A record that cannot be read is an error, never "nothing was denied" (which would let the commands run). */
export async function deniedCommands(workspace: string, env: Env = process.env): Promise<Map<string, DeniedCommand>> {
  const file = await deniedCommandsFile(workspace, env);
  const record = await readStateRecord(file, DeniedFile, { version: 1 as const, commands: [] }, (m) => new DeniedCommandsError(m));
  return new Map(record.commands.map((c) => [c.digest, c]));
}

/** The remembered denial of this exact command, if any. */
export function denialOf(record: ReadonlyMap<string, DeniedCommand>, command: string): DeniedCommand | undefined {
  return record.get(commandDigest(command));
}

/** Remembers that a person did not approve these commands (`always`: "Deny always"). A "Deny always" already there stays. */
export async function recordDenials(workspace: string, commands: readonly string[], options: { always: boolean; now: Date }, env: Env = process.env): Promise<void> {
  if (commands.length === 0) return;
  const current = await deniedCommands(workspace, env);
  for (const command of commands) {
    const digest = commandDigest(command);
    const always = options.always || current.get(digest)?.always === true;
    current.set(digest, { digest, command, deniedAt: options.now.toISOString(), always });
  }
  await writeJsonAtomically(await deniedCommandsFile(workspace, env), { version: 1, commands: [...current.values()] });
}

/** A person approved these commands: their one-time denials are forgotten ("Deny always" stays until removed by hand). */
export async function forgetDenials(workspace: string, commands: readonly string[], env: Env = process.env): Promise<void> {
  const current = await deniedCommands(workspace, env);
  let changed = false;
  for (const command of commands) {
    const d = current.get(commandDigest(command));
    if (d && !d.always) {
      current.delete(d.digest);
      changed = true;
    }
  }
  if (changed) await writeJsonAtomically(await deniedCommandsFile(workspace, env), { version: 1, commands: [...current.values()] });
}

/** The words for a command that will not run because of a denial. */
export function denialReason(d: Pick<DeniedCommand, 'always' | 'deniedAt'> | undefined, where: string): string {
  const day = d?.deniedAt.slice(0, 10);
  if (d?.always) return `not approved: a person chose "Deny always" for this command${day ? ` on ${day}` : ''}; it never runs until they remove it from ${where}`;
  return `not approved: a person denied this command${day ? ` on ${day}` : ''}; it runs only once a person approves it (on a terminal, or in the editor)`;
}

export interface Denied {
  readonly always: boolean;
  readonly reason: string;
}

/**
 * The commands a verification of this PRD must not run unasked: each remembered denial of the
 * workspace, and each command a "Not approved" note of the PRD names (CI has no state folder;
 * the note travels with the PRD). An agent that deletes the note still meets the remembered
 * denial; one that forges the record can only add denials.
 */
export async function deniedIn(workspace: string, document: PrdDocument, env: Env = process.env): Promise<Map<string, Denied>> {
  const remembered = await deniedCommands(workspace, env);
  const where = await deniedCommandsFile(workspace, env);
  const out = new Map<string, Denied>();
  for (const d of remembered.values()) out.set(d.command, { always: d.always, reason: denialReason(d, where) });
  for (const c of document.criteria) {
    const command = c.verify && methodCommand(c.verify);
    if (command === undefined || out.has(command)) continue;
    const digest = commandDigest(command);
    if (notesOf(document, c.id).some((n) => n.kind === 'not-approved' && n.digest === digest)) {
      out.set(command, { always: false, reason: `not approved: the PRD's note under ${c.id} says a person did not approve this command; it runs only on a person's yes` });
    }
  }
  return out;
}
