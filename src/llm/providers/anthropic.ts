import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, Message, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import { callCancelled, LlmProviderError, LlmRefusalError, LlmTruncatedError } from '../errors';
import { parseArgumentsJson } from '../json-schema';
import { minCacheableTokens } from '../prompt-cache';
import type { ChatRequest, ChatResponse, LanguageModel, StopReason, TokenUsage, ToolCall } from '../types';
import { buildAnthropicRequest, WRAPPED, type AnthropicCall } from './anthropic-request';
import { ThinkingMemory } from './anthropic-thinking';
import { DEFAULT_MAX_RETRIES, HttpModelBase, type HttpOptions, type ModelIdentity } from './common';
import { fromSdkError } from './sdk-errors';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** A reply as read from either a message or a stream, before it becomes a `ChatResponse`. */
interface Reply {
  readonly content: readonly ContentBlock[];
  readonly stop: string | null | undefined;
  readonly usage: TokenUsage;
  readonly servedBy?: string;
}

/**
 * Anthropic messages. What each request may contain comes from the model's capabilities,
 * read on every call (see anthropic-request.ts): structured output through
 * `output_config.format`, a forced tool where the model allows one, or the schema in the prompt.
 * A cut-off structured reply and a refusal are typed errors, never an answer.
 */
export class AnthropicModel extends HttpModelBase implements LanguageModel {
  readonly kind = 'anthropic' as const;
  private readonly client: Anthropic;
  private readonly thinking = new ThinkingMemory();

  constructor(identity: ModelIdentity, http: HttpOptions = {}) {
    super(identity, http, 'anthropic');
    this.client = new Anthropic({
      // Passing the key (even null) keeps the SDK from reading credentials of its own.
      apiKey: http.apiKey ?? null,
      baseURL: http.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL,
      timeout: this.timeoutMs,
      maxRetries: http.maxRetries ?? DEFAULT_MAX_RETRIES,
    });
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const call = buildAnthropicRequest(this.model, request, this.profile.capabilities, {
      maxOutputTokens: this.maxOutputTokens,
      memory: this.thinking,
      minCacheTokens: minCacheableTokens(this.profile.entry ?? { family: '', name: this.model }),
    });
    const options = { signal: request.signal, timeout: request.timeoutMs ?? this.timeoutMs };
    const ctx = { model: this.displayName, signal: request.signal, timeoutMs: options.timeout, secrets: [this.apiKey] };
    let reply: Reply;
    try {
      if (request.onPart) {
        const stream = await this.client.messages.create({ ...call.params, stream: true }, options);
        reply = await this.readStream(stream, request, call);
      } else {
        reply = readMessage(await this.client.messages.create({ ...call.params, stream: false }, options));
      }
    } catch (error) {
      throw fromSdkError(error, Anthropic, ctx);
    }
    return this.finish(reply, call);
  }

  private async readStream(stream: AsyncIterable<RawMessageStreamEvent>, request: ChatRequest, call: AnthropicCall): Promise<Reply> {
    let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
    let stop: string | null | undefined;
    let servedBy: string | undefined;
    const blocks = new Map<number, { block: ContentBlock; json: string }>();
    const formatTool = call.structured?.mode === 'forced-tool' ? call.structured.name : undefined;
    for await (const event of stream) {
      switch (event.type) {
        case 'message_start':
          servedBy = event.message.model;
          usage = usageOf(event.message.usage);
          break;
        case 'content_block_start':
          blocks.set(event.index, { block: { ...event.content_block } as ContentBlock, json: '' });
          break;
        case 'content_block_delta': {
          const open = blocks.get(event.index);
          if (!open) break;
          const { block } = open;
          if (event.delta.type === 'text_delta' && block.type === 'text') {
            block.text += event.delta.text;
            if (!call.structured) request.onPart?.({ type: 'text', text: event.delta.text });
          } else if (event.delta.type === 'input_json_delta') open.json += event.delta.partial_json;
          else if (event.delta.type === 'thinking_delta' && block.type === 'thinking') block.thinking += event.delta.thinking;
          else if (event.delta.type === 'signature_delta' && block.type === 'thinking') block.signature = event.delta.signature;
          break;
        }
        case 'content_block_stop': {
          const open = blocks.get(event.index);
          if (open?.block.type === 'tool_use') {
            open.block.input = parseArgumentsJson(open.json);
            const call = { id: open.block.id, name: open.block.name, arguments: open.block.input };
            if (call.name !== formatTool) request.onPart?.({ type: 'tool-call', call });
          }
          break;
        }
        case 'message_delta':
          stop = event.delta.stop_reason ?? stop;
          // The final counts, where the event gives them; message_start's stand otherwise.
          // (message_delta carries no `cache_creation`: the 1-hour share stays message_start's.)
          if (event.usage.input_tokens != null && event.usage.input_tokens > 0) {
            const split = { ephemeral_1h_input_tokens: usage.cacheWrite1hTokens ?? 0 };
            usage = usageOf({ ...event.usage, input_tokens: event.usage.input_tokens, output_tokens: event.usage.output_tokens ?? usage.outputTokens, cache_creation: split });
          }
          else if (event.usage.output_tokens != null) usage = { ...usage, outputTokens: event.usage.output_tokens };
          break;
        default:
          break;
      }
    }
    // The SDKs end a stream quietly when its signal aborts; that is still a cancellation.
    if (request.signal?.aborted) throw callCancelled(this.displayName);
    // A connection closed cleanly before the stream's end must not pass for a short reply.
    if (stop == null) throw new LlmProviderError(this.displayName, 'connection', 'the stream ended before the reply was complete');
    const content = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, open]) => open.block);
    return { content, stop, usage, servedBy };
  }

  private finish(reply: Reply, call: AnthropicCall): ChatResponse {
    const text = reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    const calls: ToolCall[] = reply.content.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, arguments: b.input }] : []));
    const { usage, servedBy } = reply;
    // A refusal is never an answer, and never repaired in the same conversation
    // (https://platform.claude.com/docs/en/build-with-claude/refusals-and-fallback).
    if (reply.stop === 'refusal') throw new LlmRefusalError(this.displayName, text);
    const plan = call.structured;
    if (!plan) {
      this.thinking.remember(reply.content);
      return { text, toolCalls: calls, stopReason: stopReasonOf(reply.stop), usage, servedBy };
    }
    // A structured reply cut off at the cap "may be incomplete and not match your schema"
    // (https://platform.claude.com/docs/en/build-with-claude/structured-outputs#invalid-outputs).
    if (reply.stop === 'max_tokens' || reply.stop === 'model_context_window_exceeded') throw new LlmTruncatedError(this.displayName, call.maxTokens, reply.stop);
    const others = calls.filter((c) => c.name !== plan.name || plan.mode !== 'forced-tool');
    if (plan.mode === 'forced-tool') {
      const answer = calls.find((c) => c.name === plan.name);
      // No forced call: hand back the text, and validation says what is wrong with it.
      if (!answer) return { text, toolCalls: others, stopReason: stopReasonOf(reply.stop), usage, servedBy };
      return { text: answerText(answer.arguments, plan.wrapped), toolCalls: others, stopReason: 'end', usage, servedBy };
    }
    return { text: plan.wrapped ? unwrapText(text) : text, toolCalls: others, stopReason: stopReasonOf(reply.stop), usage, servedBy };
  }
}

function readMessage(message: Message): Reply {
  return { content: message.content, stop: message.stop_reason, usage: usageOf(message.usage), servedBy: message.model };
}

function answerText(value: unknown, wrapped: boolean): string {
  const inner = wrapped && value && typeof value === 'object' ? (value as Record<string, unknown>)[WRAPPED] : value;
  return typeof inner === 'string' ? inner : JSON.stringify(inner);
}

/** The JSON outputs' text is `{ "value": … }` when the schema was wrapped; anything unreadable goes to validation as it is. */
function unwrapText(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && WRAPPED in parsed ? JSON.stringify((parsed as Record<string, unknown>)[WRAPPED]) : text;
  } catch {
    return text;
  }
}

function stopReasonOf(stop: string | null | undefined): StopReason {
  if (stop === 'end_turn' || stop === 'stop_sequence') return 'end';
  if (stop === 'tool_use') return 'tool-calls';
  // The context window ran out mid-reply: as cut off as an output cap.
  if (stop === 'max_tokens' || stop === 'model_context_window_exceeded') return 'max-tokens';
  return 'other';
}

/**
 * Anthropic's `input_tokens` are only the tokens after the last cache breakpoint; reads
 * (`cache_read_input_tokens`) and writes (`cache_creation_input_tokens`, split by time to live
 * in `cache_creation`) come on top (https://platform.claude.com/docs/en/build-with-claude/prompt-caching#tracking-cache-performance).
 */
function usageOf(usage: {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_creation?: { ephemeral_1h_input_tokens?: number | null } | null;
}): TokenUsage {
  const read = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  const written1h = Math.min(written, usage.cache_creation?.ephemeral_1h_input_tokens ?? 0);
  return {
    inputTokens: usage.input_tokens + read + written,
    outputTokens: usage.output_tokens,
    ...(read > 0 ? { cachedInputTokens: read } : {}),
    ...(written > 0 ? { cacheWriteTokens: written } : {}),
    ...(written1h > 0 ? { cacheWrite1hTokens: written1h } : {}),
  };
}
