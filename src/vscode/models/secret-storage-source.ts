import type * as vscode from 'vscode';
import type { SecretSource } from '../../llm/types';
import { registerSecrets } from '../../model/redaction';

const PREFIX = 'idealState.apiKey.';

/** API keys in VS Code's SecretStorage (the OS keychain), never in settings or files. */
export class SecretStorageSource implements SecretSource {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  /** Every key read or stored is also told to the redactor, so no evidence text carries it (model/redaction.ts). */
  async get(name: string): Promise<string | undefined> {
    const key = await this.secrets.get(PREFIX + name);
    registerSecrets([key]);
    return key;
  }

  async set(name: string, key: string): Promise<void> {
    registerSecrets([key]);
    await this.secrets.store(PREFIX + name, key);
  }

  async delete(name: string): Promise<void> {
    await this.secrets.delete(PREFIX + name);
  }
}
