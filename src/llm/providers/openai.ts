import OpenAI from 'openai';
import type { ChatRequest, ChatResponse, LanguageModel } from '../types';
import { DEFAULT_MAX_RETRIES, HttpModelBase, type HttpOptions, type ModelIdentity } from './common';
import { chatParams, readChatStream, readCompletion, type OpenAiCall } from './openai-chat';
import { readResponse, readResponseStream, responseParams } from './openai-responses';
import { outputCap } from './openai-schema';
import { fromSdkError } from './sdk-errors';

export { toOpenAiMessages } from './openai-chat';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * OpenAI through the official SDK: OpenAI's own models through the Responses API, and every
 * server that speaks Chat Completions through a base URL (Ollama, LM Studio, vLLM,
 * llama.cpp: the "local" class). Which API and which parameters follow the model's
 * capabilities, read on every call because the adapter may change them between calls.
 * Retries, backoff and timeouts are the SDK's own; a 400 is never retried here.
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
    const caps = this.profile.capabilities;
    const call: OpenAiCall = {
      model: this.model,
      displayName: this.displayName,
      caps,
      maxOutputTokens: outputCap(request, this.maxOutputTokens, caps.maxOutputTokens),
      local: this.modelClass === 'local',
    };
    const options = { signal: request.signal, timeout: request.timeoutMs ?? this.timeoutMs };
    const ctx = { model: this.displayName, signal: request.signal, timeoutMs: options.timeout, secrets: [this.apiKey] };
    try {
      return caps.api === 'responses' ? await this.viaResponses(request, call, options) : await this.viaChatCompletions(request, call, options);
    } catch (error) {
      throw fromSdkError(error, OpenAI, ctx);
    }
  }

  private async viaResponses(request: ChatRequest, call: OpenAiCall, options: RequestOptions): Promise<ChatResponse> {
    const params = responseParams(request, call);
    if (request.onPart) {
      const stream = await this.client.responses.create({ ...params, stream: true }, options);
      return readResponseStream(stream, request, call);
    }
    const response = await this.client.responses.create({ ...params, stream: false }, options);
    return readResponse(response, request, call);
  }

  private async viaChatCompletions(request: ChatRequest, call: OpenAiCall, options: RequestOptions): Promise<ChatResponse> {
    const params = chatParams(request, call);
    if (request.onPart) {
      const stream = await this.client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } }, options);
      return readChatStream(stream, request, call);
    }
    const completion = await this.client.chat.completions.create({ ...params, stream: false }, options);
    return readCompletion(completion, request, call);
  }
}

interface RequestOptions {
  readonly signal?: AbortSignal;
  readonly timeout: number;
}
