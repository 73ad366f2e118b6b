import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DataFileProblem } from '../../model/data-file';
import type { Logger } from '../../model/log';
import type { EffortLevel } from '../../model';
import type { Settings } from '../../model/settings';
import type { KeyProvider } from '../../llm/api-keys';
import type { BudgetLedger, BudgetLimits, Catalogue, EditorModelInfo, LanguageModel, LlmConfig, LlmConfigInput, ModelRouter, ModelSlot, ResolveOptions, RouterOptions } from '../../llm';
import type { Store } from '../../store/store';
import { engine } from '../engine';
import { workspaceTextFiles } from '../workspace-files';
import { SecretStorageSource } from './secret-storage-source';
import { VscodeLmModel } from './vscode-lm-model';

/** How "Select Model" names a model VS Code provides: this prefix and the model's id. */
export const VSCODE_LM_PREFIX = 'vscode-lm:';

/** What "Select Model" offers: a model that can be used now, or one that cannot and why. */
export interface ModelOption {
  /** The value stored in `idealState.models.default`: a configured model id, or `vscode-lm:<id>`. */
  readonly id: string;
  readonly label: string;
  readonly detail: string;
  readonly available: boolean;
  /** For an unavailable hosted model: the provider whose key is missing. */
  readonly providerNeedingKey?: string;
  /** For a hosted model with a key that the models file in force does not list: "Configure Models" makes it usable. */
  readonly configureToUse?: boolean;
}

/** The model that serves when no role is routed elsewhere, or why there is none. */
export type SelectedModel =
  | {
      readonly ok: true;
      /** A configured model id, or `vscode-lm:<id>`. */
      readonly id: string;
      readonly displayName: string;
      readonly kind: LanguageModel['kind'];
      readonly modelClass: LanguageModel['modelClass'];
      /** Where the choice came from: the Select Model setting, the models file, or what was found with nothing configured. */
      readonly from: 'setting' | 'workspace file' | 'defaults';
      /** A scripted demo's scope: it answers that request only (see LanguageModel.demo). */
      readonly demo?: string;
    }
  | { readonly ok: false; readonly message: string };

export interface LoadedModels {
  readonly source: 'workspace file' | 'defaults';
  readonly configFile?: string;
  /** The configuration in force (the models file's, or the defaults), validated. */
  readonly config: LlmConfig;
  readonly slots: ReadonlyMap<string, ModelSlot>;
  /** The shipped catalogue with the models file's entries: prices and capabilities. */
  readonly catalogue?: Catalogue;
  readonly providers: readonly { id: string; kind: string; apiKeySecret?: string; apiKeyEnv?: string }[];
  readonly problems: readonly DataFileProblem[];
}

/**
 * The language models this window can use: a trusted workspace's model configuration
 * file, or else OpenAI and Anthropic with keys from SecretStorage (or the environment),
 * plus whatever VS Code itself offers through `vscode.lm`.
 */
export class ModelsHost {
  readonly secrets: SecretStorageSource;

  constructor(
    context: vscode.ExtensionContext,
    private readonly settings: Settings,
    private readonly log: Logger,
    /** Where what servers refused is remembered, so a refusal is met once per model, not once per window. */
    private readonly stores?: { get(): Promise<Store> },
  ) {
    this.secrets = new SecretStorageSource(context.secrets);
  }

  /** Lessons from the store, and where a new one goes (the store when this window writes it, and the log). */
  private async adapting(): Promise<Pick<ResolveOptions, 'lessons' | 'onLesson'>> {
    const store = await this.stores?.get().catch(() => undefined);
    return {
      lessons: store?.modelLessons.list() ?? [],
      onLesson: (lesson) => {
        this.log.info(`adapted: ${engine().describeLesson(lesson)}`);
        if (store && !store.readOnly) store.modelLessons.add(lesson);
      },
    };
  }

  async load(): Promise<LoadedModels> {
    const { parseLlmConfig, resolveModels, DEFAULT_MODELS } = engine();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    let config: LlmConfigInput | undefined;
    let configFile: string | undefined;
    let problems: DataFileProblem[] = [];
    if (folder && vscode.workspace.isTrusted) {
      const file = path.resolve(folder, this.settings.get('modelsConfigFile'));
      const text = await workspaceTextFiles.readText(file);
      if (text !== undefined) {
        const parsed = parseLlmConfig(file, text);
        if (parsed.ok) {
          config = parsed.value;
          configFile = file;
        } else {
          problems = parsed.problems;
          for (const p of problems) this.log.warn(`${p.file}:${p.line}:${p.column}: ${p.field ? `${p.field}: ` : ''}${p.message}`);
        }
      }
    }
    const defaults: LlmConfigInput = {
      version: 1,
      providers: [
        { id: 'openai', kind: 'openai' },
        { id: 'anthropic', kind: 'anthropic' },
      ],
      models: [
        { id: `openai:${DEFAULT_MODELS.openai}`, provider: 'openai', model: DEFAULT_MODELS.openai },
        { id: `anthropic:${DEFAULT_MODELS.anthropic}`, provider: 'anthropic', model: DEFAULT_MODELS.anthropic },
      ],
    };
    const chats = await vscode.lm.selectChatModels();
    const effective = config ?? (await this.withModelsFound(defaults, chats));
    const resolved = await resolveModels(effective, {
      ...(await this.adapting()),
      env: process.env,
      secrets: this.secrets,
      baseDir: folder,
      factories: {
        'vscode-lm': (model, provider, modelClass) =>
          new VscodeLmModel({ id: model.id, providerId: provider.id, modelClass, selector: model.model, price: model.prices }, chats.find((c) => c.id === model.model) ?? chats.find((c) => c.family === model.model)),
      },
    });
    return {
      source: config ? 'workspace file' : 'defaults',
      configFile,
      config: resolved.config,
      slots: resolved.slots,
      catalogue: resolved.catalogue,
      providers: resolved.config.providers.map((p) => ({ id: p.id, kind: p.kind, ...(p.apiKeySecret ? { apiKeySecret: p.apiKeySecret } : {}), ...(p.apiKeyEnv ? { apiKeyEnv: p.apiKeyEnv } : {}) })),
      problems,
    };
  }

  /**
   * With no models file: a model VS Code provides, and an OpenAI-compatible
   * server if one answers on its usual local port (Ollama, LM Studio, vLLM, llama.cpp),
   * join the defaults and are routed first (local first, escalating to the editor's model).
   */
  private async withModelsFound(defaults: LlmConfigInput, chats: readonly vscode.LanguageModelChat[]): Promise<LlmConfigInput> {
    const { chooseDefault, probeLocalServers } = engine();
    const editor: EditorModelInfo[] = chats.map((m) => ({ id: m.id, vendor: m.vendor, family: m.family, name: m.name }));
    const choice = chooseDefault({ vscodeLmModels: editor, probe: await probeLocalServers(fetch) });
    if (!choice.ok) return defaults;
    this.log.info(choice.description);
    return { ...defaults, ...choice.config, providers: [...choice.config.providers, ...defaults.providers], models: [...choice.config.models, ...defaults.models] };
  }

  /** A model by the id "Select Model" stores: `vscode-lm:<id>` or a configured id; undefined when it cannot be used. */
  async model(id: string, loaded?: LoadedModels): Promise<LanguageModel | undefined> {
    if (id.startsWith(VSCODE_LM_PREFIX)) {
      const selector = id.slice(VSCODE_LM_PREFIX.length);
      const found = (await vscode.lm.selectChatModels({ id: selector }))[0];
      return found ? new VscodeLmModel({ id, providerId: 'vscode-lm', modelClass: 'frontier', selector }, found) : undefined;
    }
    const slot = (loaded ?? (await this.load())).slots.get(id);
    return slot?.ok ? slot.model : undefined;
  }

  /**
   * The model that serves every role: the one picked with Select Model
   * (`idealState.models.default`) while it is available, unless the models file routes the
   * roles itself; else the configuration's default route (the models file's, or with
   * nothing configured what a first start finds: a model from VS Code, a local server); else a
   * hosted model whose key is set; else a message saying how to get one.
   */
  async selected(): Promise<SelectedModel> {
    const loaded = await this.load();
    const describe = (id: string, model: LanguageModel, from: 'setting' | 'workspace file' | 'defaults'): SelectedModel => ({
      ok: true,
      id,
      displayName: model.displayName,
      kind: model.kind,
      modelClass: model.modelClass,
      from,
      ...(model.demo !== undefined ? { demo: model.demo } : {}),
    });
    const picked = await this.picked(loaded);
    if (picked) return describe(picked.id, picked.model, 'setting');
    const routed = engine().routeFor(loaded.config, 'manager', 'STANDARD');
    const slot = loaded.slots.get(routed);
    if (slot?.ok) return describe(routed, slot.model, loaded.source);
    const first = [...loaded.slots.entries()].find(([, s]) => s.ok);
    if (first?.[1].ok) return describe(first[0], first[1].model, loaded.source);
    return { ok: false, message: engine().NOTHING_AVAILABLE_MESSAGE };
  }

  /** The model picked with Select Model, when it applies (the models file routes nothing) and is available. */
  private async picked(loaded: LoadedModels): Promise<{ id: string; model: LanguageModel } | undefined> {
    const id = this.settings.get('defaultModel');
    const routing = loaded.config.routing;
    if (!id || (loaded.source === 'workspace file' && (routing.default !== undefined || routing.levels !== undefined))) return undefined;
    const model = await this.model(id, loaded);
    if (!model) this.log.warn(`the model picked with Select Model ("${id}") is not available now; using the default`);
    return model && { id, model };
  }

  /**
   * The token and money caps a run at this level is held to: the shipped budgets.yaml, under
   * the models file's `budgets:` for the level, under the `idealState.budgets.*` settings.
   */
  async budgetLimits(level: EffortLevel, loaded?: LoadedModels): Promise<BudgetLimits> {
    const { budgetFor } = engine();
    return budgetFor(level, [(loaded ?? (await this.load())).config.budgets?.[level], this.budgetSettings()]);
  }

  /**
   * A run's models: its budget ledger (caps from `budgetLimits`) and a router that holds
   * every call to it. The model picked with Select Model serves every role unless the
   * models file routes them itself.
   */
  async forRun(level: EffortLevel, options: Omit<RouterOptions, 'budget' | 'logger'> = {}): Promise<{ router: ModelRouter; budget: BudgetLedger }> {
    const { BudgetLedger, ModelRouter } = engine();
    const loaded = await this.load();
    let { config, slots } = loaded;
    const picked = await this.picked(loaded);
    if (picked) {
      slots = new Map(slots).set(picked.id, { ok: true, model: picked.model });
      config = { ...config, routing: { ...config.routing, default: picked.id, levels: undefined } };
    }
    const prices = options.prices ?? loaded.catalogue;
    const budget = new BudgetLedger(await this.budgetLimits(level, loaded), { prices, logger: this.log.child('budget') });
    const resolved = { config, slots, source: loaded.source === 'workspace file' ? ('config' as const) : ('environment' as const), ...(loaded.catalogue ? { catalogue: loaded.catalogue } : {}) };
    const router = new ModelRouter(resolved, { ...options, budget, logger: this.log });
    return { router, budget };
  }

  private budgetSettings() {
    const settings = this.settings;
    return engine().budgetOverrideFromSettings({
      callTokens: settings.get('budgetCallTokens'),
      callUsd: settings.get('budgetCallUsd'),
      phaseTokens: settings.get('budgetPhaseTokens'),
      phaseUsd: settings.get('budgetPhaseUsd'),
      runTokens: settings.get('budgetRunTokens'),
      runUsd: settings.get('budgetRunUsd'),
    });
  }

  /** Every model the user could pick, available ones first. */
  async options(): Promise<ModelOption[]> {
    const loaded = await this.load();
    const options: ModelOption[] = [];
    for (const chat of await vscode.lm.selectChatModels()) {
      options.push({ id: `${VSCODE_LM_PREFIX}${chat.id}`, label: `VS Code: ${chat.name}`, detail: `${chat.vendor} · ${chat.family} · up to ${chat.maxInputTokens} input tokens · no key needed`, available: true });
    }
    for (const [id, slot] of loaded.slots) {
      // With nothing configured, the editor's model found for the defaults is listed above already.
      if (loaded.source === 'defaults' && slot.ok && slot.model.kind === 'vscode-lm') continue;
      if (slot.ok) {
        // A model its provider shuts down within 30 days says so where it is chosen, with its replacement.
        const soon = engine().shutdownSoon(slot.model.profile?.entry, engine().todayIso());
        const shutdown = soon ? ` · ${engine().shutdownSoonText(soon)}` : '';
        options.push({ id, label: id.endsWith(slot.model.displayName) ? id : `${id} (${slot.model.displayName})`, detail: `${slot.model.kind} · ${slot.model.modelClass} · ${loaded.source}${shutdown}`, available: true });
      } else {
        const provider = loaded.providers.find((p) => id.startsWith(`${p.id}:`) || slot.reason.includes(`"${p.id}"`));
        options.push({ id, label: id, detail: slot.reason, available: false, providerNeedingKey: provider && (provider.kind === 'openai' || provider.kind === 'anthropic') ? provider.id : undefined });
      }
    }
    options.push(...(await this.hostedNotConfigured(loaded)));
    return [...options.filter((o) => o.available), ...options.filter((o) => !o.available)];
  }

  /** The providers "Set API Key" offers: the models file's OpenAI and Anthropic ones, and always those two. */
  async keyProviders(loaded?: LoadedModels): Promise<KeyProvider[]> {
    return engine().keyProviders((loaded ?? (await this.load())).providers);
  }

  /**
   * OpenAI and Anthropic when the models file in force names neither, so every window shows
   * them, each with why it cannot serve here: no key yet, or a key the models file does not use.
   */
  private async hostedNotConfigured(loaded: LoadedModels): Promise<ModelOption[]> {
    const { DEFAULT_MODELS } = engine();
    const options: ModelOption[] = [];
    for (const p of (await this.keyProviders(loaded)).filter((k) => !k.configured)) {
      const id = `${p.id}:${DEFAULT_MODELS[p.kind]}`;
      if (loaded.slots.has(id)) continue;
      const hasKey = Boolean((await this.secrets.get(p.secretName).catch(() => undefined)) || process.env[p.envName]);
      const file = loaded.configFile ? path.basename(loaded.configFile) : 'the models file';
      options.push(
        hasKey
          ? { id, label: id, detail: `provider "${p.id}" has a key, but ${file} does not list it: use "Configure Models" to add it`, available: false, configureToUse: true }
          : { id, label: id, detail: `provider "${p.id}" has no API key: use "Ideal State: Set API Key" or set ${p.envName}`, available: false, providerNeedingKey: p.id },
      );
    }
    return options;
  }
}
