import * as path from 'node:path';
import { criteriaPrds } from '../cli/gate-prd';
import { confinePath } from '../verify/confine';

/** A tool call that cannot be done as asked: the client sees `message` as the tool's error. */
export class ToolRefusal extends Error {
  override readonly name = 'ToolRefusal';
  readonly code = 'mcp-tool-refused';
}

export interface NamedPrd {
  /** Absolute. */
  file: string;
  /** Workspace-relative, forward slashes. */
  relative: string;
}

/**
 * The PRD a tool call is about: the one it names (workspace-relative or absolute, and inside
 * the workspace, symbolic links included), else the only PRD in the workspace's PRD folder.
 */
export async function resolvePrd(workspace: string, named: string | undefined): Promise<NamedPrd> {
  if (named !== undefined) {
    const confined = await confinePath(workspace, named);
    if (!confined.ok) throw new ToolRefusal(`refused: ${confined.reason} (${workspace}); this server reads and verifies only files inside its workspace`);
    if (!confined.exists) throw new ToolRefusal(`no file ${confined.relative} in the workspace ${workspace}`);
    return { file: confined.absolute, relative: confined.relative };
  }
  const prds = await criteriaPrds(workspace);
  if (prds.length === 0) throw new ToolRefusal(`no PRD in the workspace ${workspace}: none in its PRD folder; name one with "prd"`);
  if (prds.length > 1) throw new ToolRefusal(`the workspace has ${prds.length} PRDs; name one with "prd": ${prds.map((p) => p.relative).join(', ')}`);
  return { file: prds[0]!.file, relative: prds[0]!.relative };
}

/** Workspace-relative, forward slashes, for what a tool returns. */
export function relativeTo(workspace: string, file: string): string {
  return path.relative(workspace, file).split(path.sep).join('/');
}
