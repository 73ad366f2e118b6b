import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { freeTextProblem } from '../app/propose-criteria';
import { BoundedStdioTransport } from './stdio-transport';
import { IdleFolder } from './fold-idle';
import { ProcessHost } from '../verify/process-host';
import { BlockedAnswer, BlockedInput, blockedTool } from './blocked-tool';
import { CriteriaAnswer, CriteriaInput, criteriaTool, McpVerifyAnswer, ProposeAnswer, ProposeInput, proposeTool, VerifyInput, verifyTool, type CallSession, type ToolContext } from './tools';
import { BadArgument, confinedPrds } from './workspace';

/**
 * A JSON-RPC error as the SDK's protocol layer sends it (`code`, `message`, `data` of the
 * thrown error); McpError would put "MCP error N:" into the message a second time.
 */
function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}

/** JSON-RPC error for a resource the server does not have (MCP 2025-06-18, server/resources#error-handling). */
export const RESOURCE_NOT_FOUND = -32002;
const PRD_TEMPLATE = 'ideal-state://prd/{name}';

/**
 * The rule every host's model should read. It names no tool: hosts rename them (Codex calls
 * them `ideal_state_*`), so it says what each does instead.
 */
export const INSTRUCTIONS =
  "Ideal State holds the work in this workspace to its Ideal State Criteria (the PRD). Before you say a task is done, run this server's verify tool and read its answer: the task is done only when allCriticalPass is true. Each criterion that does not pass says what it needs (repairTarget); UNKNOWN is never a pass. The criteria tool lists what done means here; the propose-criteria tool asks the user to accept new criteria, and only its answer says whether they did; the blocked tool is the honest way to stop when the criteria cannot be met without weakening a check.";

interface ToolDef<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: Record<string, boolean>;
  run: (ctx: ToolContext, input: z.infer<I>, session: CallSession) => Promise<z.infer<O>>;
}

function tool<I extends z.ZodObject, O extends z.ZodObject>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}

const TOOLS = [
  tool({
    name: 'ideal-state_criteria',
    title: 'Ideal State criteria',
    description:
      'The Ideal State Criteria of a PRD in this workspace: for each, its id, text, priority (CRITICAL, IMPORTANT, NICE), how it is verified, its last verified outcome, and whether that outcome is stale (something changed since). Read these before you start, so you know what "done" means here.',
    input: CriteriaInput,
    output: CriteriaAnswer,
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: (ctx, input) => criteriaTool(ctx, input),
  }),
  tool({
    name: 'ideal-state_verify',
    title: 'Verify Ideal State criteria',
    description:
      "Verify the criteria of a PRD in this workspace now, with commands, greps, file reads and tests. Call this before you say a task is done: you are done only when allCriticalPass is true (with some criteria ids it is null unless every CRITICAL criterion is among them). Each result is PASS, FAIL, PARTIAL or UNKNOWN with evidence; a criterion that does not pass has a repairTarget saying what it needs. UNKNOWN means it could not be checked (for example a command that .ideal-state/verify-commands.yaml does not allow, which the user must allow); it is never a pass. Outcomes are recorded for this server's criteria tool.",
    input: VerifyInput,
    output: McpVerifyAnswer,
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    run: (ctx, input, session) => verifyTool(ctx, input, session),
  }),
  tool({
    name: 'ideal-state_propose_criteria',
    title: 'Propose Ideal State criteria',
    description:
      "Propose criteria for a PRD in this workspace; they are added (as a new criteria version) only when the user accepts them. Without confirm the answer is the preview: exactly the lines that would be written. With confirm: true the user is asked, in this client's dialog where it has one; otherwise the proposal waits until the user accepts it with `ideal-state criteria pending` in their terminal. Never tell the user the criteria were added unless the answer says written: true. A command a proposed criterion runs never runs until the user allows it on a terminal. Each criterion states one checkable end state, on one line; give verify as a PRD writes it after \"Verify:\", e.g. \"Read: CHANGELOG.md\", \"Grep: TODO | expect: none\", \"CLI: npm test\". At most 50 criteria a call.",
    input: ProposeInput,
    output: ProposeAnswer,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: (ctx, input, session) => proposeTool(ctx, input, session),
  }),
  tool({
    name: 'ideal-state_blocked',
    title: 'Stop as blocked: needs a person',
    description:
      'Say you cannot finish: call this when the criteria cannot be made to pass without weakening a check, a test or a criterion (a missing credential, a broken dependency, a contradiction in the criteria). Your next stop is let through once as BLOCKED, never as done: the user is told why and the criteria stay unmet. Give what is in the way and what you tried. Do not call it to skip work you can do.',
    input: BlockedInput,
    output: BlockedAnswer,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: (ctx, input) => blockedTool(ctx, input),
  }),
];

/** JSON Schema (draft-07, as the SDK's own conversion gives) of a zod object. */
function jsonSchema(schema: z.ZodObject, io: 'input' | 'output'): { type: 'object'; [k: string]: unknown } {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...rest, type: 'object' };
}

/** Every string in the arguments, with where it is (criteria[0].text), for the one-line rule. */
function* strings(value: unknown, at: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [at, value];
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* strings(v, `${at}[${i}]`);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* strings(v, at === '' ? k : `${at}.${k}`);
}

/**
 * `ideal-state mcp`: Ideal State's verifier for any MCP client (Claude Code, Cline, Cursor,
 * Codex, VS Code agents) over stdio, on the SDK's protocol layer. One workspace per server;
 * every path a tool or resource names must be inside it. Bad arguments are JSON-RPC -32602,
 * a missing resource -32002 (the spec's codes); a refusal the model can act on is the tool's
 * error (isError). Tools declare their output schema and answer with structuredContent.
 */
export function createServer(ctx: ToolContext): Server {
  const server = new Server({ name: 'ideal-state', version: '0.1.0' }, { capabilities: { tools: {}, resources: {}, completions: {} }, instructions: INSTRUCTIONS });

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: jsonSchema(t.input, 'input'), outputSchema: jsonSchema(t.output, 'output'), annotations: t.annotations })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const def = TOOLS.find((t) => t.name === request.params.name);
    if (!def) throw rpcError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}; this server has ${TOOLS.map((t) => t.name).join(', ')}`);
    const args = request.params.arguments ?? {};
    for (const [at, value] of strings(args, '')) {
      const problem = freeTextProblem(at, value);
      if (problem) throw rpcError(ErrorCode.InvalidParams, `Invalid arguments for ${def.name}: ${problem}`);
    }
    const parsed = def.input.safeParse(args);
    if (!parsed.success) throw rpcError(ErrorCode.InvalidParams, `Invalid arguments for ${def.name}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ')}`);
    const token = extra._meta?.progressToken;
    const client = server.getClientVersion()?.name;
    const session: CallSession = {
      signal: extra.signal,
      ...(client ? { client } : {}),
      ...(server.getClientCapabilities()?.elicitation ? { ask: (message: string, commands: readonly string[]) => elicit(server, message, commands, extra.signal) } : {}),
      ...(token !== undefined
        ? { progress: (progress: number, total: number, message: string) => void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } }).catch(() => undefined) }
        : {}),
    };
    try {
      const answer = def.output.parse(await def.run(ctx, parsed.data as never, session)) as Record<string, unknown>;
      return { content: [{ type: 'text', text: JSON.stringify(answer, null, 2) }], structuredContent: answer };
    } catch (error) {
      if (error instanceof BadArgument) throw rpcError(ErrorCode.InvalidParams, error.message);
      if (error instanceof McpError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      if ((error as { code?: string }).code !== 'mcp-tool-refused') ctx.log(`ideal-state mcp: ${def.name} failed: ${message}`);
      return { isError: true, content: [{ type: 'text', text: (error as { code?: string }).code === 'mcp-tool-refused' ? message : `ideal-state: ${message}` }] };
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: (await confinedPrds(ctx.workspace, ctx.log)).map((p) => ({ uri: `ideal-state://prd/${encodeURIComponent(path.basename(p.file))}`, name: p.relative, mimeType: 'text/markdown' })),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ uriTemplate: PRD_TEMPLATE, name: 'prd', title: 'PRDs of the workspace', description: "The PRDs (with their Ideal State Criteria) in the workspace's PRD folder", mimeType: 'text/markdown' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const m = /^ideal-state:\/\/prd\/([^/?#]+)$/.exec(uri);
    let name: string | undefined;
    try {
      name = m ? decodeURIComponent(m[1]!) : undefined;
    } catch {
      name = undefined;
    }
    const prd = name === undefined ? undefined : (await confinedPrds(ctx.workspace, ctx.log)).find((p) => path.basename(p.file) === name);
    if (!prd) throw rpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri} is not a PRD in the workspace's PRD folder (or leads outside the workspace)`, { uri });
    return { contents: [{ uri, mimeType: 'text/markdown', text: await fs.readFile(prd.file, 'utf8') }] };
  });
  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const ref = request.params.ref;
    if (ref.type !== 'ref/resource' || ref.uri !== PRD_TEMPLATE || request.params.argument.name !== 'name') return { completion: { values: [], total: 0, hasMore: false } };
    const typed = request.params.argument.value;
    const names = (await confinedPrds(ctx.workspace, ctx.log)).map((p) => path.basename(p.file)).filter((n) => n.startsWith(typed));
    return { completion: { values: names.slice(0, 100), total: names.length, hasMore: names.length > 100 } };
  });
  return server;
}

/** Asks the person through the client's own dialog (elicitation/create, form mode). */
async function elicit(server: Server, message: string, commands: readonly string[], signal: AbortSignal): Promise<'accept' | 'decline' | 'cancel'> {
  const result = await server.request(
    {
      method: 'elicitation/create',
      params: {
        message: commands.length > 0 ? `${message}\nThey would run: ${commands.join(', ')} (not before you allow it with \`ideal-state criteria pending\` in a terminal).` : message,
        requestedSchema: { type: 'object', properties: { accept: { type: 'boolean', title: 'Add these criteria', description: 'Yes adds exactly the lines shown' } }, required: ['accept'] },
      },
    },
    ElicitResultSchema,
    { signal, timeout: 10 * 60_000 },
  );
  if (result.action !== 'accept') return result.action;
  return result.content?.accept === true ? 'accept' : 'decline';
}

export async function serveMcp(options: { workspace: string; store: string | false | undefined; log: (s: string) => void }): Promise<number> {
  const stat = await fs.stat(options.workspace).catch(() => undefined);
  if (!stat?.isDirectory()) {
    options.log(`ideal-state mcp: the workspace ${options.workspace} is not a folder`);
    return 2;
  }
  const folder = new IdleFolder(options.workspace, options.store, options.log);
  // The checks' processes start from a small host beside the server (dist/process-host.cjs), not from its main thread.
  const processes = ProcessHost.start(path.join(__dirname, 'process-host.cjs'), options.log);
  const server = createServer({ ...options, folder, ...(processes ? { processes } : {}) });
  const transport = new BoundedStdioTransport(process.stdin, process.stdout, options.log);
  const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
  await server.connect(transport);
  options.log(`ideal-state mcp: serving ${options.workspace} over stdio`);
  await closed;
  // Records not folded yet stay beside the store for its next writable open.
  folder.cancel();
  await folder.settled();
  await server.close().catch(() => undefined);
  processes?.dispose();
  return 0;
}
