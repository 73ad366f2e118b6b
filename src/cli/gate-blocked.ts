import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { recordAgentBlocked } from '../app/gate/agent-blocked';
import type { VerifyIo } from './verify';

export const GATE_BLOCKED_USAGE = `Usage: ideal-state gate blocked --reason TEXT [--tried TEXT] [--workspace DIR]

For the agent under the done gate: it cannot make the criteria pass without weakening a check,
and says so instead. Its next stop is let through once as BLOCKED, never as done: the PRD's
status becomes BLOCKED, its LOG and the host's warning say why, and the criteria stay unmet for
the person to look at.

Options:
  --reason TEXT      what is in the way (required)
  --tried TEXT       what was tried
  --workspace DIR    the workspace (default: the current directory)
`;

export async function gateBlockedCommand(argv: string[], io: VerifyIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { reason: { type: 'string' }, tried: { type: 'string' }, workspace: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } } }));
  } catch (error) {
    io.err(`ideal-state gate blocked: ${(error as Error).message}\n\n${GATE_BLOCKED_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(GATE_BLOCKED_USAGE);
    return 0;
  }
  if (!values.reason?.trim()) {
    io.err(`ideal-state gate blocked: --reason is required: say what is in the way\n\n${GATE_BLOCKED_USAGE}`);
    return 2;
  }
  if (values.reason.length > 2000 || (values.tried?.length ?? 0) > 2000) {
    io.err('ideal-state gate blocked: --reason and --tried take at most 2000 characters each');
    return 2;
  }
  const workspace = path.resolve(values.workspace ?? process.cwd());
  await recordAgentBlocked(workspace, { reason: values.reason, ...(values.tried ? { tried: values.tried } : {}), via: 'command line', now: new Date() });
  io.out('Recorded: your next stop is let through as BLOCKED, not done. Stop now, and tell the person what is in the way.\n');
  return 0;
}
