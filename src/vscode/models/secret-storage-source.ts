import type * as vscode from 'vscode';
import type { SecretSource } from '../../llm/types';

const PREFIX = 'idealState.apiKey.';

/** API keys in VS Code's SecretStorage (the OS keychain), never in settings or files. */
export class SecretStorageSource implements SecretSource {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  get(name: string): Promise<string | undefined> {
    return Promise.resolve(this.secrets.get(PREFIX + name));
  }

  async set(name: string, key: string): Promise<void> {
    await this.secrets.store(PREFIX + name, key);
  }

  async delete(name: string): Promise<void> {
    await this.secrets.delete(PREFIX + name);
  }
}
