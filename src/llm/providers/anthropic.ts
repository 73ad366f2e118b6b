import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, Message, MessageCreateParamsBase, MessageParam, RawMessageStreamEvent, Tool, ToolChoice as AnthropicToolChoice } from '@anthropic-ai/sdk/resources/messages/messages';
import { LlmCancelledError, LlmProviderError } from '../errors';
import { parseArgumentsJson, toJsonSchema, type JsonSchema } from '../json-schema';
import type { ChatMessage, ChatRequest, ChatResponse, LanguageModel, StopReason, ToolCall, ToolChoice } from '../types';
import { DEFAULT_MAX_RETRIES, HttpModelBase, type HttpOptions, type ModelIdentity } from './common';
import { fromSdkError } from './sdk-errors';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** Tool input schemas must be objects; any other structured-output schema is wrapped in one. */
const WRAPPED = 'value';

/**
 * Anthropic messages. Structured output is a tool whose input schema is the requested
 * schema, forced with tool_choice, so the model's output is constrained to it.
 */
export class AnthropicModel extends HttpModelBase implements LanguageModel {
  readonly kind = 'anthropic' as const;
  private readonly client: Anthropic;

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
    const { params, formatTool } = this.params(request);
    const options = { signal: request.signal, timeout: request.timeoutMs ?? this.timeoutMs };
    const ctx = { model: this.displayName, signal: request.signal, timeoutMs: options.timeout, secrets: [this.apiKey] };
    try {
      if (request.onPart) {
        const stream = await this.client.messages.create({ ...params, stream: true }, options);
        return await this.readStream(stream, request, formatTool);
      }
      const message = await this.client.messages.create({ ...params, stream: false }, options);
      return this.readMessage(message, formatTool);
    } catch (error) {
      throw fromSdkError(error, Anthropic, ctx);
    }
  }

  private params(request: ChatRequest): { params: MessageCreateParamsBase; formatTool?: FormatTool } {
    const system = request.messages.flatMap((m) => (m.role === 'system' ? [m.content] : [])).join('\n\n');
    const tools: Tool[] = (request.tools ?? []).map((t) => ({ name: t.name, description: t.description, input_schema: toJsonSchema(t.parameters) as Tool.InputSchema }));
    let toolChoice: AnthropicToolChoice | undefined = request.toolChoice && tools.length > 0 ? toAnthropicToolChoice(request.toolChoice) : undefined;
    let formatTool: FormatTool | undefined;
    if (request.responseFormat) {
      const schema = toJsonSchema(request.responseFormat.schema);
      const wrapped = schema.type !== 'object';
      formatTool = { name: request.responseFormat.name, wrapped };
      tools.push({
        name: formatTool.name,
        description: request.responseFormat.description ?? `Give the answer as a ${formatTool.name}.`,
        input_schema: (wrapped ? { type: 'object', properties: { [WRAPPED]: schema }, required: [WRAPPED], additionalProperties: false } : schema) as Tool.InputSchema,
      });
      toolChoice = { type: 'tool', name: formatTool.name };
    }
    return {
      params: {
        model: this.model,
        max_tokens: request.maxOutputTokens ?? this.maxOutputTokens,
        messages: toAnthropicMessages(request.messages),
        ...(system ? { system } : {}),
        ...(tools.length > 0 ? { tools } : {}),
        ...(toolChoice ? { tool_choice: toolChoice } : {}),
      },
      formatTool,
    };
  }

  private readMessage(message: Message, formatTool: FormatTool | undefined): ChatResponse {
    let text = '';
    const calls: ToolCall[] = [];
    for (const block of message.content) {
      if (block.type === 'text') text += block.text;
      else if (block.type === 'tool_use') calls.push({ id: block.id, name: block.name, arguments: block.input });
    }
    return this.finish(text, calls, message.stop_reason, usageOf(message.usage), message.model, formatTool);
  }

  private async readStream(stream: AsyncIterable<RawMessageStreamEvent>, request: ChatRequest, formatTool: FormatTool | undefined): Promise<ChatResponse> {
    let text = '';
    let inputTokens = 0;
    let outputTokens = 0;
    let stop: string | null | undefined;
    let servedBy: string | undefined;
    const blocks = new Map<number, { id: string; name: string; json: string }>();
    const calls: ToolCall[] = [];
    for await (const event of stream) {
      switch (event.type) {
        case 'message_start':
          servedBy = event.message.model;
          inputTokens = usageOf(event.message.usage).inputTokens;
          outputTokens = event.message.usage.output_tokens ?? 0;
          break;
        case 'content_block_start':
          if (event.content_block.type === 'tool_use') blocks.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: '' });
          break;
        case 'content_block_delta':
          if (event.delta.type === 'text_delta') {
            text += event.delta.text;
            if (!formatTool) request.onPart?.({ type: 'text', text: event.delta.text });
          } else if (event.delta.type === 'input_json_delta') {
            const block = blocks.get(event.index);
            if (block) block.json += event.delta.partial_json;
          }
          break;
        case 'content_block_stop': {
          const block = blocks.get(event.index);
          if (block) {
            const call = { id: block.id, name: block.name, arguments: parseArgumentsJson(block.json) };
            calls.push(call);
            if (call.name !== formatTool?.name) request.onPart?.({ type: 'tool-call', call });
          }
          break;
        }
        case 'message_delta':
          stop = event.delta.stop_reason ?? stop;
          if (event.usage.output_tokens != null) outputTokens = event.usage.output_tokens;
          if (event.usage.input_tokens != null && event.usage.input_tokens > 0) inputTokens = event.usage.input_tokens + (event.usage.cache_read_input_tokens ?? 0) + (event.usage.cache_creation_input_tokens ?? 0);
          break;
        default:
          break;
      }
    }
    // The SDKs end a stream quietly when its signal aborts; that is still a cancellation.
    if (request.signal?.aborted) throw new LlmCancelledError(this.displayName);
    // A connection closed cleanly before the stream's end must not pass for a short reply.
    if (stop == null) throw new LlmProviderError(this.displayName, 'connection', 'the stream ended before the reply was complete');
    return this.finish(text, calls, stop, { inputTokens, outputTokens }, servedBy, formatTool);
  }

  private finish(text: string, calls: ToolCall[], stop: string | null | undefined, usage: { inputTokens: number; outputTokens: number }, servedBy: string | undefined, formatTool: FormatTool | undefined): ChatResponse {
    if (formatTool) {
      const answer = calls.find((c) => c.name === formatTool.name);
      if (!answer) {
        // No forced call (e.g. cut off by max_tokens): hand back the text, validation reports it.
        if (stop === 'max_tokens' && !text) throw new LlmProviderError(this.displayName, 'bad-response', 'the reply was cut off at max_tokens before the structured answer');
        return { text, toolCalls: [], stopReason: stopReasonOf(stop), usage, servedBy };
      }
      const value = formatTool.wrapped && answer.arguments && typeof answer.arguments === 'object' ? (answer.arguments as JsonSchema)[WRAPPED] : answer.arguments;
      return { text: typeof value === 'string' ? value : JSON.stringify(value), toolCalls: [], stopReason: 'end', usage, servedBy };
    }
    return { text, toolCalls: calls, stopReason: stopReasonOf(stop), usage, servedBy };
  }
}

interface FormatTool {
  readonly name: string;
  readonly wrapped: boolean;
}

/** System messages go to `system`; tool results become user turns of tool_result blocks. */
export function toAnthropicMessages(messages: readonly ChatMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        break;
      case 'user':
        push('user', [{ type: 'text', text: m.content }]);
        break;
      case 'assistant': {
        const blocks: ContentBlockParam[] = m.content ? [{ type: 'text', text: m.content }] : [];
        for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: (c.arguments ?? {}) as Record<string, unknown> });
        push('assistant', blocks.length > 0 ? blocks : [{ type: 'text', text: '(no reply)' }]);
        break;
      }
      case 'tool':
        push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content, ...(m.isError ? { is_error: true } : {}) }]);
        break;
    }
  }
  return out;
}

function toAnthropicToolChoice(choice: ToolChoice): AnthropicToolChoice {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any' };
  return { type: 'tool', name: choice.name };
}

function stopReasonOf(stop: string | null | undefined): StopReason {
  if (stop === 'end_turn' || stop === 'stop_sequence') return 'end';
  if (stop === 'tool_use') return 'tool-calls';
  if (stop === 'max_tokens') return 'max-tokens';
  return 'other';
}

function usageOf(usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number | null; cache_creation_input_tokens?: number | null }) {
  return {
    inputTokens: usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0),
    outputTokens: usage.output_tokens,
  };
}
