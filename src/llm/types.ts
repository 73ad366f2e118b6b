import type { z } from 'zod';
import type { ModelProfile } from './catalogue';

import type { ProviderKind } from './provider-kinds';

export { PROVIDER_KINDS, type ProviderKind } from './provider-kinds';

/**
 * The one interface every language model provider implements: OpenAI and compatible local
 * servers, Anthropic, VS Code's `vscode.lm` (in src/vscode) and the scripted replayer.
 */


/** Local models run on the user's machine (free, private, weaker); frontier models are hosted. */
export const MODEL_CLASSES = ['local', 'frontier'] as const;
export type ModelClass = (typeof MODEL_CLASSES)[number];

export interface ToolCall {
  /** The provider's id for this call; a tool result answers it by this id. */
  readonly id: string;
  readonly name: string;
  /** Parsed JSON arguments, not yet validated against the tool's schema (see `parseToolArguments`). */
  readonly arguments: unknown;
}

export type ChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls?: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly name: string; readonly content: string; readonly isError?: boolean };

/** A tool the model may call; its arguments are defined by a zod schema (JSON schema is generated). */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly parameters: S;
}

/** Asks the provider to constrain the reply to a JSON value of this schema. */
export interface ResponseFormat<S extends z.ZodType = z.ZodType> {
  /** A short identifier (letters, digits, _ and -), used as the schema or tool name. */
  readonly name: string;
  readonly description?: string;
  readonly schema: S;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { readonly name: string };

/** A piece of a streamed reply, delivered as it arrives. */
export type StreamPart = { readonly type: 'text'; readonly text: string } | { readonly type: 'tool-call'; readonly call: ToolCall };

export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly ToolDefinition[];
  readonly toolChoice?: ToolChoice;
  /**
   * Structured output. The reply's `text` is then the JSON the model produced (for
   * providers that answer through a forced tool call, that call's input as JSON).
   */
  readonly responseFormat?: ResponseFormat;
  readonly maxOutputTokens?: number;
  /** Ignored by providers that do not take it. */
  readonly temperature?: number;
  /** Cancels the call; the call then rejects with a CancelledError. */
  readonly signal?: AbortSignal;
  /** Per-attempt timeout; overrides the provider's default. */
  readonly timeoutMs?: number;
  /** When set, the provider streams and calls this for each part as it arrives. */
  readonly onPart?: (part: StreamPart) => void;
  /**
   * Prompt caching: absent, the provider's caching with no key; `false`, none asked for (no
   * breakpoints, no key: what a run would pay without it, for the token bench).
   */
  readonly cache?: PromptCacheRequest | false;
}

/** How a request asks for its prefix to be cached (see src/llm/prompt-cache.ts). */
export interface PromptCacheRequest {
  /** Requests of one run and role share it (OpenAI's `prompt_cache_key`). */
  readonly key?: string;
  /** How long a cached prefix must live (Anthropic's `cache_control.ttl`); default 5 minutes. */
  readonly ttl?: CacheTtl;
}

export type CacheTtl = '5m' | '1h';

export interface TokenUsage {
  /** Every input token of the call: fresh, read from the prompt cache and written to it. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Of `inputTokens`, read from the provider's prompt cache. */
  readonly cachedInputTokens?: number;
  /** Of `inputTokens`, written to the prompt cache (Anthropic bills them above the input price). */
  readonly cacheWriteTokens?: number;
  /** Of `cacheWriteTokens`, written with the 1-hour time to live. */
  readonly cacheWrite1hTokens?: number;
  /** True when the provider reports no usage and the numbers are counted or guessed (vscode.lm). */
  readonly estimated?: boolean;
}

export type StopReason = 'end' | 'tool-calls' | 'max-tokens' | 'other';

export interface ChatResponse {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly stopReason: StopReason;
  readonly usage: TokenUsage;
  /** The model name the server reports having used, when it says. */
  readonly servedBy?: string;
}

/** Prices in US dollars per million tokens. */
export interface ModelPrice {
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
}

export interface LanguageModel {
  /** The configured model id, unique in a configuration (e.g. "big", or "openai:gpt-4.1-mini"). */
  readonly id: string;
  /** The configured provider id (e.g. "openai", "ollama"). */
  readonly providerId: string;
  readonly kind: ProviderKind;
  /** The model name sent to the provider. */
  readonly model: string;
  readonly modelClass: ModelClass;
  /** How to show this model to a person; a scripted model always reads "scripted: <script>". */
  readonly displayName: string;
  /**
   * A scripted demo's scope (its script's `demo:`, e.g. "the README's request"): it answers that
   * request only, so it is not called by Check Model and judges no Custom criterion.
   */
  readonly demo?: string;
  /** A configured price that wins over the shipped price table. */
  readonly price?: ModelPrice;
  chat(request: ChatRequest): Promise<ChatResponse>;
  /** What the model accepts (catalogue facts plus lessons from its server); HTTP providers have one. */
  readonly profile?: ModelProfile;
  /** Token count of a text, when the provider can count (vscode.lm can). */
  countTokens?(text: string, signal?: AbortSignal): Promise<number>;
}

/** Where API keys come from; the editor backs it with SecretStorage, the command line with the environment. */
export interface SecretSource {
  get(name: string): Promise<string | undefined>;
}

/** Roles that call models. */
export const MODEL_ROLES = ['manager', 'specialist', 'verifier'] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];
