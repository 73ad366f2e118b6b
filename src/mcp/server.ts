import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { listPrds } from '../cli/gate-prd';
import { ProposedCriterion } from '../app/done-gate';
import { criteriaTool, proposeTool, verifyTool, type ToolContext } from './tools';
import { ToolRefusal } from './workspace';

/**
 * `ideal-state mcp`: Ideal State's verifier for any MCP client (Claude Code, Cline, Cursor,
 * Codex, VS Code agents) over stdio, with the official SDK. One workspace per server; every
 * path a tool names must be inside it. The descriptions are written for the agent reading
 * them: verify is the done gate.
 */
export function createServer(ctx: ToolContext): McpServer {
  const server = new McpServer({ name: 'ideal-state', version: '0.1.0' }, { instructions: 'Ideal State proves a task done against the Ideal State Criteria of the workspace PRD. Call ideal-state_verify before you say you are done; you are done only when allCriticalPass is true.' });
  const prd = z.string().optional().describe('The PRD, workspace-relative (e.g. .ideal-state/prds/PRD-….md); default: the only PRD in the workspace');

  server.registerTool(
    'ideal-state_criteria',
    {
      title: 'Ideal State criteria',
      description:
        'The Ideal State Criteria of a PRD in this workspace: for each, its id, text, priority (CRITICAL, IMPORTANT, NICE), how it is verified, its last verified outcome, and whether that outcome is stale (something changed since). Read these before you start, so you know what "done" means here.',
      inputSchema: { prd },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => run(() => criteriaTool(ctx, args)),
  );

  server.registerTool(
    'ideal-state_verify',
    {
      title: 'Verify Ideal State criteria',
      description:
        'Verify the criteria of a PRD in this workspace now, with commands, greps, file reads and tests. Call this before you say a task is done: you are done only when allCriticalPass is true. Each result is PASS, FAIL, PARTIAL or UNKNOWN with evidence; a criterion that does not pass has a repairTarget saying what it needs. UNKNOWN means it could not be checked (for example a command that .ideal-state/verify-commands.yaml does not allow, which the user must allow); it is never a pass. Outcomes are recorded for ideal-state_criteria.',
      inputSchema: {
        prd,
        criteria: z.array(z.string()).optional().describe('Criterion ids to verify (default: all)'),
        timeoutSeconds: z.number().positive().max(3600).optional().describe('Per criterion (default 120)'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    (args, extra) => run(() => verifyTool(ctx, args, extra.signal)),
  );

  server.registerTool(
    'ideal-state_propose_criteria',
    {
      title: 'Propose Ideal State criteria',
      description:
        'Add criteria to a PRD in this workspace as a new criteria version. There is no confirmation dialog here: call it first without confirm to get the lines it would add, show them to the user, and call again with confirm: true only after the user agrees. Each criterion states one checkable end state; give verify as a PRD writes it after "Verify:", e.g. "Read: CHANGELOG.md", "Grep: TODO | expect: none", "CLI: npm test".',
      inputSchema: {
        prd,
        criteria: z.array(ProposedCriterion).min(1),
        confirm: z.boolean().optional().describe('true only after the user has seen and agreed to these criteria; without it nothing is written'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) => run(() => proposeTool(ctx, args)),
  );

  server.registerResource(
    'prd',
    new ResourceTemplate('ideal-state://prd/{name}', {
      list: async () => ({
        resources: (await listPrds(ctx.workspace)).map((p) => ({ uri: `ideal-state://prd/${encodeURIComponent(path.basename(p.file))}`, name: p.relative, mimeType: 'text/markdown' })),
      }),
    }),
    { title: 'PRDs of the workspace', description: 'The PRDs (with their Ideal State Criteria) in the workspace\'s PRD folder', mimeType: 'text/markdown' },
    async (uri, variables) => {
      const name = decodeURIComponent(String(variables.name));
      const prd = (await listPrds(ctx.workspace)).find((p) => path.basename(p.file) === name);
      if (!prd) throw new ToolRefusal(`no PRD ${name} in the workspace's PRD folder`);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await fs.readFile(prd.file, 'utf8') }] };
    },
  );
  return server;
}

/** A refusal is the tool's answer (isError), not a protocol failure; anything else is logged and said plainly. */
async function run(work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return { content: [{ type: 'text', text: JSON.stringify(await work(), null, 2) }] };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { isError: true, content: [{ type: 'text', text: (error as { code?: string }).code === 'mcp-tool-refused' ? message : `ideal-state: ${message}` }] };
  }
}

export async function serveMcp(options: { workspace: string; store: string | false | undefined; log: (s: string) => void }): Promise<number> {
  const stat = await fs.stat(options.workspace).catch(() => undefined);
  if (!stat?.isDirectory()) {
    options.log(`ideal-state mcp: the workspace ${options.workspace} is not a folder`);
    return 2;
  }
  const server = createServer(options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  options.log(`ideal-state mcp: serving ${options.workspace} over stdio`);
  await closed;
  await server.close().catch(() => undefined);
  return 0;
}
