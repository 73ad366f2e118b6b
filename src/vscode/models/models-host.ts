import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DataFileProblem } from '../../core/data-file';
import type { Logger } from '../../core/log';
import type { Settings } from '../../core/settings';
import type { LlmConfigInput, ModelSlot } from '../../llm';
import { engine } from '../engine';
import { workspaceTextFiles } from '../workspace-files';
import { SecretStorageSource } from './secret-storage-source';
import { VscodeLmModel } from './vscode-lm-model';

/** What "Select Model" offers: a model that can be used now, or one that cannot and why. */
export interface ModelOption {
  /** The value stored in `idealState.models.default`: a configured model id, or `vscode-lm:<id>`. */
  readonly id: string;
  readonly label: string;
  readonly detail: string;
  readonly available: boolean;
  /** For an unavailable hosted model: the provider whose key is missing. */
  readonly providerNeedingKey?: string;
}

export interface LoadedModels {
  readonly source: 'workspace file' | 'defaults';
  readonly configFile?: string;
  readonly slots: ReadonlyMap<string, ModelSlot>;
  readonly providers: readonly { id: string; kind: string }[];
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
  ) {
    this.secrets = new SecretStorageSource(context.secrets);
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
    const effective = config ?? (await this.withLocalServer(defaults));
    const resolved = await resolveModels(effective, {
      env: process.env,
      secrets: this.secrets,
      baseDir: folder,
      factories: {
        'vscode-lm': (model, provider, modelClass) => new VscodeLmModel({ id: model.id, providerId: provider.id, modelClass, selector: model.model }),
      },
    });
    return {
      source: config ? 'workspace file' : 'defaults',
      configFile,
      slots: resolved.slots,
      providers: resolved.config.providers.map((p) => ({ id: p.id, kind: p.kind })),
      problems,
    };
  }

  /**
   * With no models file: if an OpenAI-compatible server answers on its usual local port
   * (Ollama, LM Studio, vLLM, llama.cpp), it joins the defaults as the "local" model.
   */
  private async withLocalServer(defaults: LlmConfigInput): Promise<LlmConfigInput> {
    const { chooseDefault, probeLocalServers } = engine();
    const probe = await probeLocalServers(fetch);
    const choice = chooseDefault({ vscodeLmModels: [], probe });
    if (!choice.ok) return defaults;
    this.log.info(choice.description);
    return { ...defaults, providers: [...choice.config.providers, ...defaults.providers], models: [...choice.config.models, ...defaults.models] };
  }

  /** Every model the user could pick, available ones first. */
  async options(): Promise<ModelOption[]> {
    const loaded = await this.load();
    const options: ModelOption[] = [];
    for (const chat of await vscode.lm.selectChatModels()) {
      options.push({ id: `vscode-lm:${chat.id}`, label: `VS Code: ${chat.name}`, detail: `${chat.vendor} · ${chat.family} · up to ${chat.maxInputTokens} input tokens · no key needed`, available: true });
    }
    for (const [id, slot] of loaded.slots) {
      if (slot.ok) {
        options.push({ id, label: id.endsWith(slot.model.displayName) ? id : `${id} (${slot.model.displayName})`, detail: `${slot.model.kind} · ${slot.model.modelClass} · ${loaded.source}`, available: true });
      } else {
        const provider = loaded.providers.find((p) => id.startsWith(`${p.id}:`) || slot.reason.includes(`"${p.id}"`));
        options.push({ id, label: id, detail: slot.reason, available: false, providerNeedingKey: provider && (provider.kind === 'openai' || provider.kind === 'anthropic') ? provider.id : undefined });
      }
    }
    return [...options.filter((o) => o.available), ...options.filter((o) => !o.available)];
  }
}
