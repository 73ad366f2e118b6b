import * as path from 'node:path';
import { confinePath, type Confined } from '../confine';
import { runCommand } from '../run-command';
import { quoted, unknown, type MethodOf, type VerifierContext, type Verdict } from '../verdict';
import { commandRepair, commandVerdict } from './command-verdict';
import { cancelled } from './cancelled';

/** CLI: the command exits 0, run in the workspace folder or a folder inside it. */
export async function verifyCli(method: MethodOf<'CLI'>, ctx: VerifierContext): Promise<Verdict> {
  return runShell(method.command, method.cwd, method.timeoutMs ?? ctx.timeoutMs, ctx);
}

export async function runShell(command: string, cwd: string | undefined, timeoutMs: number, ctx: VerifierContext): Promise<Verdict> {
  if (!ctx.commandsApproved.approved) return notApproved(command, ctx.commandsApproved.reason);
  // The workspace folder itself is what every path is confined to: a command run there starts
  // at once, with no look-up first (the set's commands, its slowest checks, start before its searches).
  const folder = cwd === undefined ? workspaceFolder(ctx.host.workspaceRoot) : await confinePath(ctx.host.workspaceRoot, cwd, ctx.host.linkedRoot);
  const where = cwd ? `"${cwd}"` : 'the workspace folder';
  if (!folder.ok) return unknown('SCOPE_ERROR', `${quoted(command)} was not run: its folder is not inside the workspace (${folder.reason})`, `The command's folder is inside the workspace`);
  if (!folder.exists) return unknown('EXECUTION_ERROR', `${quoted(command)} was not run: its folder "${cwd}" does not exist`, `The folder "${cwd}" exists in the workspace`);
  const options = { command, cwd: folder.absolute, timeoutMs, signal: ctx.signal, pathOutside: workspaceRoots(ctx) };
  const result = await (ctx.host.processes ? ctx.host.processes.runCommand(options) : runCommand(options));
  if (result.kind === 'cancelled') throw cancelled();
  return commandVerdict(quoted(command), result, commandRepair(command, where));
}

export function notApproved(command: string, reason: string): Verdict {
  return unknown('UNSUPPORTED_CLAIM', `${quoted(command)} was not run: ${reason}`, `${quoted(command)} is approved to run in this workspace`);
}

/** The workspace folder as confinePath would give it, unlooked-up: a verification's workspace is a folder already checked, and a spawn in one that went since fails as its own UNKNOWN. */
function workspaceFolder(root: string): Confined {
  return { ok: true, absolute: path.resolve(root), relative: '', exists: true };
}

/** The folders a check's PATH leaves out: the workspace verified, and the live one a snapshot links to. */
export function workspaceRoots(ctx: Pick<VerifierContext, 'host'>): string[] {
  return [ctx.host.workspaceRoot, ...(ctx.host.linkedRoot ? [ctx.host.linkedRoot] : [])];
}
