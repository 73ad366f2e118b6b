import { createHash } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Where Claude Code keeps the settings layers outside the workspace
 * (https://code.claude.com/docs/en/settings, "Settings files"), shared by `gate install --scope`
 * and `gate doctor`.
 */

/** The user settings folder: CLAUDE_CONFIG_DIR when set (the 2.1.332 binary reads it: its transcripts and settings.json move there), else ~/.claude. */
export function claudeConfigDir(env: NodeJS.ProcessEnv): string {
  const given = env.CLAUDE_CONFIG_DIR;
  if (given && path.isAbsolute(given)) return given;
  return path.join(env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir(), '.claude');
}

/** The managed settings folder, which only an administrator writes: managed-settings.json and the drop-ins of managed-settings.d beside it. */
export function claudeManagedDir(platform: NodeJS.Platform = process.platform): string {
  return platform === 'darwin' ? '/Library/Application Support/ClaudeCode' : platform === 'win32' ? 'C:\\Program Files\\ClaudeCode' : '/etc/claude-code';
}

/** The drop-in `gate install --scope managed` writes: one per workspace, so gates for several workspaces sit side by side. */
export function managedDropIn(workspace: string): string {
  const hash = createHash('sha256').update(path.resolve(workspace)).digest('hex').slice(0, 12);
  const name = path.basename(path.resolve(workspace)).replace(/[^A-Za-z0-9._-]/g, '_') || 'workspace';
  return `ideal-state-${name}-${hash}.json`;
}
