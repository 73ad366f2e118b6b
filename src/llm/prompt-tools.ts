import { z } from 'zod';
import { StructuredOutputError, type OutputIssue } from './errors';
import { parseArgumentsJson, parseToolArguments, stripFence, toJsonSchema } from './json-schema';
import type { ChatMessage, ChatRequest, ChatResponse, LanguageModel, ToolCall, ToolDefinition } from './types';

/**
 * Tools for a server that refuses them (Ollama's 400 "… does not support tools", a llama.cpp
 * server without a tool template): the tools are described in the system prompt with a JSON
 * action format, the request goes out as plain text, and the reply is read back into tool
 * calls validated by the same zod schemas the native path uses. The loop that runs the
 * tools sees an ordinary `ChatResponse`.
 */

/** What the model answers: tool calls, or its final text. */
const Action = z.union([
  z.object({ tool_calls: z.array(z.object({ name: z.string().min(1), arguments: z.unknown() })).min(1), final: z.string().optional() }),
  z.object({ final: z.string() }),
  // One bare call, which small models often write instead of the list.
  z.object({ name: z.string().min(1), arguments: z.unknown() }),
]);
type Action = z.infer<typeof Action>;

export const PROMPT_TOOLS_SCHEMA_NAME = 'tool action';

/**
 * One chat turn with `request.tools` through the prompt: the reply as tool calls (ids
 * `call_N`, numbered on from the calls already in the conversation, stop reason
 * 'tool-calls') or as final text ('end'). A reply that is not a valid action gets one
 * repair turn; a second throws `StructuredOutputError` (the router counts it like any
 * invalid output). Usage is the sum of both turns.
 */
export async function chatWithPromptTools(model: LanguageModel, request: ChatRequest): Promise<ChatResponse> {
  const tools = request.tools ?? [];
  const { tools: _tools, toolChoice, onPart, responseFormat: _format, ...plain } = request;
  const base = withProtocol(renderHistory(request.messages), tools, toolChoice);
  let messages = base;
  let issues: readonly OutputIssue[] = [];
  let inputTokens = 0;
  let outputTokens = 0;
  let estimated = false;
  const attempts = 2;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const reply = await model.chat({ ...plain, messages });
    inputTokens += reply.usage.inputTokens;
    outputTokens += reply.usage.outputTokens;
    estimated ||= reply.usage.estimated === true;
    const usage = { inputTokens, outputTokens, ...(estimated ? { estimated: true } : {}) };
    const read = readAction(reply.text, tools, toolChoice, nextCallNumber(request.messages));
    if (read.ok) {
      const servedBy = reply.servedBy ? { servedBy: reply.servedBy } : {};
      if (read.calls.length === 0) {
        if (read.text) onPart?.({ type: 'text', text: read.text });
        return { text: read.text, toolCalls: [], stopReason: 'end', usage, ...servedBy };
      }
      for (const call of read.calls) onPart?.({ type: 'tool-call', call });
      return { text: read.text, toolCalls: read.calls, stopReason: 'tool-calls', usage, ...servedBy };
    }
    issues = read.issues;
    messages = [...base, { role: 'assistant', content: reply.text }, { role: 'user', content: repairPrompt(issues) }];
  }
  throw new StructuredOutputError(model.displayName, PROMPT_TOOLS_SCHEMA_NAME, attempts, issues);
}

type ReadAction = { ok: true; calls: ToolCall[]; text: string } | { ok: false; issues: OutputIssue[] };

/** The model's reply as an action, each call's arguments checked against its tool's schema. */
export function readAction(text: string, tools: readonly ToolDefinition[], toolChoice: ChatRequest['toolChoice'], firstId = 1): ReadAction {
  const json = parseJsonObject(text);
  if (json === undefined) return { ok: false, issues: [{ path: '', message: 'the reply is not one JSON object' }] };
  const parsed = Action.safeParse(json);
  if (!parsed.success) return { ok: false, issues: [{ path: '', message: 'the reply is neither {"tool_calls": [...]} nor {"final": "..."}' }] };
  const action: Action = parsed.data;
  const wanted = 'tool_calls' in action ? action.tool_calls : 'name' in action ? [action] : [];
  const final = 'final' in action && typeof action.final === 'string' ? action.final : '';
  if (wanted.length === 0) {
    if (toolChoice === 'required') return { ok: false, issues: [{ path: '', message: 'a tool call is required here, not a final answer' }] };
    if (typeof toolChoice === 'object') return { ok: false, issues: [{ path: '', message: `a call of the tool "${toolChoice.name}" is required here` }] };
    return { ok: true, calls: [], text: final };
  }
  const issues: OutputIssue[] = [];
  const calls: ToolCall[] = [];
  for (const [i, w] of wanted.entries()) {
    const at = `tool_calls.${i}`;
    const call: ToolCall = { id: `call_${firstId + i}`, name: w.name, arguments: typeof w.arguments === 'string' ? parseArgumentsJson(w.arguments) : (w.arguments ?? {}) };
    const tool = tools.find((t) => t.name === w.name);
    if (!tool) {
      issues.push({ path: `${at}.name`, message: `there is no tool "${w.name}"; the tools are ${tools.map((t) => t.name).join(', ')}` });
    } else if (typeof toolChoice === 'object' && toolChoice.name !== w.name) {
      issues.push({ path: `${at}.name`, message: `only the tool "${toolChoice.name}" may be called here` });
    } else {
      const checked = parseToolArguments(tool, call);
      if (checked.ok) calls.push(call);
      else issues.push(...checked.issues.map((x) => ({ path: `${at}.arguments${x.path ? `.${x.path}` : ''}`, message: x.message })));
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, calls, text: final };
}

/** The system prompt's tool section: each tool's name, purpose and argument schema, and the reply format. */
export function toolProtocol(tools: readonly ToolDefinition[], toolChoice: ChatRequest['toolChoice']): string {
  const list = tools.map((t) => `- ${t.name}: ${t.description}\n  arguments (JSON schema): ${JSON.stringify(toJsonSchema(t.parameters))}`).join('\n');
  const must =
    toolChoice === 'required' ? 'You must call at least one tool in this reply.\n' : typeof toolChoice === 'object' ? `You must call the tool "${toolChoice.name}" in this reply.\n` : '';
  return [
    'You can use these tools:',
    list,
    '',
    'Reply with exactly one JSON object and nothing else, in one of these two forms:',
    '{"tool_calls": [{"name": "<tool name>", "arguments": {<arguments matching its schema>}}]}',
    '{"final": "<your answer>"}',
    `${must}Each tool result comes back to you in the next user message; then reply again in the same format.`,
  ].join('\n');
}

/** The protocol joined to the first system message (some servers take only one, at the start). */
function withProtocol(messages: readonly ChatMessage[], tools: readonly ToolDefinition[], toolChoice: ChatRequest['toolChoice']): ChatMessage[] {
  const protocol = toolProtocol(tools, toolChoice);
  const [first, ...rest] = messages;
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${protocol}` }, ...rest];
  return [{ role: 'system', content: protocol }, ...messages];
}

/**
 * Earlier tool calls and their results as plain turns: the assistant's calls as the JSON it
 * would have written, each result as a user turn naming the call. Neighbouring user turns
 * are joined, since chat templates of local models expect turns to alternate.
 */
export function renderHistory(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    let next: ChatMessage;
    if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) {
      const calls = m.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments }));
      next = { role: 'assistant', content: JSON.stringify({ tool_calls: calls }) };
    } else if (m.role === 'tool') {
      next = { role: 'user', content: `${m.isError ? 'Error from' : 'Result of'} tool ${m.name} (${m.toolCallId}):\n${m.content}` };
    } else {
      next = m;
    }
    const last = out[out.length - 1];
    if (next.role === 'user' && last?.role === 'user') out[out.length - 1] = { role: 'user', content: `${last.content}\n\n${next.content}` };
    else out.push(next);
  }
  return out;
}

/** The number of the next generated call id: after every call already in the conversation. */
function nextCallNumber(messages: readonly ChatMessage[]): number {
  let count = 0;
  for (const m of messages) if (m.role === 'assistant') count += m.toolCalls?.length ?? 0;
  return count + 1;
}

function repairPrompt(issues: readonly OutputIssue[]): string {
  return [
    'Your reply is not a valid action. Problems:',
    ...issues.map((i) => `- ${i.path || '(reply)'}: ${i.message}`),
    'Reply again with exactly one JSON object: {"tool_calls": [...]} or {"final": "..."}.',
  ].join('\n');
}

/** The reply's JSON object: the whole text (a fence allowed), else the outermost braces in it. */
function parseJsonObject(text: string): unknown {
  const whole = parseJson(stripFence(text).trim());
  if (whole !== undefined && typeof whole === 'object' && whole !== null) return whole;
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  const inner = parseJson(text.slice(start, end + 1));
  return typeof inner === 'object' && inner !== null ? inner : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
