import * as fs from 'node:fs';
import * as path from 'node:path';
import { PROJECT_DIR_VARIABLES } from '../held';
import type { StopRequest } from './types';

/**
 * Whether a stop comes from a session in another project than the workspace the gate holds.
 * A gate installed in the user's settings (`gate install claude-code --scope user`) runs at every
 * stop of every project, named to one workspace by `--workspace`: a stop elsewhere is none of
 * its business and goes through silently, before anything is read or written.
 *
 * "Elsewhere" needs every sign the host gives to agree: the payload's `cwd`, the folder the host
 * started the hook in, and the host's project variable (CLAUDE_PROJECT_DIR). Measured with
 * Claude Code 2.1.332: an agent's `cd /elsewhere` in its shell is reset to the project before the
 * next command ("Shell cwd was reset to …") and the Stop payload's cwd and the hook's own folder
 * stay the project; the project variable can be re-pointed by an `env` in a settings file the
 * agent writes, which alone is not enough. One sign inside the workspace holds the stop, and so
 * does a payload without a cwd.
 */
export function stopIsElsewhere(request: StopRequest, workspace: string, env: NodeJS.ProcessEnv, processCwd: string): boolean {
  // A host that does not say where its session is (no payload cwd: Kiro, Cursor, Augment) is
  // never "elsewhere": the folder a hook happens to start in is not enough to let a stop through.
  if (!request.cwd || !path.isAbsolute(request.cwd)) return false;
  const variable = PROJECT_DIR_VARIABLES[request.host];
  const signs = [request.cwd, processCwd, variable ? env[variable] : undefined].filter((s): s is string => typeof s === 'string' && path.isAbsolute(s));
  if (signs.length === 0) return false;
  return signs.every((s) => !inside(s, workspace));
}

/** Compared by real paths: a workspace named through a link (/tmp on macOS is /private/tmp) is still the same folder. */
function inside(folder: string, workspace: string): boolean {
  const rel = path.relative(real(workspace), real(folder));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function real(folder: string): string {
  try {
    return fs.realpathSync.native(folder);
  } catch {
    return path.resolve(folder);
  }
}
