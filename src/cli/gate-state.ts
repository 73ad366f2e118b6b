import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/**
 * The loop guard's memory: how many times in a row the gate kept each session's agent from
 * stopping. A small JSON file under `.ideal-state/` (not the store: a hook must not wait for
 * another process's writer lock). Damage or absence reads as "no blocks yet": the guard can
 * only ever let an agent stop sooner, never keep it working longer.
 */
export const GATE_STATE_FILE = '.ideal-state/gate-state.json';

/** A session quiet this long starts counting again (hosts without a session id share one key). */
const IDLE_MS = 60 * 60 * 1000;
/** Entries older than this are dropped when the file is written. */
const KEEP_MS = 7 * 24 * 60 * 60 * 1000;

interface Entry {
  blocks: number;
  updatedAt: string;
}

type State = Record<string, Entry>;

async function read(workspace: string): Promise<State> {
  try {
    const parsed: unknown = JSON.parse(await fs.readFile(path.join(workspace, GATE_STATE_FILE), 'utf8'));
    const sessions = (parsed as { sessions?: unknown }).sessions;
    if (typeof sessions !== 'object' || sessions === null) return {};
    const out: State = {};
    for (const [key, value] of Object.entries(sessions)) {
      const e = value as Partial<Entry>;
      if (typeof e.blocks === 'number' && Number.isInteger(e.blocks) && e.blocks >= 0 && typeof e.updatedAt === 'string') out[key] = { blocks: e.blocks, updatedAt: e.updatedAt };
    }
    return out;
  } catch {
    return {};
  }
}

async function write(workspace: string, state: State, now: Date): Promise<void> {
  const kept = Object.fromEntries(Object.entries(state).filter(([, e]) => now.getTime() - Date.parse(e.updatedAt) < KEEP_MS));
  const file = path.join(workspace, GATE_STATE_FILE);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify({ version: 1, sessions: kept }, null, 2)}\n`, 'utf8');
  await fs.rename(tmp, file);
}

/**
 * Blocks so far in this session's current run of stops. A host that says the agent is not
 * continuing from a stop hook (`stop_hook_active: false`) starts a new run: the user spoke
 * since, so earlier blocks no longer count.
 */
export async function blocksSoFar(workspace: string, key: string, stopHookActive: boolean | undefined, now: Date): Promise<number> {
  if (stopHookActive === false) return 0;
  const entry = (await read(workspace))[key];
  if (!entry || now.getTime() - Date.parse(entry.updatedAt) > IDLE_MS) return 0;
  return entry.blocks;
}

/** Records the verdict: a block adds one to the run, a stop let through ends it. */
export async function recordVerdict(workspace: string, key: string, blocks: number, now: Date): Promise<void> {
  const state = await read(workspace);
  if (blocks === 0) delete state[key];
  else state[key] = { blocks, updatedAt: now.toISOString() };
  await write(workspace, state, now);
}
