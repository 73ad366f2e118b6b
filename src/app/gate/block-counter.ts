import * as path from 'node:path';
import { z } from 'zod';
import { gateStateFolder, writeJsonAtomically } from './state-folder';
import { ownedByAnother } from './lock';
import { checkHistory, recordLockEvent } from './lock-events';
import { readRegularFile } from '../../verify/safe-read';

/**
 * The loop guard's memory: how many times in a row the gate kept each session's agent from
 * stopping. It lives beside the criteria lock in the user's state folder, not in the
 * workspace (an agent that wrote `blocks: 99` there would be let through), and not in
 * the store (a hook must not wait for another process's writer lock).
 *
 * An entry that cannot be true (a count over the limit, a time in the future, a malformed
 * value) is refused: it reads as no blocks yet, so a forged entry keeps the gate closed
 * longer, never opens it sooner. The refusal is said once, on the gate's standard error.
 */
export const GATE_STATE_NAME = 'gate-state.json';

/** A session quiet this long starts counting again (hosts without a session id share one key). */
const IDLE_MS = 60 * 60 * 1000;
/** Entries older than this are dropped when the file is written. */
const KEEP_MS = 7 * 24 * 60 * 60 * 1000;
/** Clocks differ a little between processes; more than this ahead is a forged time. */
const CLOCK_SKEW_MS = 5_000;
/** The counter holds a few sessions: a larger file is not one the gate wrote. */
const STATE_FILE_LIMIT = 1024 * 1024;

const Entry = z.object({ blocks: z.number().int().min(0), updatedAt: z.iso.datetime() }).strict();
type Entry = z.infer<typeof Entry>;
const StateFile = z.object({ version: z.literal(1), sessions: z.record(z.string(), z.unknown()) });

export async function gateStateFile(workspace: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return path.join(await gateStateFolder(workspace, env), GATE_STATE_NAME);
}

interface Read {
  sessions: Record<string, Entry>;
  refused: string[];
}

async function read(file: string, maxBlocks: number, now: Date): Promise<Read> {
  const out: Read = { sessions: {}, refused: [] };
  const bytes = await readRegularFile(file, { maxBytes: STATE_FILE_LIMIT });
  if (!bytes.ok) {
    if (bytes.reason !== 'absent') out.refused.push(`${bytes.message}; read as no blocks`);
    return out;
  }
  const owner = await ownedByAnother(file);
  if (owner) {
    out.refused.push(`${file} belongs to another user (${owner}); read as no blocks`);
    return out;
  }
  const text = bytes.bytes.toString('utf8');
  let parsed: z.infer<typeof StateFile>;
  try {
    const checked = StateFile.safeParse(JSON.parse(text));
    if (!checked.success) {
      out.refused.push(`${file} is not a gate state file; read as no blocks`);
      return out;
    }
    parsed = checked.data;
  } catch {
    out.refused.push(`${file} is not JSON; read as no blocks`);
    return out;
  }
  for (const [key, value] of Object.entries(parsed.sessions)) {
    const e = Entry.safeParse(value);
    if (!e.success) out.refused.push(`session ${key}: not a block count`);
    else if (e.data.blocks > maxBlocks) out.refused.push(`session ${key}: ${e.data.blocks} blocks, over the limit of ${maxBlocks}`);
    else if (Date.parse(e.data.updatedAt) > now.getTime() + CLOCK_SKEW_MS) out.refused.push(`session ${key}: a time in the future (${e.data.updatedAt})`);
    else out.sessions[key] = e.data;
  }
  // Only the gate writes the counter: one not as its last recorded write left it was set by hand.
  const traced = await checkHistory(path.dirname(file), GATE_STATE_NAME, bytes.bytes, `the block counter ${file}`);
  if (!traced.ok && Object.keys(out.sessions).length > 0) {
    out.refused.push(`${traced.message}; read as no blocks`);
    out.sessions = {};
  }
  return out;
}

/**
 * Blocks so far in this session's current run of stops. A host that says the agent is not
 * continuing from a stop hook (`stop_hook_active: false`) starts a new run: the user spoke
 * since, so earlier blocks no longer count.
 */
export async function blocksSoFar(file: string, key: string, stopHookActive: boolean | undefined, maxBlocks: number, now: Date, warn: (s: string) => void = () => undefined): Promise<number> {
  if (stopHookActive === false) return 0;
  const state = await read(file, maxBlocks, now);
  for (const r of state.refused) warn(`warning: Ideal State gate state refused: ${r}`);
  const entry = state.sessions[key];
  if (!entry || now.getTime() - Date.parse(entry.updatedAt) > IDLE_MS) return 0;
  return entry.blocks;
}

/** Records the verdict: a block adds one to the run, a stop let through ends it. */
export async function recordVerdict(file: string, key: string, blocks: number, maxBlocks: number, now: Date): Promise<void> {
  const { sessions } = await read(file, Math.max(maxBlocks, blocks), now);
  if (blocks === 0) delete sessions[key];
  else sessions[key] = { blocks, updatedAt: now.toISOString() };
  const kept = Object.fromEntries(Object.entries(sessions).filter(([, e]) => now.getTime() - Date.parse(e.updatedAt) < KEEP_MS));
  const text = await writeJsonAtomically(file, { version: 1, sessions: kept });
  await recordLockEvent(path.dirname(file), { action: 'counter', file: GATE_STATE_NAME, text, now });
}
