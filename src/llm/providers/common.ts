import { profileFor, shippedCatalogue, type ModelProfile } from '../catalogue';
import type { ModelClass, ModelPrice, ProviderKind } from '../types';

/** What every provider class is constructed with, besides its own connection details. */
export interface ModelIdentity {
  /** The configured model id. */
  readonly id: string;
  readonly providerId: string;
  /** The model name sent to the server. */
  readonly model: string;
  readonly modelClass: ModelClass;
  readonly displayName?: string;
  readonly price?: ModelPrice;
  /** The model's capabilities; built from the shipped catalogue when not given. */
  readonly profile?: ModelProfile;
}

export interface HttpOptions {
  readonly baseURL?: string;
  readonly apiKey?: string;
  /** Per-attempt timeout (the SDK's `timeout`). */
  readonly timeoutMs?: number;
  /** Retries on 408/409/429/5xx and connection errors, with backoff honouring retry-after (the SDK's `maxRetries`). */
  readonly maxRetries?: number;
  readonly maxOutputTokens?: number;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/** What every HTTP provider's model holds: who it is, and its timeout, output cap and key. */
export abstract class HttpModelBase {
  readonly id: string;
  readonly providerId: string;
  readonly model: string;
  readonly modelClass: ModelClass;
  readonly displayName: string;
  readonly price?: ModelPrice;
  readonly profile: ModelProfile;
  protected readonly timeoutMs: number;
  protected readonly maxOutputTokens: number;
  /** Kept only to redact it from errors a server might echo it in. */
  protected readonly apiKey?: string;

  constructor(identity: ModelIdentity, http: HttpOptions, kind: ProviderKind) {
    this.id = identity.id;
    this.providerId = identity.providerId;
    this.model = identity.model;
    this.modelClass = identity.modelClass;
    this.displayName = identity.displayName ?? identity.model;
    this.price = identity.price;
    this.profile = identity.profile ?? profileFor(shippedCatalogue(), kind, identity.model, identity.providerId, { local: identity.modelClass === 'local' });
    this.timeoutMs = http.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxOutputTokens = http.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
    this.apiKey = http.apiKey;
  }
}
