import * as crypto from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Where the done gate keeps what an agent must not move: the criteria lock, the session
 * baseline, the block counter and the lock history. Outside the workspace (an agent edits the
 * workspace as part of its work), in the user's state folder, one folder per workspace keyed by
 * a hash of its real path (a symlink or `..` names the same workspace). The editor reads the
 * same folder.
 *
 * `IDEAL_STATE_STATE_DIR` replaces the root (tests; a user who keeps state elsewhere), and on
 * Linux `XDG_STATE_HOME` moves it. Either one that names a folder inside the workspace (by its
 * path, or by its real path through a symlink) is refused: an agent that set it in its host's
 * settings (`env` in `.claude/settings.local.json`) pointed the gate at an empty folder of its
 * own, the person's lock was not read and the stop went through. The gate then keeps its state
 * in the default folder and says so.
 */
export const STATE_DIR_ENV = 'IDEAL_STATE_STATE_DIR';

/** The root as the environment asks for it, before any refusal (a person's own look at where state would go). */
export function gateStateRoot(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const given = env[STATE_DIR_ENV];
  if (given && given.trim() !== '') return path.resolve(given);
  return xdgOrDefault(env, platform);
}

function xdgOrDefault(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  if (platform === 'linux' && env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME)) return path.join(env.XDG_STATE_HOME, 'ideal-state');
  return defaultRoot(env, platform);
}

/** The root no variable moves: the home folder's own place for state. */
function defaultRoot(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'ideal-state', 'state');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'ideal-state', 'state');
  return path.join(home, '.local', 'state', 'ideal-state');
}

export interface StateRoot {
  root: string;
  /** Each variable refused, with why, as the gate says it on stderr and in its answer. */
  refused: string[];
}

/** The state root for this workspace: the first one the environment names that is not inside the workspace, else the default. */
export async function stateRootFor(workspace: string, env: NodeJS.ProcessEnv = process.env, platform = process.platform): Promise<StateRoot> {
  const candidates: { variable: string; value: string; root: string }[] = [];
  const given = env[STATE_DIR_ENV];
  if (given && given.trim() !== '') candidates.push({ variable: STATE_DIR_ENV, value: given, root: path.resolve(given) });
  const xdg = env.XDG_STATE_HOME;
  if (platform === 'linux' && xdg && path.isAbsolute(xdg)) candidates.push({ variable: 'XDG_STATE_HOME', value: xdg, root: path.join(xdg, 'ideal-state') });
  const key = `${workspace}\0${candidates.map((c) => c.root).join('\0')}\0${platform}`;
  const known = rootCache.get(key);
  if (known) return known;
  const refused: string[] = [];
  let root: string | undefined;
  for (const c of candidates) {
    const inside = await insideWorkspace(c.root, workspace);
    if (!inside) {
      root = c.root;
      break;
    }
    refused.push(`${c.variable} (${c.value}) names a folder inside the workspace ${inside}, where the agent can write; the gate ignores it`);
  }
  const chosen: StateRoot = { root: root ?? defaultRoot(env, platform), refused };
  if (refused.length > 0) chosen.refused = refused.map((r) => `${r} and keeps its state in ${chosen.root}`);
  rootCache.set(key, chosen);
  return chosen;
}

const rootCache = new Map<string, StateRoot>();

/**
 * Whether `folder` is the workspace or inside it, by its path as written (a symlink in the
 * workspace is the agent's to re-point) or by its real path (a symlink elsewhere into the
 * workspace): the workspace as named, or undefined when it is outside.
 */
async function insideWorkspace(folder: string, workspace: string): Promise<string | undefined> {
  const within = (child: string, parent: string) => {
    const r = path.relative(parent, child);
    return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
  };
  const ws = path.resolve(workspace);
  if (within(path.resolve(folder), ws)) return ws;
  const realWs = await fs.realpath(ws).catch(() => ws);
  return within(await realPathOfNearest(folder), realWs) ? ws : undefined;
}

/** The real path of a folder that may not exist yet: its nearest existing parent's real path, then the rest. */
async function realPathOfNearest(folder: string): Promise<string> {
  let dir = path.resolve(folder);
  const rest: string[] = [];
  for (;;) {
    const real = await fs.realpath(dir).catch(() => undefined);
    if (real !== undefined) return path.join(real, ...rest.reverse());
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(folder);
    rest.push(path.basename(dir));
    dir = parent;
  }
}

/** The workspace's real path (the key), or its resolved path when it does not exist. */
export async function realWorkspace(workspace: string): Promise<string> {
  return fs.realpath(workspace).catch(() => path.resolve(workspace));
}

/** The workspace's own folder under the state root. */
export async function gateStateFolder(workspace: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const real = await realWorkspace(workspace);
  const hash = crypto.createHash('sha256').update(real).digest('hex').slice(0, 16);
  const name = path.basename(real).replace(/[^A-Za-z0-9._-]/g, '_') || 'workspace';
  return path.join((await stateRootFor(workspace, env)).root, `${name}-${hash}`);
}

/** What the environment asked for and the gate refused (empty when nothing was): said on stderr and in every answer. */
export async function stateFolderRefusals(workspace: string, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  return (await stateRootFor(workspace, env)).refused.map((r) => `Ideal State: ${r}.`);
}

/** The text writeJsonAtomically writes for a value (its digest is what the lock history records). */
export function jsonFileText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Never a half-written record: write beside it, then rename over it. Returns the text written. */
export async function writeJsonAtomically(file: string, value: unknown): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const text = jsonFileText(value);
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, text, 'utf8');
  await fs.rename(tmp, file);
  return text;
}
