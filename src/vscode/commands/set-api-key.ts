import * as vscode from 'vscode';
import type { KeyProvider } from '../../llm/api-keys';
import { engine } from '../engine';
import { browserSecretsProblem } from '../models/browser-secrets';
import type { ModelsHost } from '../models/models-host';

const REMOVE = '$(trash) Remove a stored key…';

interface ProviderItem extends vscode.QuickPickItem {
  readonly provider?: KeyProvider;
}

/**
 * "Ideal State: Set API Key" — stores a provider's key in SecretStorage. The key is never
 * shown, logged, or written to settings or files. OpenAI and Anthropic are always offered,
 * whatever the models file. A key the window cannot keep is not half-saved: the person is
 * told so and how to give it through the environment. An optional provider id skips the pick.
 */
export function registerSetApiKey(models: ModelsHost): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.setApiKey', async (providerId?: string) => {
    const providers = await models.keyProviders();
    let provider = typeof providerId === 'string' ? providers.find((p) => p.id === providerId) : undefined;
    if (!provider) {
      const items: ProviderItem[] = [...providers.map((p) => ({ label: p.id, description: p.description, ...(p.configured ? {} : { detail: `or set ${p.envName}` }), provider: p })), { label: REMOVE }];
      const picked = await vscode.window.showQuickPick(items, { title: 'Ideal State: Set API Key', placeHolder: 'Which provider is the key for?' });
      if (!picked) return;
      if (!picked.provider) return removeKey(models, providers);
      provider = picked.provider;
    }
    // Before the key is typed: a window that would lose it says so now, and stores nothing.
    const problem = await browserSecretsProblem();
    if (problem) {
      void vscode.window.showErrorMessage(engine().keyNotKept(provider, problem));
      return;
    }
    const key = await vscode.window.showInputBox({
      title: `Ideal State: API key for ${provider.id}`,
      prompt: 'Stored in VS Code secret storage (the system keychain), never in settings or files.',
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim().length === 0 ? 'Enter the key, or press Escape to cancel.' : /\s/.test(value.trim()) ? 'A key has no spaces.' : undefined),
    });
    if (key === undefined) return;
    const stored = await engine().storeApiKey(models.secrets, provider, key.trim());
    if (!stored.ok) {
      void vscode.window.showErrorMessage(stored.message);
      return;
    }
    void vscode.window.showInformationMessage(`Ideal State: the API key for "${provider.id}" is saved in VS Code's secret storage.`);
  });
}

async function removeKey(models: ModelsHost, providers: readonly KeyProvider[]): Promise<void> {
  const picked = await vscode.window.showQuickPick(
    providers.map((p) => ({ label: p.id, provider: p })),
    { title: 'Ideal State: Remove API Key', placeHolder: 'Remove the stored key of…' },
  );
  if (!picked) return;
  await models.secrets.delete(picked.provider.secretName);
  void vscode.window.showInformationMessage(`Ideal State: the API key for "${picked.label}" was removed from secret storage.`);
}
