import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import { freezeWorkspace, type FrozenWorkspace } from './frozen';

/**
 * The same kind of frozen state for `ideal-state verify` on the command line: its checks run in a
 * snapshot of the workspace at the same kind of path, from the same kind of detached process
 * host, so a check cannot tell the stop gate from a plain verification (a check that passes only
 * in one of them is found out by the other). Changes meanwhile are not counted: a person or CI
 * may be working beside it. Its `.gitignore` rules are those on disk (no lock is consulted).
 * Undefined where the workspace is not a folder.
 */
export async function freezeForVerify(workspace: string, log: (s: string) => void): Promise<FrozenWorkspace | undefined> {
  // A workspace that is not a folder is verify's own error to report, as it always was.
  if (!(await stat(workspace).catch(() => undefined))?.isDirectory()) return undefined;
  return freezeWorkspace(workspace, { sinceMs: Date.now(), processHost: path.join(__dirname, 'process-host.cjs'), log, guard: false });
}
