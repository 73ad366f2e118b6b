import * as vscode from 'vscode';
import type { ModelsHost } from '../models/models-host';

const REMOVE = '$(trash) Remove a stored key…';

/**
 * "Ideal State: Set API Key" — stores a provider's key in SecretStorage. The key is never
 * shown, logged, or written to settings or files. An optional provider id skips the pick.
 */
export function registerSetApiKey(models: ModelsHost): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.setApiKey', async (providerId?: string) => {
    const providers = (await models.load()).providers.filter((p) => p.kind === 'openai' || p.kind === 'anthropic');
    let provider = typeof providerId === 'string' ? providers.find((p) => p.id === providerId) : undefined;
    if (!provider) {
      const picked = await vscode.window.showQuickPick(
        [...providers.map((p) => ({ label: p.id, description: p.kind === 'openai' ? 'OpenAI or an OpenAI-compatible server' : 'Anthropic' })), { label: REMOVE }],
        { title: 'Ideal State: Set API Key', placeHolder: 'Which provider is the key for?' },
      );
      if (!picked) return;
      if (picked.label === REMOVE) return removeKey(models, providers.map((p) => p.id));
      provider = providers.find((p) => p.id === picked.label);
    }
    if (!provider) return;
    const key = await vscode.window.showInputBox({
      title: `Ideal State: API key for ${provider.id}`,
      prompt: 'Stored in VS Code secret storage (the system keychain), never in settings or files.',
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim().length === 0 ? 'Enter the key, or press Escape to cancel.' : /\s/.test(value.trim()) ? 'A key has no spaces.' : undefined),
    });
    if (key === undefined) return;
    await models.secrets.set(provider.id, key.trim());
    void vscode.window.showInformationMessage(`Ideal State: the API key for "${provider.id}" is saved in VS Code's secret storage.`);
  });
}

async function removeKey(models: ModelsHost, providerIds: string[]): Promise<void> {
  const picked = await vscode.window.showQuickPick(providerIds, { title: 'Ideal State: Remove API Key', placeHolder: 'Remove the stored key of…' });
  if (!picked) return;
  await models.secrets.delete(picked);
  void vscode.window.showInformationMessage(`Ideal State: the API key for "${picked}" was removed from secret storage.`);
}
