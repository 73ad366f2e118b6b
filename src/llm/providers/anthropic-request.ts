import type { CacheControlEphemeral, MessageCreateParamsBase, MessageParam, OutputConfig, TextBlockParam, Tool, ToolChoice as AnthropicToolChoice } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelCapabilities } from '../catalogue';
import { toJsonSchema, type JsonSchema } from '../json-schema';
import { MAX_CACHE_BREAKPOINTS, prefixTokens } from '../prompt-cache';
import type { ChatRequest, ToolChoice } from '../types';
import { toAnthropicMessages } from './anthropic-messages';
import { toAnthropicOutputSchema } from './anthropic-schema';
import type { ThinkingMemory } from './anthropic-thinking';

/** Tool input schemas must be objects; any other structured-output schema is wrapped in one. */
export const WRAPPED = 'value';

/** How this request asks for structured output (see `StructuredMode` in catalogue.ts). */
export interface StructuredPlan {
  readonly mode: 'output-format' | 'forced-tool' | 'prompt-only';
  readonly name: string;
  /** The schema was not an object and went out wrapped in `{ value }` (tool inputs, and the JSON outputs' root, are objects). */
  readonly wrapped: boolean;
}

export interface AnthropicCall {
  /** The request body; `temperature` rides along untyped (the SDK no longer types sampling parameters). */
  readonly params: MessageCreateParamsBase & { temperature?: number };
  readonly structured?: StructuredPlan;
  readonly maxTokens: number;
}

/** Effort levels the Messages API takes in `output_config.effort` (https://platform.claude.com/docs/en/build-with-claude/effort). */
const ANTHROPIC_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
type AnthropicEffort = (typeof ANTHROPIC_EFFORTS)[number];

/**
 * The request as this model accepts it, read from its capabilities on every call (a server's
 * refusal may have changed them since the last one):
 * - `max_tokens` always (the API requires it), never past the model's own output cap;
 * - `temperature` only on models that take sampling parameters (Claude Opus 4.7 and later
 *   answer 400 to any non-default value);
 * - `output_config.effort` only when the catalogue names an effort;
 * - a forced `tool_choice` (`any` or a named tool) only where the model accepts one: Claude
 *   Opus 5.5, Fable 5.1 and Sonnet 5.5 answer 400, so they get `auto` and the tool's own
 *   description asks for it (https://platform.claude.com/docs/en/api/errors#forced-tool-use-not-supported).
 */
export function buildAnthropicRequest(
  model: string,
  request: ChatRequest,
  caps: ModelCapabilities,
  defaults: { maxOutputTokens: number; memory?: ThinkingMemory; minCacheTokens?: number },
): AnthropicCall {
  const wanted = request.maxOutputTokens ?? defaults.maxOutputTokens;
  const maxTokens = caps.maxOutputTokens ? Math.min(wanted, caps.maxOutputTokens) : wanted;
  const systemParts = request.messages.flatMap((m) => (m.role === 'system' ? [m.content] : []));
  // Sorted by name: the same tools are the same bytes on every turn, whatever order a caller lists them in.
  const tools: Tool[] = [...(request.tools ?? [])]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((t) => ({ name: t.name, description: t.description, input_schema: toJsonSchema(t.parameters) as Tool.InputSchema }));
  let toolChoice = request.toolChoice && tools.length > 0 ? toolChoiceFor(request.toolChoice, caps.forcedToolChoice) : undefined;
  const outputConfig: OutputConfig = {};
  let structured: StructuredPlan | undefined;

  if (request.responseFormat) {
    const { name, description, schema } = request.responseFormat;
    const json = toJsonSchema(schema);
    const mode = structuredModeOf(caps);
    const wrapped = json.type !== 'object';
    const root = wrapped ? wrap(json) : json;
    const native = mode === 'output-format' ? toAnthropicOutputSchema(root) : undefined;
    if (native) {
      outputConfig.format = { type: 'json_schema', schema: native };
      structured = { mode: 'output-format', name, wrapped };
    } else if (mode === 'forced-tool') {
      tools.push({ name, description: description ?? `Give the answer as a ${name}.`, input_schema: root as Tool.InputSchema });
      toolChoice = { type: 'tool', name };
      structured = { mode: 'forced-tool', name, wrapped };
    } else {
      // The same words on every attempt of one conversation: an edited system prompt would
      // invalidate the thinking blocks of later turns on the newest models.
      systemParts.push(promptForSchema(name, description, json));
      structured = { mode: 'prompt-only', name, wrapped: false };
    }
  }

  const effort = anthropicEffort(caps.reasoningEffort);
  if (effort) outputConfig.effort = effort;
  const system = systemParts.join('\n\n');
  const messages = toAnthropicMessages(request.messages, { prefill: caps.prefill, memory: defaults.memory });
  const systemBlocks: TextBlockParam[] | undefined = system ? [{ type: 'text', text: system }] : undefined;
  if (request.cache !== false) placeBreakpoints(tools, systemBlocks, messages, { type: 'ephemeral', ...(request.cache?.ttl === '1h' ? { ttl: '1h' } : {}) }, defaults.minCacheTokens ?? 1024);
  const params: AnthropicCall['params'] = {
    model,
    max_tokens: maxTokens,
    messages,
    // A plain string unless a breakpoint lands on it: the same bytes to a server either way.
    ...(systemBlocks ? { system: systemBlocks[0]!.cache_control ? systemBlocks : system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(Object.keys(outputConfig).length > 0 ? { output_config: outputConfig } : {}),
    // The Messages API takes temperatures from 0 to 1.
    ...(caps.sampling && request.temperature !== undefined ? { temperature: Math.min(1, Math.max(0, request.temperature)) } : {}),
  };
  return { params, maxTokens, ...(structured ? { structured } : {}) };
}

/**
 * Cache breakpoints where the prefix is stable (https://platform.claude.com/docs/en/build-with-claude/prompt-caching):
 * after the tools and system prompt, which stay the same for a role through a run; after the
 * turn before the newest, which the previous request wrote; and after the newest block, which
 * the next turn reads. The previous turn's breakpoint lets a turn that added many blocks still
 * find the last write (the API looks back only 20 blocks from a breakpoint). A breakpoint goes
 * only where the prefix reaches the model's minimum (a shorter one is not cached and its
 * marker would buy nothing), and never more than four. Everything after the last is new.
 */
function placeBreakpoints(tools: Tool[], system: TextBlockParam[] | undefined, messages: MessageParam[], control: CacheControlEphemeral, minTokens: number): void {
  const marks: { tokens: number; block: { cache_control?: CacheControlEphemeral | null } }[] = [];
  const lastHead = system?.[system.length - 1] ?? tools[tools.length - 1];
  const head: unknown[] = [...tools, ...(system ?? [])];
  if (lastHead) marks.push({ tokens: prefixTokens(head), block: lastHead });
  // The previous user turn (the end of what the last request sent), then the newest block.
  const last = messages.length - 1;
  let previousUser = -1;
  for (let i = last - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') {
      previousUser = i;
      break;
    }
  }
  for (const i of [previousUser, last]) {
    // User turns only: an assistant turn may be the very reply kept in memory, not a copy.
    const content = i >= 0 && messages[i]!.role === 'user' ? messages[i]!.content : undefined;
    const block = Array.isArray(content) ? content[content.length - 1] : undefined;
    if (!block || block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    marks.push({ tokens: prefixTokens([...head, ...messages.slice(0, i + 1).map((m) => m.content)]), block: block as { cache_control?: CacheControlEphemeral | null } });
  }
  const kept = marks.filter((m) => m.tokens >= minTokens);
  // The latest ones matter most when there are too many: they hold the most of the prefix.
  for (const m of kept.slice(-MAX_CACHE_BREAKPOINTS)) m.block.cache_control = control;
}

/**
 * The structured-output mode the capabilities allow. A forced tool needs a forced tool choice;
 * where that is refused the schema goes in the prompt. `json-schema-strict` in a workspace's
 * entry for a Claude model means the native route, which on Anthropic is `output_config.format`.
 */
export function structuredModeOf(caps: ModelCapabilities): StructuredPlan['mode'] {
  switch (caps.structuredOutput) {
    case 'anthropic-output-format':
    case 'json-schema-strict':
      return 'output-format';
    case 'forced-tool':
      return caps.forcedToolChoice && caps.tools ? 'forced-tool' : 'prompt-only';
    case 'prompt-only':
      return 'prompt-only';
  }
}

/** `{ value: schema }`, with the schema's definitions kept at the root where its `$ref`s point. */
function wrap(schema: JsonSchema): JsonSchema {
  const { $defs, definitions, ...inner } = schema;
  return {
    type: 'object',
    properties: { [WRAPPED]: inner },
    required: [WRAPPED],
    additionalProperties: false,
    ...($defs ? { $defs } : {}),
    ...(definitions ? { definitions } : {}),
  };
}

function toolChoiceFor(choice: ToolChoice, forcedAllowed: boolean): AnthropicToolChoice {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (!forcedAllowed) return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  return { type: 'tool', name: choice.name };
}

function anthropicEffort(effort: ModelCapabilities['reasoningEffort']): AnthropicEffort | undefined {
  return (ANTHROPIC_EFFORTS as readonly string[]).includes(effort ?? '') ? (effort as AnthropicEffort) : undefined;
}

function promptForSchema(name: string, description: string | undefined, schema: JsonSchema): string {
  return [
    `Give your answer as a "${name}"${description ? ` (${description})` : ''}: reply with only a JSON value, no prose and no code fence, that matches this JSON schema exactly:`,
    JSON.stringify(schema),
  ].join('\n');
}
