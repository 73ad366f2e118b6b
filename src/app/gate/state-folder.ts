import * as crypto from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Where the done gate keeps what an agent must not move: the criteria lock, the session
 * baseline and the block counter. Outside the workspace (an agent edits the workspace as
 * part of its work), in the user's state folder, one folder per workspace keyed by a hash of
 * its real path (a symlink or `..` names the same workspace). The editor reads the same folder.
 *
 * `IDEAL_STATE_STATE_DIR` replaces the root (tests; a user who keeps state elsewhere).
 */
export const STATE_DIR_ENV = 'IDEAL_STATE_STATE_DIR';

export function gateStateRoot(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const given = env[STATE_DIR_ENV];
  if (given && given.trim() !== '') return path.resolve(given);
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'ideal-state', 'state');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'ideal-state', 'state');
  return path.join(env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(home, '.local', 'state'), 'ideal-state');
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
  return path.join(gateStateRoot(env), `${name}-${hash}`);
}

/** Never a half-written record: write beside it, then rename over it. */
export async function writeJsonAtomically(file: string, value: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify(value, null, 2)}\n`, 'utf8');
  await fs.rename(tmp, file);
}
