import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { NodeWorkspace } from '../agent/node-workspace';
import type { WorkspaceTools } from '../agent/workspace';
import { composeRun, type ComposedRun, type ReadOverride, type RunPorts } from './compose-run';

/** A run on disk (the command line, tests, benches): the ports `composeRun` needs, with Node's defaults. */
export interface NodeRunOptions extends Omit<RunPorts, 'files' | 'readOverride' | 'trusted' | 'verify'> {
  /** The workspace folder. */
  readonly workspace: string;
  /** Default true. False: no edits, no commands, no PRD, no workspace overrides (Restricted Mode). */
  readonly trusted?: boolean;
  /**
   * Reads a workspace override (phase graph, capabilities, roles) when trusted; by default
   * from disk. The command line passes one that reads only files whose content the user
   * trusted (`ideal-state trust`), so a planted file changes nothing.
   */
  readonly readOverride?: ReadOverride;
  readonly ripgrepPath?: string;
  /** The agent's file tools; by default Node's on disk. */
  readonly files?: WorkspaceTools;
}

/** The Algorithm on disk: `composeRun` with the workspace's files read and written by Node. */
export function nodeAlgorithm(o: NodeRunOptions): Promise<ComposedRun> {
  const { workspace, ripgrepPath, readOverride, files, trusted, ...rest } = o;
  return composeRun({
    ...rest,
    files: files ?? new NodeWorkspace(workspace, ripgrepPath),
    trusted: trusted ?? true,
    readOverride: readOverride ?? ((rel) => readFromDisk(workspace, rel)),
    ...(ripgrepPath ? { verify: { ripgrepPath } } : {}),
  });
}

async function readFromDisk(workspace: string, rel: string): Promise<{ file: string; text: string } | undefined> {
  try {
    return { file: rel, text: await fs.readFile(path.join(workspace, rel), 'utf8') };
  } catch {
    return undefined;
  }
}
