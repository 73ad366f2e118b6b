import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { serveMcp } from '../mcp/server';
import type { VerifyIo } from './verify';

export const MCP_USAGE = `Usage: ideal-state mcp [--workspace DIR] [--store FILE | --no-store]

An MCP server over stdio (for Claude Code, Cline, Cursor, Codex, VS Code agents) with three
tools: ideal-state_criteria, ideal-state_verify and ideal-state_propose_criteria, and the
workspace's PRDs as resources. Everything it reads, verifies or writes is inside the
workspace. PRD commands run as \`ideal-state verify\` runs them without a terminal: only
those .ideal-state/verify-commands.yaml allows, and never one a proposed criterion brought
until a person allows it. Proposed criteria are written only when a person accepts them (in
the client's dialog, or with \`ideal-state criteria pending\` on a terminal).
`;

export async function mcpCommand(argv: string[], io: VerifyIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        workspace: { type: 'string' },
        store: { type: 'string' },
        'no-store': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    io.err(`ideal-state mcp: ${(error as Error).message}\n\n${MCP_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(MCP_USAGE);
    return 0;
  }
  return serveMcp({ workspace: path.resolve(values.workspace ?? process.cwd()), store: values['no-store'] ? false : values.store, log: io.err });
}
