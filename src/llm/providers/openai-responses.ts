import type {
  FunctionTool,
  Response,
  ResponseCreateParamsBase,
  ResponseFunctionToolCall,
  ResponseInputItem,
  ResponseOutputItem,
  ResponseStreamEvent,
  ToolChoiceFunction,
  ToolChoiceOptions,
} from 'openai/resources/responses/responses';
import { callCancelled, LlmProviderError, LlmRefusalError, LlmTruncatedError } from '../errors';
import { parseArgumentsJson } from '../json-schema';
import type { ChatMessage, ChatRequest, ChatResponse, ResponseFormat, StopReason, ToolCall, ToolChoice } from '../types';
import { byName, cacheFields, type OpenAiCall } from './openai-chat';
import { estimatedUsage, isStrictClean, strictSchemaOf, withSchemaInstruction } from './openai-schema';

/**
 * OpenAI's Responses API (POST /v1/responses), the API OpenAI's current models are called
 * through: https://platform.openai.com/docs/api-reference/responses/create. Nothing is
 * stored on OpenAI's side (`store: false`); the whole conversation goes as `input` items.
 */

export function responseParams(request: ChatRequest, call: OpenAiCall): ResponseCreateParamsBase {
  const { caps } = call;
  const format = request.responseFormat;
  const native = format !== undefined && caps.structuredOutput !== 'prompt-only';
  const messages = format && !native ? withSchemaInstruction(request.messages, format) : request.messages;
  const { instructions, input } = toResponseInput(messages);
  const tools = caps.tools && request.tools && request.tools.length > 0 ? byName(request.tools) : undefined;
  const choice = tools && request.toolChoice ? toToolChoice(request.toolChoice, caps.forcedToolChoice) : undefined;
  return {
    model: call.model,
    ...(instructions ? { instructions } : {}),
    input,
    ...(tools
      ? {
          tools: tools.map((t): FunctionTool => {
            const parameters = strictSchemaOf(t.parameters);
            return { type: 'function', name: t.name, description: t.description, parameters, strict: isStrictClean(parameters) };
          }),
          ...(choice ? { tool_choice: choice } : {}),
        }
      : {}),
    ...(format && native ? { text: { format: textFormatOf(format) } } : {}),
    max_output_tokens: call.maxOutputTokens,
    ...(caps.reasoningEffort ? { reasoning: { effort: caps.reasoningEffort } } : {}),
    ...(caps.sampling && request.temperature !== undefined ? { temperature: request.temperature } : {}),
    // Not `previous_response_id`: it needs `store: true` (the conversation kept on OpenAI's side),
    // and the full input with a stable prefix and a cache key is billed the same on a hit.
    store: false,
    ...cacheFields(request, { ...call, local: false }),
  };
}

/** `text.format` for structured output: the strict-clean schema, `strict: true` (unless the schema cannot be made clean). */
function textFormatOf(format: ResponseFormat) {
  const schema = strictSchemaOf(format.schema);
  return {
    type: 'json_schema' as const,
    name: format.name,
    ...(format.description ? { description: format.description } : {}),
    schema,
    strict: isStrictClean(schema),
  };
}

/**
 * Our conversation as Responses input: the leading system messages become `instructions`,
 * a later one a developer message; an assistant's tool calls become `function_call` items
 * and tool results `function_call_output` items, paired by `call_id`.
 */
export function toResponseInput(messages: readonly ChatMessage[]): { instructions?: string; input: ResponseInputItem[] } {
  let leading = 0;
  while (messages[leading]?.role === 'system') leading++;
  const instructions = messages.slice(0, leading).map((m) => m.content).join('\n\n');
  const input: ResponseInputItem[] = [];
  for (const m of messages.slice(leading)) {
    switch (m.role) {
      case 'system':
        input.push({ role: 'developer', content: m.content });
        break;
      case 'user':
        input.push({ role: 'user', content: m.content });
        break;
      case 'assistant':
        if (m.content) input.push({ role: 'assistant', content: m.content });
        for (const c of m.toolCalls ?? []) {
          input.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: JSON.stringify(c.arguments ?? {}) });
        }
        break;
      case 'tool':
        input.push({ type: 'function_call_output', call_id: m.toolCallId, output: m.isError ? `Error: ${m.content}` : m.content });
        break;
    }
  }
  return { ...(instructions ? { instructions } : {}), input };
}

function toToolChoice(choice: ToolChoice, forcedAllowed: boolean): ToolChoiceOptions | ToolChoiceFunction | undefined {
  if (choice === 'auto' || choice === 'none') return choice;
  if (!forcedAllowed) return undefined;
  return choice === 'required' ? 'required' : { type: 'function', name: choice.name };
}

/** What the output items say, before the response's status is applied. */
interface Collected {
  text: string;
  refusal?: string;
  toolCalls: ToolCall[];
}

function collect(output: readonly ResponseOutputItem[]): Collected {
  const out: Collected = { text: '', toolCalls: [] };
  for (const item of output) {
    if (item.type === 'message') {
      for (const part of item.content) {
        if (part.type === 'output_text') out.text += part.text;
        else if (part.type === 'refusal') out.refusal = (out.refusal ?? '') + part.refusal;
      }
    } else if (item.type === 'function_call') {
      out.toolCalls.push(toolCallOf(item));
    }
    // Reasoning items (and any other kind) carry nothing the caller reads.
  }
  return out;
}

function toolCallOf(item: ResponseFunctionToolCall): ToolCall {
  return { id: item.call_id, name: item.name, arguments: parseArgumentsJson(item.arguments) };
}

export function readResponse(response: Response, request: ChatRequest, call: OpenAiCall): ChatResponse {
  // A 200 that is not a response object (a Chat Completions body, a proxy's page) must not read as an empty answer.
  if (!Array.isArray(response.output)) throw new LlmProviderError(call.displayName, 'bad-response', 'the reply is not a Responses API response (it has no output)');
  const collected = collect(response.output);
  return finish(response, collected, request, call);
}

/**
 * Applies the response's end: a refusal or a content filter is a typed refusal, a
 * structured reply cut off at the cap a typed truncation, a failed response an error.
 */
function finish(response: Response, collected: Collected, request: ChatRequest, call: OpenAiCall): ChatResponse {
  const { text, toolCalls } = collected;
  if (collected.refusal !== undefined) throw new LlmRefusalError(call.displayName, collected.refusal);
  if (response.status === 'failed') {
    throw new LlmProviderError(call.displayName, 'server', `the response failed: ${response.error?.message ?? 'no reason given'}`);
  }
  let stopReason: StopReason = toolCalls.length > 0 ? 'tool-calls' : 'end';
  if (response.status === 'incomplete') {
    const reason = response.incomplete_details?.reason ?? 'incomplete';
    if (reason === 'content_filter') throw new LlmRefusalError(call.displayName, '');
    if (request.responseFormat) throw new LlmTruncatedError(call.displayName, call.maxOutputTokens, reason);
    stopReason = reason === 'max_output_tokens' ? 'max-tokens' : 'other';
  }
  return {
    text,
    toolCalls,
    stopReason,
    usage: response.usage
      ? responsesUsage(response.usage)
      : estimatedUsage(request, text, toolCalls),
    servedBy: response.model,
  };
}

/**
 * Responses usage: `input_tokens_details.cached_tokens` read from the cache and, on models
 * that report it, `cache_write_tokens` written to it, both parts of `input_tokens`.
 */
function responsesUsage(usage: NonNullable<Response['usage']>): ChatResponse['usage'] {
  const details = usage.input_tokens_details as { cached_tokens?: number; cache_write_tokens?: number } | undefined;
  const cached = details?.cached_tokens ?? 0;
  const written = details?.cache_write_tokens ?? 0;
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    ...(cached > 0 ? { cachedInputTokens: cached } : {}),
    ...(written > 0 ? { cacheWriteTokens: written } : {}),
  };
}

/**
 * Reads the Responses event stream (https://platform.openai.com/docs/api-reference/responses-streaming):
 * text deltas go to `onPart` as they come, a function call once its item is done. The
 * stream must end with `response.completed`, `response.incomplete` or `response.failed`.
 */
export async function readResponseStream(stream: AsyncIterable<ResponseStreamEvent>, request: ChatRequest, call: OpenAiCall): Promise<ChatResponse> {
  const collected: Collected = { text: '', toolCalls: [] };
  // Function calls by item id, in output order, until their item is done.
  const calls = new Map<string, { callId: string; name: string; args: string; done: boolean }>();
  const complete = (id: string, item?: ResponseFunctionToolCall) => {
    const entry = calls.get(id);
    if (entry?.done) return;
    const toolCall = item ? toolCallOf(item) : { id: entry!.callId, name: entry!.name, arguments: parseArgumentsJson(entry!.args) };
    calls.set(id, { callId: toolCall.id, name: toolCall.name, args: '', done: true });
    collected.toolCalls.push(toolCall);
    request.onPart?.({ type: 'tool-call', call: toolCall });
  };
  let terminal: Response | undefined;
  for await (const event of stream) {
    switch (event.type) {
      case 'response.output_text.delta':
        collected.text += event.delta;
        request.onPart?.({ type: 'text', text: event.delta });
        break;
      case 'response.refusal.done':
        collected.refusal = event.refusal;
        break;
      case 'response.output_item.added':
        if (event.item.type === 'function_call') {
          calls.set(event.item.id ?? event.item.call_id, { callId: event.item.call_id, name: event.item.name, args: event.item.arguments, done: false });
        }
        break;
      case 'response.function_call_arguments.delta': {
        const entry = calls.get(event.item_id);
        if (entry && !entry.done) entry.args += event.delta;
        break;
      }
      case 'response.function_call_arguments.done': {
        const entry = calls.get(event.item_id);
        if (entry && !entry.done) entry.args = event.arguments;
        break;
      }
      case 'response.output_item.done':
        if (event.item.type === 'function_call') complete(event.item.id ?? event.item.call_id, event.item);
        else if (event.item.type === 'message' && collected.refusal === undefined) collected.refusal = collect([event.item]).refusal;
        break;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        terminal = event.response;
        break;
      case 'error':
        throw new LlmProviderError(call.displayName, 'server', `the stream reported an error: ${event.message}`, undefined, undefined, event.param ?? undefined);
      default:
        // Reasoning, content-part and annotation events carry nothing the caller reads.
        break;
    }
  }
  if (request.signal?.aborted) throw callCancelled(call.displayName);
  if (!terminal) throw new LlmProviderError(call.displayName, 'connection', 'the stream ended before the reply was complete');
  // A call whose item never closed (the response was cut off) still counts, as its arguments stand.
  for (const [id, entry] of calls) if (!entry.done) complete(id);
  return finish(terminal, collected, request, call);
}
