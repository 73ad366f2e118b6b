import * as crypto from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Where stores live, without the store itself: a one-shot command that only leaves a pending
 * record (src/store/pending.ts) names the store's file without loading SQLite (store.ts
 * re-exports these, so every other caller is unchanged).
 */
export const DATABASE_FILE_NAME = 'ideal-state.sqlite';

/**
 * Where the command line keeps a workspace's store when no `--store` is given: one file
 * per workspace under the user's data folder, named by a hash of the workspace path.
 */
export function defaultCliStoreFile(workspace: string, env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const resolved = path.resolve(workspace);
  const hash = crypto.createHash('sha256').update(resolved).digest('hex').slice(0, 16);
  const name = path.basename(resolved).replace(/[^A-Za-z0-9._-]/g, '_') || 'workspace';
  return path.join(cliDataFolder(env, platform), 'workspaces', `${name}-${hash}`, DATABASE_FILE_NAME);
}

/** The command line's folder under the user's data folder (stores, trust records): never inside a workspace. */
export function cliDataFolder(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = os.homedir();
  const dataRoot =
    platform === 'win32'
      ? env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local')
      : platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support')
        : env.XDG_DATA_HOME ?? path.join(home, '.local', 'share');
  return path.join(dataRoot, 'ideal-state');
}
