import * as path from 'node:path';
import { recordAgentBlocked } from '../../app/gate/agent-blocked';
import { defineCommand } from '../shared/command';
import type { CliIo } from '../shared/io';
import { GATE_BLOCKED_USAGE } from './usage';

const BLOCKED = defineCommand({
  name: 'ideal-state gate blocked',
  usage: GATE_BLOCKED_USAGE,
  options: { reason: { type: 'string' }, tried: { type: 'string' }, workspace: { type: 'string' } },
  positionals: false,
});

/** `ideal-state gate blocked`: the agent under the gate says it cannot finish, instead of weakening a check. */
export async function gateBlockedCommand(argv: string[], io: CliIo): Promise<number> {
  const parsed = BLOCKED.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  if (!values.reason?.trim()) return BLOCKED.usageError(io, '--reason is required: say what is in the way');
  if (values.reason.length > 2000 || (values.tried?.length ?? 0) > 2000) return BLOCKED.refuse(io, '--reason and --tried take at most 2000 characters each');
  const workspace = path.resolve(values.workspace ?? process.cwd());
  await recordAgentBlocked(workspace, { reason: values.reason, ...(values.tried ? { tried: values.tried } : {}), via: 'command line', now: new Date() });
  io.out('Recorded: your next stop is let through as BLOCKED, not done. Stop now, and tell the person what is in the way.\n');
  return 0;
}
