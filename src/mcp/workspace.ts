import * as path from 'node:path';
import { heldPrds, heldSet } from '../app/gate/held';
import { listPrds } from '../app/gate/prds';
import { freeTextProblem } from '../app/propose-criteria';
import { confinePath } from '../verify/confine';

/** A tool call that cannot be done as asked: the client sees `message` as the tool's error (isError). */
export class ToolRefusal extends Error {
  override readonly name = 'ToolRefusal';
  readonly code = 'mcp-tool-refused';
}

/** Arguments the tool cannot take (a path outside the workspace, an unknown id, a line break): JSON-RPC -32602. */
export class BadArgument extends Error {
  override readonly name = 'BadArgument';
  readonly code = 'mcp-bad-argument';
}

export interface NamedPrd {
  /** Absolute. */
  file: string;
  /** Workspace-relative, forward slashes. */
  relative: string;
  /** Why the done gate holds an agent to it; absent: it does not. */
  held?: string;
}

/**
 * The PRD a tool call is about: the one it names (workspace-relative or absolute, and inside
 * the workspace, symbolic links included), else the one the done gate holds an agent to
 * (src/app/gate/held.ts: the locked PRD, the session's PRD as baselined, or the newest
 * unfinished one where nothing was locked), so "verify" here and the stop hook judge the same file. Where the
 * gate holds several, the call must name one: the refusal lists them.
 */
export async function resolvePrd(workspace: string, named: string | undefined): Promise<NamedPrd> {
  if (named !== undefined) {
    const problem = freeTextProblem('prd', named);
    if (problem) throw new BadArgument(problem);
    const confined = await confinePath(workspace, named);
    if (!confined.ok) throw new BadArgument(`refused: ${confined.reason} (${workspace}); this server reads and verifies only files inside its workspace`);
    if (!confined.exists) throw new BadArgument(`no file ${confined.relative} in the workspace ${workspace}`);
    const held = await heldSet(workspace);
    const why = heldPrds(workspace, held).find((p) => p.path === confined.relative)?.why;
    return { file: confined.absolute, relative: confined.relative, ...(why ? { held: why } : {}) };
  }
  const held = await heldSet(workspace);
  const whys = new Map(heldPrds(workspace, held).map((p) => [p.path, p.why]));
  const withWhy = async (relative: string) => {
    const found = await confined(workspace, relative);
    const why = whys.get(found.relative);
    return why ? { ...found, held: why } : found;
  };
  switch (held.kind) {
    case 'damaged':
      throw new ToolRefusal(`the criteria the done gate holds cannot be read: ${held.message}`);
    case 'none':
      throw new ToolRefusal(`no PRD in the workspace ${workspace}: none in its PRD folder; name one with "prd"`);
    case 'newest':
      return withWhy(relativeTo(workspace, held.file));
    default: {
      if (held.prds.length === 1) return withWhy(held.prds[0]!.path);
      const which = held.kind === 'locked' ? 'locked' : 'held since the person last spoke';
      throw new BadArgument(`prd: the done gate holds ${held.prds.length} PRDs ${which} (${held.prds.map((p) => p.path).join(', ')}); name one with "prd"`);
    }
  }
}

/** The workspace's PRDs (the PRD folder's), each confined like a tool's path: one that leads outside is left out, and logged. */
export async function confinedPrds(workspace: string, log: (s: string) => void): Promise<NamedPrd[]> {
  const out: NamedPrd[] = [];
  for (const p of await listPrds(workspace)) {
    const c = await confinePath(workspace, p.relative);
    if (c.ok && c.exists) out.push({ file: c.absolute, relative: c.relative });
    else log(`ideal-state mcp: ${p.relative} is not offered: ${c.ok ? 'it does not exist' : c.reason}`);
  }
  return out;
}

async function confined(workspace: string, relative: string): Promise<NamedPrd> {
  const c = await confinePath(workspace, relative);
  if (!c.ok) throw new ToolRefusal(`refused: ${c.reason} (${workspace}); this server reads and verifies only files inside its workspace`);
  return { file: c.absolute, relative: c.relative };
}

/** Workspace-relative, forward slashes, for what a tool returns. */
export function relativeTo(workspace: string, file: string): string {
  return path.relative(workspace, file).split(path.sep).join('/');
}
