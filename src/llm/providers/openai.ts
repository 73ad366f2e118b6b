import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParamsBase, ChatCompletionMessageParam, ChatCompletionToolChoiceOption } from 'openai/resources/chat/completions';
import { LlmCancelledError, LlmProviderError } from '../errors';
import { isStrictCompatible, parseArgumentsJson, toJsonSchema } from '../json-schema';
import type { ChatMessage, ChatRequest, ChatResponse, LanguageModel, StopReason, ToolCall, ToolChoice } from '../types';
import { DEFAULT_MAX_RETRIES, HttpModelBase, type HttpOptions, type ModelIdentity } from './common';
import { estimateTokens, fromSdkError } from './sdk-errors';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * OpenAI chat completions, and every server that speaks them through a base URL
 * (Ollama, LM Studio, vLLM, llama.cpp: the "local" class). Retries, backoff and timeouts
 * are the SDK's own.
 */
export class OpenAiModel extends HttpModelBase implements LanguageModel {
  readonly kind = 'openai' as const;
  private readonly client: OpenAI;

  constructor(identity: ModelIdentity, http: HttpOptions = {}) {
    super(identity, http, 'openai');
    this.client = new OpenAI({
      // Local servers take any key; the SDK insists on one.
      apiKey: http.apiKey ?? 'no-key',
      baseURL: http.baseURL ?? OPENAI_DEFAULT_BASE_URL,
      timeout: this.timeoutMs,
      maxRetries: http.maxRetries ?? DEFAULT_MAX_RETRIES,
    });
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const params = this.params(request);
    const options = { signal: request.signal, timeout: request.timeoutMs ?? this.timeoutMs };
    const ctx = { model: this.displayName, signal: request.signal, timeoutMs: options.timeout, secrets: [this.apiKey] };
    try {
      if (request.onPart) {
        const stream = await this.client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } }, options);
        return await this.readStream(stream, request);
      }
      const completion = await this.client.chat.completions.create({ ...params, stream: false }, options);
      return this.readCompletion(completion, request);
    } catch (error) {
      throw fromSdkError(error, OpenAI, ctx);
    }
  }

  private params(request: ChatRequest): ChatCompletionCreateParamsBase {
    const format = request.responseFormat;
    const schema = format ? toJsonSchema(format.schema) : undefined;
    const maxTokens = request.maxOutputTokens ?? this.maxOutputTokens;
    return {
      model: this.model,
      messages: toOpenAiMessages(request.messages),
      ...(request.tools && request.tools.length > 0
        ? {
            tools: request.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: toJsonSchema(t.parameters) } })),
            ...(request.toolChoice ? { tool_choice: toToolChoice(request.toolChoice) } : {}),
          }
        : {}),
      ...(format && schema
        ? {
            response_format: {
              type: 'json_schema' as const,
              json_schema: { name: format.name, ...(format.description ? { description: format.description } : {}), schema, strict: isStrictCompatible(schema) },
            },
          }
        : {}),
      // Older compatible servers know only max_tokens; OpenAI's newer models refuse it.
      ...(this.modelClass === 'local' ? { max_tokens: maxTokens } : { max_completion_tokens: maxTokens }),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    };
  }

  private readCompletion(completion: ChatCompletion, request: ChatRequest): ChatResponse {
    const choice = completion.choices[0];
    if (!choice) throw new LlmProviderError(this.displayName, 'bad-response', 'the reply has no choices');
    const text = choice.message.content ?? '';
    const toolCalls: ToolCall[] = (choice.message.tool_calls ?? []).flatMap((c) =>
      c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: parseArgumentsJson(c.function.arguments) }] : [],
    );
    return {
      text,
      toolCalls,
      stopReason: stopReasonOf(choice.finish_reason),
      usage: completion.usage
        ? { inputTokens: completion.usage.prompt_tokens, outputTokens: completion.usage.completion_tokens }
        : estimatedUsage(request, text, toolCalls),
      servedBy: completion.model,
    };
  }

  private async readStream(stream: AsyncIterable<ChatCompletionChunk>, request: ChatRequest): Promise<ChatResponse> {
    let text = '';
    let finish: string | null | undefined;
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
      for (const t of delta?.tool_calls ?? []) {
        const entry = partial.get(t.index) ?? { id: '', name: '', args: '' };
        if (t.id) entry.id = t.id;
        if (t.function?.name) entry.name += t.function.name;
        if (t.function?.arguments) entry.args += t.function.arguments;
        partial.set(t.index, entry);
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    // The SDKs end a stream quietly when its signal aborts; that is still a cancellation.
    if (request.signal?.aborted) throw new LlmCancelledError(this.displayName);
    // A connection closed cleanly before the stream's end must not pass for a short reply.
    if (finish == null) throw new LlmProviderError(this.displayName, 'connection', 'the stream ended before the reply was complete');
    const toolCalls: ToolCall[] = [...partial.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]) => ({ id: c.id || `call_${index}`, name: c.name, arguments: parseArgumentsJson(c.args) }));
    for (const call of toolCalls) request.onPart?.({ type: 'tool-call', call });
    return {
      text,
      toolCalls,
      stopReason: stopReasonOf(finish),
      usage: usage ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens } : estimatedUsage(request, text, toolCalls),
      servedBy,
    };
  }
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

function toToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

function stopReasonOf(finish: string | null | undefined): StopReason {
  if (finish === 'stop') return 'end';
  if (finish === 'tool_calls' || finish === 'function_call') return 'tool-calls';
  if (finish === 'length') return 'max-tokens';
  return 'other';
}

function estimatedUsage(request: ChatRequest, text: string, toolCalls: readonly ToolCall[]) {
  const input = request.messages.map((m) => m.content).join('\n');
  const output = text + toolCalls.map((c) => JSON.stringify(c.arguments)).join('');
  return { inputTokens: estimateTokens(input), outputTokens: estimateTokens(output), estimated: true };
}
