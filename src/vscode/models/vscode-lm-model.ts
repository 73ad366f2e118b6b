import * as vscode from 'vscode';
import type { ChatMessage, ChatRequest, ChatResponse, LanguageModel, ModelClass, ModelPrice, StreamPart, ToolCall } from '../../llm/types';
import { engine } from '../engine';

export interface VscodeLmIdentity {
  readonly id: string;
  readonly providerId: string;
  readonly modelClass: ModelClass;
  /** A model id or family, as `vscode.lm.selectChatModels` takes it. */
  readonly selector: string;
  /** Only when configured: VS Code's models are billed by their provider, so their cost is otherwise unknown. */
  readonly price?: ModelPrice;
}

/**
 * A model that VS Code already provides (`vscode.lm`): no key needed. It has no system
 * role and reports no usage, so system text goes first as a user message and tokens are
 * counted with the model's own tokenizer (marked estimated).
 */
export class VscodeLmModel implements LanguageModel {
  readonly kind = 'vscode-lm' as const;
  private chatModel: vscode.LanguageModelChat | undefined;

  constructor(private readonly identity: VscodeLmIdentity, chatModel?: vscode.LanguageModelChat) {
    this.chatModel = chatModel;
  }

  get id(): string {
    return this.identity.id;
  }
  get providerId(): string {
    return this.identity.providerId;
  }
  get model(): string {
    return this.identity.selector;
  }
  get modelClass(): ModelClass {
    return this.identity.modelClass;
  }
  get price(): ModelPrice | undefined {
    return this.identity.price;
  }
  get displayName(): string {
    return this.chatModel ? `VS Code: ${this.chatModel.name}` : `VS Code: ${this.identity.selector}`;
  }

  async countTokens(text: string, signal?: AbortSignal): Promise<number> {
    const model = await this.select();
    return withToken(signal, (token) => model.countTokens(text, token));
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const { callCancelled, LlmProviderError, LlmTimeoutError, toJsonSchema } = engine();
    const model = await this.select();
    if (request.signal?.aborted) throw callCancelled(this.id);
    const tools: vscode.LanguageModelChatTool[] = (request.tools ?? []).map((t) => ({ name: t.name, description: t.description, inputSchema: toJsonSchema(t.parameters) }));
    let toolMode: vscode.LanguageModelChatToolMode | undefined;
    if (request.responseFormat) {
      // Structured output through a forced tool whose input is the requested schema.
      tools.push({ name: request.responseFormat.name, description: request.responseFormat.description ?? 'Answer with this structure.', inputSchema: toJsonSchema(request.responseFormat.schema) });
      toolMode = vscode.LanguageModelChatToolMode.Required;
    } else if (request.toolChoice === 'required' || typeof request.toolChoice === 'object') {
      toolMode = vscode.LanguageModelChatToolMode.Required;
    }
    const messages = toVscodeMessages(request.messages);
    const started = Date.now();
    // vscode.lm has no timeout of its own: the timer cancels the request like the caller would.
    const timeout = new AbortController();
    const timer = request.timeoutMs !== undefined ? setTimeout(() => timeout.abort(), request.timeoutMs) : undefined;
    const signal = request.signal ? AbortSignal.any([request.signal, timeout.signal]) : timeout.signal;
    try {
      return await withToken(signal, async (token) => {
        const response = await model.sendRequest(messages, { tools: request.toolChoice === 'none' ? [] : tools, toolMode, justification: 'Ideal State runs The Algorithm on your request.' }, token);
        let text = '';
        const toolCalls: ToolCall[] = [];
        for await (const part of response.stream) {
          if (part instanceof vscode.LanguageModelTextPart) {
            text += part.value;
            emit(request.onPart, { type: 'text', text: part.value });
          } else if (part instanceof vscode.LanguageModelToolCallPart) {
            const call: ToolCall = { id: part.callId, name: part.name, arguments: part.input };
            if (request.responseFormat && part.name === request.responseFormat.name) text = JSON.stringify(part.input);
            else toolCalls.push(call);
            emit(request.onPart, { type: 'tool-call', call });
          }
        }
        // A stream can end quietly when cancelled; a cut-off reply is never returned as an answer.
        if (signal.aborted) throw new vscode.CancellationError();
        // vscode.lm reports no usage: count both sides with the model's own tokenizer.
        const inputTokens = (await Promise.all(messages.map((m) => model.countTokens(m, token)))).reduce((a, b) => a + b, 0);
        const produced = [text, ...toolCalls.map((c) => `${c.name} ${JSON.stringify(c.arguments)}`)].filter(Boolean).join('\n');
        const outputTokens = produced ? await model.countTokens(produced, token) : 0;
        return { text, toolCalls, stopReason: toolCalls.length > 0 ? 'tool-calls' : 'end', usage: { inputTokens, outputTokens, estimated: true }, servedBy: model.id };
      });
    } catch (error) {
      if (request.signal?.aborted) throw callCancelled(this.id);
      if (timeout.signal.aborted) throw new LlmTimeoutError(this.id, request.timeoutMs);
      if (error instanceof vscode.CancellationError) throw callCancelled(this.id);
      const elapsed = `after ${Date.now() - started} ms`;
      if (error instanceof vscode.LanguageModelError) {
        const failure = error.code === vscode.LanguageModelError.NoPermissions.name ? 'auth' : error.code === vscode.LanguageModelError.NotFound.name ? 'not-found' : error.code === vscode.LanguageModelError.Blocked.name ? 'rate-limit' : 'other';
        throw new LlmProviderError(this.id, failure, `VS Code language model failed ${elapsed}: ${error.message}`);
      }
      // Whatever the model's provider threw becomes a typed failure, so the router can count and escalate it.
      throw new LlmProviderError(this.id, 'other', `VS Code language model failed ${elapsed}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  private async select(): Promise<vscode.LanguageModelChat> {
    if (this.chatModel) return this.chatModel;
    const { LlmProviderError } = engine();
    const selector = this.identity.selector;
    const found = (await vscode.lm.selectChatModels({ id: selector }))[0] ?? (await vscode.lm.selectChatModels({ family: selector }))[0];
    if (!found) throw new LlmProviderError(this.id, 'not-found', `VS Code offers no language model "${selector}"; pick another with "Ideal State: Select Model"`);
    this.chatModel = found;
    return found;
  }
}

function emit(onPart: ((part: StreamPart) => void) | undefined, part: StreamPart): void {
  onPart?.(part);
}

function toVscodeMessages(messages: readonly ChatMessage[]): vscode.LanguageModelChatMessage[] {
  return messages.map((m) => {
    switch (m.role) {
      case 'system':
        return vscode.LanguageModelChatMessage.User(m.content);
      case 'user':
        return vscode.LanguageModelChatMessage.User(m.content);
      case 'assistant': {
        const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
        if (m.content) parts.push(new vscode.LanguageModelTextPart(m.content));
        for (const call of m.toolCalls ?? []) parts.push(new vscode.LanguageModelToolCallPart(call.id, call.name, (call.arguments ?? {}) as object));
        return vscode.LanguageModelChatMessage.Assistant(parts);
      }
      case 'tool':
        return vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(m.toolCallId, [new vscode.LanguageModelTextPart(m.content)])]);
    }
  });
}

/** Runs `body` with a CancellationToken that follows the AbortSignal. */
async function withToken<T>(signal: AbortSignal | undefined, body: (token: vscode.CancellationToken) => Thenable<T> | Promise<T>): Promise<T> {
  const source = new vscode.CancellationTokenSource();
  const cancel = () => source.cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    return await body(source.token);
  } finally {
    signal?.removeEventListener('abort', cancel);
    source.dispose();
  }
}
