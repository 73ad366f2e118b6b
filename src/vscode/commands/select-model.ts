import * as vscode from 'vscode';
import type { Settings } from '../../model/settings';
import { openOrCreate } from '../workspace-files';
import { SETTINGS } from '../../model/settings';
import { engine } from '../engine';
import type { ModelOption, ModelsHost } from '../models/models-host';

interface OptionItem extends vscode.QuickPickItem {
  readonly option?: ModelOption;
  /** The entries after the models: set a key, or open (or create) the models file. */
  readonly action?: 'set-key' | 'configure';
}

const SET_KEY = 'Set API Key';
const OPEN_CONFIG = 'Configure Models';
const CHECK_MODEL = 'Check Model';

/**
 * "Ideal State: Select Model" — what is available and reachable: VS Code's own models and
 * the configured ones, with the reason when one cannot be used. Never a silent failure.
 */
export function registerSelectModel(models: ModelsHost, settings: Settings): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.selectModel', async () => {
    const options = await models.options();
    const current = settings.get('defaultModel');
    if (!options.some((o) => o.available)) {
      const choice = await vscode.window.showWarningMessage(
        engine().NOTHING_AVAILABLE_MESSAGE,
        SET_KEY,
        OPEN_CONFIG,
      );
      if (choice === SET_KEY) await vscode.commands.executeCommand('idealState.setApiKey');
      if (choice === OPEN_CONFIG) await openModelsConfig(settings);
      return undefined;
    }
    const items: OptionItem[] = [
      ...options.map((option) => ({
        label: `${option.available ? '$(check)' : '$(circle-slash)'} ${option.label}`,
        description: option.id === current ? 'selected' : option.available ? '' : 'unavailable',
        detail: option.detail,
        option,
      })),
      { label: '', kind: vscode.QuickPickItemKind.Separator },
      { label: `$(key) ${SET_KEY}…`, detail: 'Store an OpenAI or Anthropic key in VS Code\'s secret storage', action: 'set-key' },
      { label: `$(gear) ${OPEN_CONFIG}`, detail: `Open ${settings.get('modelsConfigFile')}, or create it with an example: providers, models and which serves each role`, action: 'configure' },
    ];
    const picked = await vscode.window.showQuickPick(items, { title: 'Ideal State: Select Model', placeHolder: 'The model that serves every role unless the models file routes them', matchOnDetail: true });
    if (!picked) return undefined;
    if (picked.action === 'set-key') await vscode.commands.executeCommand('idealState.setApiKey');
    if (picked.action === 'configure') await openModelsConfig(settings);
    if (!picked.option) return undefined;
    if (!picked.option.available) {
      if (picked.option.providerNeedingKey) await vscode.commands.executeCommand('idealState.setApiKey', picked.option.providerNeedingKey);
      else if (picked.option.configureToUse) await openModelsConfig(settings);
      return undefined;
    }
    const { key } = SETTINGS.defaultModel;
    const dot = key.lastIndexOf('.');
    const target = vscode.workspace.workspaceFolders ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await vscode.workspace.getConfiguration(key.slice(0, dot)).update(key.slice(dot + 1), picked.option.id, target);
    // Right after a choice is when to learn whether the model takes the product's calls.
    void vscode.window.showInformationMessage(`Ideal State will use ${picked.option.label}.`, CHECK_MODEL).then((choice) => choice === CHECK_MODEL && vscode.commands.executeCommand('idealState.checkModel'));
    return picked.option.id;
  });
}

async function openModelsConfig(settings: Settings): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder || !vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage('Ideal State: open and trust a folder to configure its models.');
    return;
  }
  const uri = vscode.Uri.joinPath(folder.uri, settings.get('modelsConfigFile'));
  const example = [
    '# Ideal State models: providers, their models, and which model serves each role.',
    '# API keys are never written here: use "Ideal State: Set API Key".',
    'version: 1',
    'providers:',
    '  - id: ollama',
    '    kind: openai',
    '    baseUrl: http://127.0.0.1:11434/v1',
    '  - id: openai',
    '    kind: openai',
    'models:',
    '  - id: local',
    '    provider: ollama',
    '    model: qwen2.5-coder:7b',
    '  - id: frontier',
    '    provider: openai',
    `    model: ${engine().DEFAULT_MODELS.openai}`,
    'routing:',
    '  default: { manager: local, specialist: local, verifier: frontier }',
    '',
  ].join('\n');
  await openOrCreate(uri, example);
}
