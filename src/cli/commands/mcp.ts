import * as path from 'node:path';
import { serveMcp } from '../../mcp/server';
import { defineCommand } from '../shared/command';
import type { CliIo } from '../shared/io';
import { MCP_USAGE } from '../shared/usage';


const MCP = defineCommand({ name: 'ideal-state mcp', usage: MCP_USAGE, options: { workspace: { type: 'string' }, store: { type: 'string' }, 'no-store': { type: 'boolean', default: false } }, positionals: false });

export async function mcpCommand(argv: string[], io: CliIo): Promise<number> {
  const parsed = MCP.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  return serveMcp({ workspace: path.resolve(values.workspace ?? process.cwd()), store: values['no-store'] ? false : values.store, log: io.err });
}
