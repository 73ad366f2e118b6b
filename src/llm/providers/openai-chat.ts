import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { ModelCapabilities } from '../catalogue';
import { callCancelled, LlmProviderError, LlmRefusalError, LlmTruncatedError } from '../errors';
import { parseArgumentsJson, toJsonSchema } from '../json-schema';
import type { ChatMessage, ChatRequest, ChatResponse, StopReason, ToolCall, ToolChoice } from '../types';
import { estimatedUsage, isStrictClean, strictSchemaOf, withSchemaInstruction } from './openai-schema';

/**
 * Chat Completions, for the servers that speak only it (Ollama, LM Studio, vLLM,
 * llama.cpp) and for OpenAI models the catalogue routes there. What is sent follows the
 * model's capabilities, read afresh on every call.
 */

/** Who a call is for and what it may send; built by OpenAiModel for each call. */
export interface OpenAiCall {
  /** The model name sent to the server. */
  readonly model: string;
  /** How errors name the model. */
  readonly displayName: string;
  readonly caps: ModelCapabilities;
  /** The output cap of this call. */
  readonly maxOutputTokens: number;
  /** A model on the user's machine (llama.cpp, vLLM, Ollama, LM Studio), not OpenAI's endpoint. */
  readonly local?: boolean;
}

/**
 * The cache fields of a call. OpenAI's own endpoint: `prompt_cache_key`, so the requests of one
 * run and role reach the machine that holds their prefix
 * (https://developers.openai.com/api/docs/guides/prompt-caching). A local server: llama.cpp's
 * `cache_prompt`, which keeps the previous prompt's KV cache and evaluates only the new suffix
 * (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md, POST /completion
 * and the OpenAI-compatible chat endpoint, which passes it on); vLLM's and Ollama's servers
 * cache prefixes on their own and ignore the field. Not sent when the request asks for no
 * caching, nor to OpenAI, which refuses fields it does not know.
 */
export function cacheFields(request: ChatRequest, call: OpenAiCall): { prompt_cache_key?: string; cache_prompt?: boolean } {
  if (request.cache === false) return {};
  if (call.local) return { cache_prompt: true };
  return request.cache?.key ? { prompt_cache_key: request.cache.key } : {};
}

export function chatParams(request: ChatRequest, call: OpenAiCall): ChatCompletionCreateParamsBase {
  const { caps } = call;
  const format = request.responseFormat;
  // Prompt-only servers get the schema in the prompt; the reply is validated like any other.
  const native = format !== undefined && caps.structuredOutput !== 'prompt-only';
  const messages = format && !native ? withSchemaInstruction(request.messages, format) : request.messages;
  const tools = caps.tools && request.tools && request.tools.length > 0 ? byName(request.tools) : undefined;
  const choice = tools && request.toolChoice ? toToolChoice(request.toolChoice, caps.forcedToolChoice) : undefined;
  // Only the two Chat Completions names exist here; a Responses name would be an unknown parameter.
  const capParam = caps.maxTokensParam === 'max_tokens' ? 'max_tokens' : 'max_completion_tokens';
  return {
    model: call.model,
    messages: toOpenAiMessages(messages),
    ...(tools
      ? {
          tools: tools.map((t) => {
            const strict = caps.strictSchemas ? strictSchemaOf(t.parameters) : undefined;
            const parameters = strict ?? toJsonSchema(t.parameters);
            return {
              type: 'function' as const,
              function: { name: t.name, description: t.description, parameters, ...(strict && isStrictClean(strict) ? { strict: true } : {}) },
            };
          }),
          ...(choice ? { tool_choice: choice } : {}),
        }
      : {}),
    ...(format && native ? { response_format: responseFormatOf(format, caps.strictSchemas) } : {}),
    [capParam]: call.maxOutputTokens,
    ...(caps.reasoningEffort ? { reasoning_effort: caps.reasoningEffort } : {}),
    ...(caps.sampling && request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...cacheFields(request, call),
  };
}

/** Tools sorted by name: the same tools are the same prompt prefix on every turn, whatever order a caller lists them in. */
export function byName<T extends { readonly name: string }>(tools: readonly T[]): T[] {
  return [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Chat Completions usage, with `prompt_tokens_details.cached_tokens` (a part of `prompt_tokens`) where given. */
function chatUsage(usage: NonNullable<ChatCompletion['usage']>): ChatResponse['usage'] {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, ...(cached > 0 ? { cachedInputTokens: cached } : {}) };
}

function responseFormatOf(format: NonNullable<ChatRequest['responseFormat']>, strictSchemas: boolean) {
  const strict = strictSchemas ? strictSchemaOf(format.schema) : undefined;
  const schema = strict ?? toJsonSchema(format.schema);
  return {
    type: 'json_schema' as const,
    json_schema: {
      name: format.name,
      ...(format.description ? { description: format.description } : {}),
      schema,
      ...(strict && isStrictClean(strict) ? { strict: true } : {}),
    },
  };
}

/** A forced choice (`required`, a named tool) only where the model takes one; otherwise the model decides. */
function toToolChoice(choice: ToolChoice, forcedAllowed: boolean): ChatCompletionToolChoiceOption | undefined {
  if (choice === 'auto' || choice === 'none') return choice;
  if (!forcedAllowed) return undefined;
  return choice === 'required' ? 'required' : { type: 'function', function: { name: choice.name } };
}

export function readCompletion(completion: ChatCompletion, request: ChatRequest, call: OpenAiCall): ChatResponse {
  const choice = completion.choices[0];
  if (!choice) throw new LlmProviderError(call.displayName, 'bad-response', 'the reply has no choices');
  const message = choice.message;
  const text = message.content ?? '';
  const toolCalls: ToolCall[] = (message.tool_calls ?? []).flatMap((c) =>
    c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: parseArgumentsJson(c.function.arguments) }] : [],
  );
  const stopReason = finish(choice.finish_reason, message.refusal ?? undefined, request, call);
  return {
    text,
    toolCalls,
    stopReason,
    usage: completion.usage
      ? chatUsage(completion.usage)
      : estimatedUsage(request, text, toolCalls),
    servedBy: completion.model,
  };
}

export async function readChatStream(stream: AsyncIterable<ChatCompletionChunk>, request: ChatRequest, call: OpenAiCall): Promise<ChatResponse> {
  let text = '';
  let refusal: string | undefined;
  let finishReason: string | null | undefined;
  let usage: ChatCompletion['usage'];
  let servedBy: string | undefined;
  const partial = new Map<number, { id: string; name: string; args: string }>();
  for await (const chunk of stream) {
    servedBy ??= chunk.model;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    const delta = choice.delta;
    if (delta?.content) {
      text += delta.content;
      request.onPart?.({ type: 'text', text: delta.content });
    }
    if (delta?.refusal) refusal = (refusal ?? '') + delta.refusal;
    for (const t of delta?.tool_calls ?? []) {
      const entry = partial.get(t.index) ?? { id: '', name: '', args: '' };
      if (t.id) entry.id = t.id;
      if (t.function?.name) entry.name += t.function.name;
      if (t.function?.arguments) entry.args += t.function.arguments;
      partial.set(t.index, entry);
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  // The SDKs end a stream quietly when its signal aborts; that is still a cancellation.
  if (request.signal?.aborted) throw callCancelled(call.displayName);
  // A connection closed cleanly before the stream's end must not pass for a short reply.
  if (finishReason == null) throw new LlmProviderError(call.displayName, 'connection', 'the stream ended before the reply was complete');
  const stopReason = finish(finishReason, refusal, request, call);
  const toolCalls: ToolCall[] = [...partial.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, c]) => ({ id: c.id || `call_${index}`, name: c.name, arguments: parseArgumentsJson(c.args) }));
  for (const c of toolCalls) request.onPart?.({ type: 'tool-call', call: c });
  return {
    text,
    toolCalls,
    stopReason,
    usage: usage ? chatUsage(usage) : estimatedUsage(request, text, toolCalls),
    servedBy,
  };
}

/**
 * How the reply ended. A refusal never passes for an answer; a structured reply cut off at
 * the cap cannot be trusted, so it is a typed truncation rather than a short answer.
 */
function finish(reason: string | null | undefined, refusal: string | undefined, request: ChatRequest, call: OpenAiCall): StopReason {
  if (refusal !== undefined && refusal !== '') throw new LlmRefusalError(call.displayName, refusal);
  if (reason === 'content_filter') throw new LlmRefusalError(call.displayName, '');
  if (reason === 'length' && request.responseFormat) throw new LlmTruncatedError(call.displayName, call.maxOutputTokens, 'length');
  if (reason === 'stop') return 'end';
  if (reason === 'tool_calls' || reason === 'function_call') return 'tool-calls';
  if (reason === 'length') return 'max-tokens';
  return 'other';
}

export function toOpenAiMessages(messages: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    switch (m.role) {
      case 'system':
      case 'user':
        return { role: m.role, content: m.content };
      case 'assistant':
        return {
          role: 'assistant',
          content: m.content,
          ...(m.toolCalls && m.toolCalls.length > 0
            ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.arguments ?? {}) } })) }
            : {}),
        };
      case 'tool':
        return { role: 'tool', tool_call_id: m.toolCallId, content: m.isError ? `Error: ${m.content}` : m.content };
    }
  });
}
