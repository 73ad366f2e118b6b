// A scripted chat model registered with VS Code's own Language Model API, for the vscode.lm
// suite: VS Code lists it, routes requests and cancellation to it, and counts its tokens,
// exactly as for a real provider. It is a test tool, named as one wherever it shows
// ("scripted: vscode.lm test model"), and its vendor comes from the test-only extension in
// test/fixtures/scripted-chat-vendor, which the integration harness installs.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

export const TEST_VENDOR = 'ideal-state-test';
export const TEST_MODEL_ID = 'ideal-state-scripted';
export const TEST_MODEL_NAME = 'scripted: vscode.lm test model';

// The provider side of the Language Model API, final since VS Code 1.104. The extension
// builds against @types/vscode 1.95, which predates it, so the suite declares what it uses.
interface ChatInformation {
  readonly id: string;
  readonly name: string;
  readonly family: string;
  readonly version: string;
  readonly detail?: string;
  readonly maxInputTokens: number;
  readonly maxOutputTokens: number;
  readonly capabilities: { readonly toolCalling?: boolean };
}
export interface ChatResponseOptions {
  readonly tools?: readonly vscode.LanguageModelChatTool[];
  readonly toolMode: vscode.LanguageModelChatToolMode;
}
type ResponsePart = vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart;
interface ChatProvider {
  provideLanguageModelChatInformation(options: { readonly silent: boolean }, token: vscode.CancellationToken): ChatInformation[];
  provideLanguageModelChatResponse(model: ChatInformation, messages: readonly vscode.LanguageModelChatMessage[], options: ChatResponseOptions, progress: vscode.Progress<ResponsePart>, token: vscode.CancellationToken): Promise<void>;
  provideTokenCount(model: ChatInformation, text: string | vscode.LanguageModelChatMessage, token: vscode.CancellationToken): Promise<number>;
}
type LmWithProviders = typeof vscode.lm & { registerLanguageModelChatProvider?: (vendor: string, provider: ChatProvider) => vscode.Disposable };

/** What the provider was asked: the text of each message, the tools offered and the tool mode. */
export interface SeenRequest {
  readonly messages: readonly string[];
  readonly tools: readonly string[];
  readonly toolSchemas: readonly object[];
  readonly toolMode: vscode.LanguageModelChatToolMode;
}

/** One scripted turn: answers a request by reporting parts, and may wait on the token. */
export type Turn = (progress: vscode.Progress<ResponsePart>, token: vscode.CancellationToken, seen: SeenRequest) => Promise<void>;

/** Words, deterministically: the tests compute the same numbers the provider reports. */
export function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

export function messageText(message: vscode.LanguageModelChatMessage): string {
  return message.content
    .map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : part instanceof vscode.LanguageModelToolResultPart ? part.content.map((c) => (c instanceof vscode.LanguageModelTextPart ? c.value : '')).join('') : ''))
    .join('');
}

export class ScriptedChatProvider implements vscode.Disposable {
  readonly seen: SeenRequest[] = [];
  /** Cancellations the provider's token reported, one per cancelled request. */
  cancellations = 0;
  private readonly turns: Turn[] = [];
  private readonly registration: vscode.Disposable;

  constructor() {
    const lm = vscode.lm as LmWithProviders;
    assert.equal(typeof lm.registerLanguageModelChatProvider, 'function', 'vscode.lm.registerLanguageModelChatProvider exists in VS Code 1.104 and later');
    this.registration = lm.registerLanguageModelChatProvider!(TEST_VENDOR, {
      provideLanguageModelChatInformation: () => [
        {
          id: TEST_MODEL_ID,
          name: TEST_MODEL_NAME,
          family: 'ideal-state-scripted',
          version: '1',
          detail: 'Replays scripted replies for the integration tests; not a language model',
          maxInputTokens: 8000,
          maxOutputTokens: 1000,
          capabilities: { toolCalling: true },
        },
      ],
      provideLanguageModelChatResponse: async (_model, messages, options, progress, token) => {
        const seen: SeenRequest = {
          messages: messages.map(messageText),
          tools: (options.tools ?? []).map((t) => t.name),
          toolSchemas: (options.tools ?? []).map((t) => t.inputSchema ?? {}),
          toolMode: options.toolMode,
        };
        this.seen.push(seen);
        token.onCancellationRequested(() => (this.cancellations += 1));
        const turn = this.turns.shift();
        if (!turn) throw new Error(`the scripted test model has no reply left for request ${this.seen.length}`);
        await turn(progress, token, seen);
      },
      provideTokenCount: async (_model, text) => countWords(typeof text === 'string' ? text : messageText(text)),
    });
  }

  /** Queues the replies of the next requests, in order. */
  script(...turns: Turn[]): void {
    this.turns.push(...turns);
  }

  get unusedTurns(): number {
    return this.turns.length;
  }

  dispose(): void {
    this.registration.dispose();
  }
}

/** A turn that streams these texts one part at a time. */
export function says(...parts: string[]): Turn {
  return async (progress) => {
    for (const part of parts) {
      progress.report(new vscode.LanguageModelTextPart(part));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
}

/** A turn that calls a tool with this input (how structured output comes back). */
export function callsTool(name: string, input: object): Turn {
  return async (progress) => {
    progress.report(new vscode.LanguageModelToolCallPart('call-1', name, input));
  };
}

/** A turn that says something, then waits until the request is cancelled. */
export function hangsAfter(text: string): Turn {
  return async (progress, token) => {
    progress.report(new vscode.LanguageModelTextPart(text));
    await new Promise<void>((resolve) => (token.isCancellationRequested ? resolve() : token.onCancellationRequested(() => resolve())));
  };
}
