import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { parsePrd } from '../../prd/parse';
import { readRegularTextOrAbsent } from '../../verify/safe-read';
import { gateStateFolder, writeJsonAtomically } from './state-folder';

/**
 * The agent's honest exit: "I cannot finish this; it needs a person", said instead of weakening
 * a check. An agent held by the gate and given no way out games what holds it; one given an
 * explicit way to stop and flag the task cheats far less. The agent records it (the command
 * line's `gate blocked`, the MCP server's blocked tool); the next stop is let through once, as
 * BLOCKED — never as done: the PRD's status becomes BLOCKED, its LOG and the host's warning say
 * why, and the criteria stay unmet. It is kept beside the lock, not in the workspace, and lasts
 * an hour: a stale one is dropped, not used.
 */
export const AGENT_BLOCKED_NAME = 'agent-blocked.json';
const FRESH_MS = 60 * 60 * 1000;

export const AgentBlocked = z
  .object({
    version: z.literal(1),
    at: z.iso.datetime(),
    /** What is in the way, in the agent's words. */
    reason: z.string().trim().min(1).max(2000),
    /** What it tried. */
    tried: z.string().trim().max(2000).optional(),
    via: z.enum(['command line', 'mcp']),
  })
  .strict();
export type AgentBlocked = z.infer<typeof AgentBlocked>;

async function blockedFile(workspace: string, env: NodeJS.ProcessEnv): Promise<string> {
  return path.join(await gateStateFolder(workspace, env), AGENT_BLOCKED_NAME);
}

/** Records the exit; the agent stops next. Returns the record as written. */
export async function recordAgentBlocked(workspace: string, said: { reason: string; tried?: string; via: AgentBlocked['via']; now: Date; env?: NodeJS.ProcessEnv }): Promise<AgentBlocked> {
  const record = AgentBlocked.parse({ version: 1, at: said.now.toISOString(), reason: said.reason, ...(said.tried?.trim() ? { tried: said.tried } : {}), via: said.via });
  await writeJsonAtomically(await blockedFile(workspace, said.env ?? process.env), record);
  return record;
}

/**
 * The exit the agent recorded, taken at a stop (removed, so it lets one stop through); undefined
 * when there is none, or it is stale, from the future, or not a record.
 */
export async function takeAgentBlocked(workspace: string, options: { now: Date; env?: NodeJS.ProcessEnv }): Promise<AgentBlocked | undefined> {
  const file = await blockedFile(workspace, options.env ?? process.env);
  const text = await readRegularTextOrAbsent(file);
  if (text === undefined) return undefined;
  await fs.rm(file, { force: true });
  let parsed;
  try {
    parsed = AgentBlocked.safeParse(JSON.parse(text));
  } catch {
    return undefined;
  }
  if (!parsed.success) return undefined;
  const age = options.now.getTime() - Date.parse(parsed.data.at);
  return age >= -60_000 && age <= FRESH_MS ? parsed.data : undefined;
}

/** The note the person reads when the agent stopped this way, and the LOG's words. */
export function agentBlockedNote(record: AgentBlocked, notDone: string): string {
  return [`Ideal State: the agent stopped without done: it says it is blocked and needs a person: "${record.reason}"${record.tried ? ` (tried: ${record.tried})` : ''}.`, notDone].join('\n');
}

/**
 * The PRD's status set to BLOCKED in its frontmatter (added where it has none), with the agent's
 * reason as `blocked_reason` (a JSON string, which YAML reads as its double-quoted scalar) so every
 * surface reads it from the PRD's data; the text is otherwise as it was.
 */
export function withBlockedStatus(text: string, reason?: string): string {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!match) return text;
  const body = match[1]!;
  let next = /^status:.*$/m.test(body) ? body.replace(/^status:.*$/m, 'status: BLOCKED') : `${body}\nstatus: BLOCKED`;
  if (reason !== undefined) {
    const line = `blocked_reason: ${JSON.stringify(reason.replace(/\s+/g, ' ').trim().slice(0, 2000))}`;
    next = /^blocked_reason:.*$/m.test(next) ? next.replace(/^blocked_reason:.*$/m, () => line) : `${next}\n${line}`;
  }
  return text.replace(body, () => next);
}

/**
 * Whether a PRD says its agent stopped blocked (status BLOCKED, set by the honest exit), and the
 * agent's reason where the frontmatter keeps it: the ISC table shows it as not done, in the
 * agent's words. Undefined for any other status.
 */
export function agentBlockedOfPrd(text: string): { reason?: string } | undefined {
  const doc = parsePrd(text);
  if ((doc.meta.status ?? '').trim().toUpperCase() !== 'BLOCKED') return undefined;
  const data = doc.frontmatter?.data as Record<string, unknown> | undefined;
  const reason = typeof data?.blocked_reason === 'string' && data.blocked_reason.trim() !== '' ? data.blocked_reason.trim().slice(0, 2000) : undefined;
  return reason ? { reason } : {};
}
