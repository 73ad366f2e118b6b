import { z } from 'zod';
import { parseYamlDataFile, type DataFileResult } from '../model/data-file';
import { EFFORT_LEVELS, type EffortLevel } from '../model';
import { BudgetOverride } from './budgets';
import { CatalogueEntry } from './catalogue';
import { ModelPriceSchema } from './prices';
import { MODEL_CLASSES, PROVIDER_KINDS, type ModelClass, type ModelRole } from './types';

/**
 * The model configuration: providers, the models they serve, and the routing profile that
 * picks a model per effort level and role. Pure data; `resolve.ts` turns it into models.
 */

const ID = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'ids are letters, digits, ".", "_", ":" and "-"');

export const ProviderConfig = z
  .object({
    id: ID,
    kind: z.enum(PROVIDER_KINDS),
    /** OpenAI-compatible servers (Ollama, LM Studio, vLLM, llama.cpp) or a proxy. */
    baseUrl: z.url().optional(),
    /** Default class of this provider's models; without it, a loopback base URL means local. */
    class: z.enum(MODEL_CLASSES).optional(),
    /** Name of the API key in the secret store; defaults to the provider id. */
    apiKeySecret: z.string().min(1).optional(),
    /** Environment variable read when the secret store has no key (defaults: OPENAI_API_KEY, ANTHROPIC_API_KEY). */
    apiKeyEnv: z.string().min(1).optional(),
    /** The script file of a scripted provider. */
    script: z.string().min(1).optional(),
    timeoutMs: z.number().int().positive().optional(),
    maxRetries: z.number().int().nonnegative().max(10).optional(),
  })
  .strict()
  .refine((p) => p.kind !== 'scripted' || p.script !== undefined, { message: 'a scripted provider needs `script`', path: ['script'] });
export type ProviderConfig = z.infer<typeof ProviderConfig>;

export const ModelConfig = z
  .object({
    id: ID,
    provider: ID,
    /** The model name the provider knows (e.g. "gpt-4.1-mini", "qwen2.5-coder:7b"); for vscode-lm a family or id. */
    model: z.string().min(1),
    class: z.enum(MODEL_CLASSES).optional(),
    prices: ModelPriceSchema.optional(),
    maxOutputTokens: z.number().int().positive().optional(),
  })
  .strict();
export type ModelConfig = z.infer<typeof ModelConfig>;

/** A model id for every role, or one per role. */
export const RoleRoute = z.union([ID, z.object({ manager: ID.optional(), specialist: ID.optional(), verifier: ID.optional() }).strict()]);
export type RoleRoute = z.infer<typeof RoleRoute>;

export const Escalation = z
  .object({
    enabled: z.boolean().default(true),
    /** The frontier model to escalate to; defaults to the first frontier model configured. */
    to: ID.optional(),
    /** Invalid structured outputs (each attempt counts) on a local model before escalating. */
    afterInvalidOutputs: z.number().int().positive().default(2),
    /** Failed calls (not cancellations) on a local model before escalating. */
    afterFailures: z.number().int().positive().default(2),
    /**
     * A structured answer from a local model whose confidence (its `confidence` field, 0–1,
     * or the caller's own figure) is under this is asked again of the frontier model.
     */
    confidenceBelow: z.number().min(0).max(1).default(0.5),
  })
  .strict();
export type Escalation = z.infer<typeof Escalation>;

/**
 * How a role uses the two classes: `local-first` (the default) starts local and escalates;
 * `frontier-only` always uses the frontier model; `local-only` never leaves the machine,
 * so it never escalates and may not be routed to a frontier model.
 */
export const ROLE_POLICIES = ['local-first', 'frontier-only', 'local-only'] as const;
export const RolePolicy = z.enum(ROLE_POLICIES);
export type RolePolicy = z.infer<typeof RolePolicy>;

export const RoleSettings = z.object({ policy: RolePolicy.default('local-first') }).strict();
export type RoleSettings = z.infer<typeof RoleSettings>;

/** Picks a model per effort level and role (local models first, escalating to a frontier model). */
export const RoutingProfile = z
  .object({
    /** The route for any level not listed (defaults to the first model). */
    default: RoleRoute.optional(),
    levels: z.object(Object.fromEntries(EFFORT_LEVELS.map((l) => [l, RoleRoute.optional()])) as Record<EffortLevel, z.ZodOptional<typeof RoleRoute>>).strict().optional(),
    escalation: Escalation.default({ enabled: true, afterInvalidOutputs: 2, afterFailures: 2, confidenceBelow: 0.5 }),
    roles: z.object({ manager: RoleSettings.optional(), specialist: RoleSettings.optional(), verifier: RoleSettings.optional() }).strict().optional(),
  })
  .strict();
export type RoutingProfile = z.infer<typeof RoutingProfile>;

export const LlmConfig = z
  .object({
    version: z.literal(1),
    providers: z.array(ProviderConfig).min(1, 'configure at least one provider'),
    models: z.array(ModelConfig).min(1, 'configure at least one model'),
    routing: RoutingProfile.default({ escalation: { enabled: true, afterInvalidOutputs: 2, afterFailures: 2, confidenceBelow: 0.5 } }),
    /** Token and money caps per effort level over the shipped budgets.yaml (see `BudgetLedger.forLevel`). */
    budgets: z.object(Object.fromEntries(EFFORT_LEVELS.map((l) => [l, BudgetOverride.optional()])) as Record<EffortLevel, z.ZodOptional<typeof BudgetOverride>>).strict().optional(),
    /** Catalogue entries of the workspace's own: models the shipped catalogue lacks, or newer facts about one it has. */
    catalogue: z.array(CatalogueEntry).optional(),
    /**
     * Prompt caching (cache breakpoints, a cache key per run and role, llama.cpp's
     * `cache_prompt`); on unless false, e.g. behind a proxy that refuses `cache_control`.
     */
    promptCache: z.boolean().optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const providers = new Set<string>();
    c.providers.forEach((p, i) => {
      if (providers.has(p.id)) ctx.addIssue({ code: 'custom', path: ['providers', i, 'id'], message: `duplicate provider id ${p.id}` });
      providers.add(p.id);
    });
    const models = new Set<string>();
    c.models.forEach((m, i) => {
      if (models.has(m.id)) ctx.addIssue({ code: 'custom', path: ['models', i, 'id'], message: `duplicate model id ${m.id}` });
      models.add(m.id);
      if (!providers.has(m.provider)) ctx.addIssue({ code: 'custom', path: ['models', i, 'provider'], message: `no provider "${m.provider}" is configured` });
    });
    const checkRoute = (route: RoleRoute | undefined, path: (string | number)[]) => {
      if (route === undefined) return;
      const entries = typeof route === 'string' ? [[undefined, route] as const] : Object.entries(route);
      for (const [role, id] of entries) {
        if (id !== undefined && !models.has(id)) ctx.addIssue({ code: 'custom', path: role ? [...path, role] : path, message: `no model "${id}" is configured` });
      }
    };
    checkRoute(c.routing.default, ['routing', 'default']);
    for (const level of EFFORT_LEVELS) checkRoute(c.routing.levels?.[level], ['routing', 'levels', level]);
    if (c.routing.escalation.to) checkRoute(c.routing.escalation.to, ['routing', 'escalation', 'to']);
  });
export type LlmConfig = z.infer<typeof LlmConfig>;
export type LlmConfigInput = z.input<typeof LlmConfig>;

/** The key variable a provider of each kind reads when its file names none. */
export const DEFAULT_KEY_ENV: Partial<Record<ProviderConfig['kind'], string>> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' };

/** Each vendor's key, and the one host it belongs to. */
export const VENDOR_KEY_HOSTS: Readonly<Record<string, string>> = { OPENAI_API_KEY: 'api.openai.com', ANTHROPIC_API_KEY: 'api.anthropic.com' };
const VENDOR_BASE_URL: Partial<Record<ProviderConfig['kind'], string>> = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com' };

/** A variable made for this product, so a file naming it cannot reach a key made for something else. */
export const PRODUCT_KEY_ENV = /^IDEAL_STATE_[A-Z0-9_]+_KEY$/;
export const ALLOWED_KEY_ENV_TEXT = 'OPENAI_API_KEY, ANTHROPIC_API_KEY or IDEAL_STATE_<NAME>_KEY';

/** Whether a models file that is not trusted may name this key variable. */
export function isAllowedKeyEnv(name: string): boolean {
  return name in VENDOR_KEY_HOSTS || PRODUCT_KEY_ENV.test(name);
}

/**
 * The key rule for a models file used without trust in its content (`--trust-workspace`):
 * a key variable only from the allow-list, and a vendor's key only to that vendor (over
 * HTTPS) or to this machine. A planted file otherwise sends any secret of the environment,
 * or the user's OpenAI key, to a server of its choosing.
 */
function untrustedKeyRule(config: LlmConfig, ctx: z.RefinementCtx): void {
  config.providers.forEach((p, i) => {
    const name = p.apiKeyEnv ?? DEFAULT_KEY_ENV[p.kind];
    if (name === undefined) return;
    if (!isAllowedKeyEnv(name)) {
      ctx.addIssue({ code: 'custom', path: ['providers', i, 'apiKeyEnv'], message: `${name} is not a key variable a models file may name before you trust it (allowed: ${ALLOWED_KEY_ENV_TEXT}); trust the file to use it` });
      return;
    }
    const target = p.baseUrl ?? VENDOR_BASE_URL[p.kind];
    if (target === undefined || PRODUCT_KEY_ENV.test(name) || isLoopback(target)) return;
    const url = new URL(target);
    if (url.protocol === 'https:' && url.hostname === VENDOR_KEY_HOSTS[name]) return;
    ctx.addIssue({
      code: 'custom',
      path: ['providers', i, p.baseUrl ? 'baseUrl' : 'kind'],
      message: `a models file you have not trusted may send ${name} only to https://${VENDOR_KEY_HOSTS[name]} or this machine, not to ${url.protocol}//${url.host}; name an IDEAL_STATE_<NAME>_KEY variable for this server, or trust the file`,
    });
  });
}

const UntrustedLlmConfig = LlmConfig.superRefine(untrustedKeyRule);

/**
 * Parses a model configuration file (YAML or JSON); problems carry file, line and field.
 * `untrusted`: the file's content was not trusted by the user, so the key rule applies.
 */
export function parseLlmConfig(file: string, text: string, options: { untrusted?: boolean } = {}): DataFileResult<LlmConfig> {
  return parseYamlDataFile(file, text, options.untrusted ? UntrustedLlmConfig : LlmConfig);
}

/** The model id routed to a role at an effort level: the level's route, else the default, else the first model. */
export function routeFor(config: LlmConfig, role: ModelRole, level: EffortLevel): string {
  const pick = (route: RoleRoute | undefined) => (route === undefined ? undefined : typeof route === 'string' ? route : route[role]);
  return pick(config.routing.levels?.[level]) ?? pick(config.routing.default) ?? config.models[0]!.id;
}

const LOOPBACK = /^(localhost|127(?:\.\d+){3}|\[?::1\]?|0\.0\.0\.0|host\.docker\.internal)$/i;

/** A model's class: its own, else its provider's, else local for a loopback base URL or a script, else frontier. */
export function classOf(model: ModelConfig, provider: ProviderConfig): ModelClass {
  if (model.class) return model.class;
  if (provider.class) return provider.class;
  if (provider.kind === 'scripted') return 'local';
  if (provider.baseUrl && isLoopback(provider.baseUrl)) return 'local';
  return 'frontier';
}

export function isLoopback(url: string): boolean {
  try {
    return LOOPBACK.test(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** A role's policy; `local-first` unless configured. */
export function policyFor(config: LlmConfig, role: ModelRole): RolePolicy {
  return config.routing.roles?.[role]?.policy ?? 'local-first';
}

/** Every (level, role) where the verifier shares the manager's model, so the editor can warn about independence. */
export function sharedVerifierRoutes(config: LlmConfig): { level: EffortLevel; model: string }[] {
  return EFFORT_LEVELS.flatMap((level) => {
    const verifier = routeFor(config, 'verifier', level);
    return verifier === routeFor(config, 'manager', level) ? [{ level, model: verifier }] : [];
  });
}

