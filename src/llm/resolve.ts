import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { Logger } from '../model/log';
import { registerSecrets } from '../model/redaction';
import { adaptive } from './adapt';
import { assertNotRetired, extendCatalogue, profileFor, shippedCatalogue, todayIso, type Catalogue, type ModelLesson } from './catalogue';
import { LlmConfigError, ModelRetiredError, ScriptError } from './errors';
import { classOf, DEFAULT_KEY_ENV, isLoopback, LlmConfig, type LlmConfigInput, type ModelConfig, type ProviderConfig } from './config';
import { AnthropicModel } from './providers/anthropic';
import { OpenAiModel, OPENAI_DEFAULT_BASE_URL } from './providers/openai';
import { ScriptedModel } from './providers/scripted';
import type { LanguageModel, ModelClass, SecretSource } from './types';

/**
 * Models used when only an API key is set and no `--model` is given: the catalogue's current
 * defaults, read when first asked for (loading this module parses no catalogue).
 */
export const DEFAULT_MODELS: Readonly<{ openai: string; anthropic: string }> = Object.freeze({
  get openai() {
    return shippedCatalogue().defaults.openai;
  },
  get anthropic() {
    return shippedCatalogue().defaults.anthropic;
  },
});

export type Env = Readonly<Record<string, string | undefined>>;

/** A configured model, or why it cannot be used (never the key itself). */
export type ModelSlot = { readonly ok: true; readonly model: LanguageModel } | { readonly ok: false; readonly id: string; readonly modelClass: ModelClass; readonly reason: string };

export interface ResolvedModels {
  readonly config: LlmConfig;
  readonly slots: ReadonlyMap<string, ModelSlot>;
  /** Where the configuration came from, for the log and the status line. */
  readonly source: 'config' | 'environment';
  /** The shipped catalogue with the models file's own entries on top (absent: the shipped one). */
  readonly catalogue?: Catalogue;
}

/** Builds a model for providers this layer cannot construct (the editor adds `vscode-lm`). */
export type ModelFactory = (model: ModelConfig, provider: ProviderConfig, modelClass: ModelClass) => LanguageModel;

export interface ResolveOptions {
  readonly env?: Env;
  readonly secrets?: SecretSource;
  /** `--model`: with a configuration, a model id that then serves every role; without one, the model name. */
  readonly model?: string;
  /** `--provider` for the environment fallback when both keys are set. */
  readonly provider?: 'openai' | 'anthropic';
  /** Folder that relative script paths are resolved against. */
  readonly baseDir?: string;
  readonly readText?: (path: string) => Promise<string>;
  readonly factories?: Partial<Record<ProviderConfig['kind'], ModelFactory>>;
  /** What servers refused before (from the store), so a known refusal is not met again. */
  readonly lessons?: readonly ModelLesson[];
  /** A server refused something new and the call was adapted (adapt.ts): store it, show it. */
  readonly onLesson?: (lesson: ModelLesson, model: LanguageModel) => void;
  /** Where adaptations are logged. */
  readonly logger?: Logger;
  /** Today's date for shutdown checks (tests pin it). */
  readonly now?: () => Date;
}

/**
 * Turns a configuration (or, with none, the environment) into models. Keys come from the
 * secret source first, the environment second. A frontier provider without a key leaves
 * its models unavailable with a reason; routing to one is then a config error.
 */
export async function resolveModels(config: LlmConfigInput | undefined, options: ResolveOptions = {}): Promise<ResolvedModels> {
  const env = options.env ?? {};
  let effective: LlmConfig;
  let source: ResolvedModels['source'];
  if (config) {
    const parsed = LlmConfig.safeParse(config);
    if (!parsed.success) throw new LlmConfigError(`model configuration is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    effective = options.model ? pinModel(parsed.data, options.model) : parsed.data;
    source = 'config';
  } else {
    effective = configFromEnv(env, options);
    source = 'environment';
  }
  const catalogue = extendCatalogue(shippedCatalogue(), effective.catalogue);
  const slots = new Map<string, ModelSlot>();
  for (const model of effective.models) {
    const provider = effective.providers.find((p) => p.id === model.provider)!;
    slots.set(model.id, await build(model, provider, env, options, catalogue));
  }
  return { config: effective, slots, source, catalogue };
}

/** With nothing configured: the provider whose key is set serves every role; `--model` picks the model. */
export function configFromEnv(env: Env, options: Pick<ResolveOptions, 'model' | 'provider'> = {}): LlmConfig {
  const baseUrl = env.OPENAI_BASE_URL?.trim() || undefined;
  const openai = Boolean(env.OPENAI_API_KEY || baseUrl);
  const anthropic = Boolean(env.ANTHROPIC_API_KEY);
  let kind: 'openai' | 'anthropic' | undefined = options.provider;
  if (kind === 'openai' && !openai) throw new LlmConfigError('--provider openai needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)');
  if (kind === 'anthropic' && !anthropic) throw new LlmConfigError('--provider anthropic needs ANTHROPIC_API_KEY');
  kind ??= anthropic && (!openai || /^claude/i.test(options.model ?? '')) ? 'anthropic' : openai ? 'openai' : undefined;
  if (!kind) {
    throw new LlmConfigError('no language model is configured: set OPENAI_API_KEY or ANTHROPIC_API_KEY (or OPENAI_BASE_URL for a local server), or configure models');
  }
  let model = options.model;
  if (!model) {
    if (kind === 'openai' && baseUrl && baseUrl.replace(/\/+$/, '') !== OPENAI_DEFAULT_BASE_URL) {
      throw new LlmConfigError(`pass --model: the server at OPENAI_BASE_URL serves models by name`);
    }
    model = DEFAULT_MODELS[kind];
  }
  const provider: ProviderConfig = kind === 'openai' ? { id: 'openai', kind, ...(baseUrl ? { baseUrl } : {}) } : { id: 'anthropic', kind };
  const id = model.replace(/[^A-Za-z0-9._:-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'model';
  return LlmConfig.parse({ version: 1, providers: [provider], models: [{ id, provider: provider.id, model }], routing: { default: id } });
}

/** `--model` with a configuration: that model serves every role at every level. */
function pinModel(config: LlmConfig, id: string): LlmConfig {
  if (!config.models.some((m) => m.id === id)) {
    throw new LlmConfigError(`--model ${id} is not a configured model; configured: ${config.models.map((m) => m.id).join(', ')}`);
  }
  return { ...config, routing: { ...config.routing, default: id, levels: undefined } };
}

async function build(model: ModelConfig, provider: ProviderConfig, env: Env, options: ResolveOptions, catalogue: Catalogue): Promise<ModelSlot> {
  const modelClass = classOf(model, provider);
  const unavailable = (reason: string): ModelSlot => ({ ok: false, id: model.id, modelClass, reason });
  const profile =
    provider.kind === 'openai' || provider.kind === 'anthropic'
      ? profileFor(catalogue, provider.kind, model.model, provider.id, { local: modelClass === 'local', lessons: options.lessons })
      : undefined;
  try {
    assertNotRetired(profile?.entry, model.model, todayIso(options.now?.()));
  } catch (error) {
    if (error instanceof ModelRetiredError) return unavailable(error.message);
    throw error;
  }
  const identity = { id: model.id, providerId: provider.id, model: model.model, modelClass, price: model.prices, ...(profile ? { profile } : {}) };
  const factory = options.factories?.[provider.kind];
  if (factory) return { ok: true, model: adaptive(factory(model, provider, modelClass), { logger: options.logger, onLesson: options.onLesson }) };
  switch (provider.kind) {
    case 'openai':
    case 'anthropic': {
      const apiKey = await keyFor(provider, env, options.secrets);
      const local = provider.baseUrl !== undefined && isLoopback(provider.baseUrl);
      if (!apiKey && !local) {
        const envName = provider.apiKeyEnv ?? DEFAULT_KEY_ENV[provider.kind];
        return unavailable(`provider "${provider.id}" has no API key: use "Ideal State: Set API Key"${envName ? ` or set ${envName}` : ''}`);
      }
      const http = { baseURL: provider.baseUrl, apiKey, timeoutMs: provider.timeoutMs, maxRetries: provider.maxRetries, maxOutputTokens: model.maxOutputTokens };
      const built = provider.kind === 'openai' ? new OpenAiModel(identity, http) : new AnthropicModel(identity, http);
      return { ok: true, model: adaptive(built, { logger: options.logger, onLesson: options.onLesson }) };
    }
    case 'scripted': {
      const file = options.baseDir && !isAbsolute(provider.script!) ? join(options.baseDir, provider.script!) : provider.script!;
      let text: string;
      try {
        text = await (options.readText ?? ((p: string) => readFile(p, 'utf8')))(file);
      } catch (e) {
        throw new ScriptError(file, undefined, `cannot read the script (${e instanceof Error ? e.message : String(e)})`);
      }
      return { ok: true, model: ScriptedModel.fromText(file, text, { id: model.id, providerId: provider.id, modelClass }) };
    }
    case 'vscode-lm':
      return unavailable(`provider "${provider.id}" (vscode-lm) is only available inside the editor`);
  }
}

async function keyFor(provider: ProviderConfig, env: Env, secrets: SecretSource | undefined): Promise<string | undefined> {
  const stored = await secrets?.get(provider.apiKeySecret ?? provider.id);
  // A key the process holds is redacted from every evidence text (model/redaction.ts).
  if (stored) return registered(stored);
  const name = provider.apiKeyEnv ?? DEFAULT_KEY_ENV[provider.kind];
  return registered((name && env[name]) || undefined);
}

function registered(key: string | undefined): string | undefined {
  registerSecrets([key]);
  return key;
}

/** Secrets from a plain map, for tests and the command line. */
export class MemorySecrets implements SecretSource {
  constructor(private readonly values: Readonly<Record<string, string>> = {}) {}
  async get(name: string): Promise<string | undefined> {
    return this.values[name];
  }
}
