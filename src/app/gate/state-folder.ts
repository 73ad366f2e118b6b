import * as crypto from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { readRegularTextOrAbsent } from '../../verify/safe-read';

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
 * own, the person's lock was not read and the stop went through. So is one whose value a
 * workspace settings file names in its `env` (a folder in /tmp is as much the agent's as one in
 * the workspace). The gate then keeps its counter in the default folder, but the person's lock
 * may be where their own variable pointed: it blocks the stop and says what was refused
 * (state-refused.ts), never verifying against the default folder as if nothing happened.
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
    const named = inside ? undefined : await namedByWorkspace(workspace, c.variable, c.value);
    if (!inside && !named) {
      root = c.root;
      break;
    }
    refused.push(inside ? `${c.variable} (${c.value}) names a folder inside the workspace ${inside}, where the agent can write; the gate ignores it` : `${c.variable} (${c.value}) is set by ${named} in the workspace, which the agent can write; the gate ignores it`);
  }
  const chosen: StateRoot = { root: root ?? defaultRoot(env, platform), refused };
  if (refused.length > 0) chosen.refused = refused.map((r) => `${r} and keeps its state in ${chosen.root}`);
  rootCache.set(key, chosen);
  return chosen;
}

const rootCache = new Map<string, StateRoot>();

/**
 * The workspace settings files whose `env` a host gives every hook, so a value there is one the
 * agent chose: Claude Code's project and local settings (https://code.claude.com/docs/en/settings,
 * `env`), which it reloads mid-session. Read bounded and only when regular (a FIFO there must not
 * hang the gate).
 */
const WORKSPACE_ENV_FILES = ['.claude/settings.local.json', '.claude/settings.json'];

/** The workspace settings file whose `env` sets `variable` to `value`, or undefined. */
async function namedByWorkspace(workspace: string, variable: string, value: string): Promise<string | undefined> {
  for (const shown of WORKSPACE_ENV_FILES) {
    const text = await readRegularTextOrAbsent(path.join(workspace, ...shown.split('/')), 1024 * 1024).catch(() => undefined);
    if (text === undefined) continue;
    let env: unknown;
    try {
      env = (JSON.parse(text) as { env?: unknown })?.env;
    } catch {
      continue;
    }
    if (typeof env === 'object' && env !== null && (env as Record<string, unknown>)[variable] === value) return shown;
  }
  return undefined;
}

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
