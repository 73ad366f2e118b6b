import { describeError } from '../model/errors';
import { DEFAULT_KEY_ENV } from './config';

/**
 * API keys as "Set API Key" handles them, apart from the editor: which providers take a key,
 * and storing one so that it is either kept whole or not at all. Keys live only in secret
 * storage or the environment, never in settings or files.
 */

export type KeyProviderKind = 'openai' | 'anthropic';

/** A provider a person can give a key to. */
export interface KeyProvider {
  readonly id: string;
  readonly kind: KeyProviderKind;
  /** The secret storage entry the key goes in (what resolving the provider reads). */
  readonly secretName: string;
  /** The environment variable that serves instead of a stored key. */
  readonly envName: string;
  /** True when the models file in force names this provider (else it is one of the two always offered). */
  readonly configured: boolean;
  readonly description: string;
}

export interface ProviderForKeys {
  readonly id: string;
  readonly kind: string;
  readonly apiKeySecret?: string;
  readonly apiKeyEnv?: string;
}

const ALWAYS: readonly { id: string; kind: KeyProviderKind }[] = [
  { id: 'openai', kind: 'openai' },
  { id: 'anthropic', kind: 'anthropic' },
];

/**
 * The providers a key can be set for: the models file's OpenAI and Anthropic providers, then
 * OpenAI and Anthropic themselves unless the file already has a provider of that id, so
 * every window offers both, whatever its models file (the demo's names neither).
 */
export function keyProviders(configured: readonly ProviderForKeys[]): KeyProvider[] {
  const hosted = configured.filter((p): p is ProviderForKeys & { kind: KeyProviderKind } => p.kind === 'openai' || p.kind === 'anthropic');
  const fromFile = hosted.map((p) => provider(p, true));
  const always = ALWAYS.filter((a) => !hosted.some((p) => p.id === a.id)).map((a) => provider(a, false));
  return [...fromFile, ...always];
}

function provider(p: ProviderForKeys & { kind: KeyProviderKind }, configured: boolean): KeyProvider {
  return {
    id: p.id,
    kind: p.kind,
    secretName: p.apiKeySecret ?? p.id,
    envName: p.apiKeyEnv ?? DEFAULT_KEY_ENV[p.kind]!,
    configured,
    description: p.kind === 'openai' ? 'OpenAI or an OpenAI-compatible server' : 'Anthropic',
  };
}

/** What storing needs of secret storage (VS Code's SecretStorage in the editor, a fake in tests). */
export interface KeyStore {
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
}

export type StoreKeyResult = { readonly ok: true } | { readonly ok: false; readonly code: 'secret-storage'; readonly message: string };

/**
 * Stores a key and reads it back. When the store throws, or what comes back is not the key,
 * the entry is put back as it was (the earlier key, or none), and the result says what to do
 * instead: nothing is left half-saved and nothing says "saved" that is not.
 */
export async function storeApiKey(store: KeyStore, provider: KeyProvider, key: string): Promise<StoreKeyResult> {
  let before: string | undefined;
  let reason: string | undefined;
  try {
    before = await store.get(provider.secretName);
    await store.set(provider.secretName, key);
    const back = await store.get(provider.secretName);
    if (back !== key) reason = back === undefined ? 'the key was not there when read back' : 'a different value came back when the key was read';
  } catch (error) {
    reason = describeError(error).split(key).join('…');
  }
  if (reason === undefined) return { ok: true };
  try {
    if (before === undefined) await store.delete(provider.secretName);
    else await store.set(provider.secretName, before);
  } catch {
    // The store refuses writes altogether: it holds what it held.
  }
  return { ok: false, code: 'secret-storage', message: keyNotKept(provider, reason) };
}

/** The message when a key cannot be kept: why, that nothing was saved, and the way that works. */
export function keyNotKept(provider: Pick<KeyProvider, 'id' | 'envName'>, reason: string): string {
  return (
    `Ideal State could not keep the API key for "${provider.id}" in VS Code's secret storage (${reason}), so nothing was saved. ` +
    `Set ${provider.envName} in the environment VS Code starts from instead (for a browser workbench, the environment of its server), then reload the window.`
  );
}

/**
 * A browser workbench keeps secrets only when its server mints the key that seals them
 * (VS Code web's secret storage POSTs to `<base>/mint-key`; a server without that route
 * keeps them in memory until the page reloads). The base is where the workbench put its
 * callback route, as `asExternalUri` gave it: the mint-key address beside it.
 */
export function mintKeyUrl(callback: string): string | undefined {
  let url: URL;
  try {
    url = new URL(callback);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const base = url.pathname.replace(/\/[^/]*$/, '');
  return `${url.origin}${base}/mint-key`;
}

/**
 * Why a server's answer to the mint-key POST means it cannot seal secrets, or undefined when
 * it can or the answer does not tell (a sign-in in front of the server answers 401 or a
 * redirect to this request, and the browser has the cookie the request lacks).
 */
export function sealRefusal(status: number): string | undefined {
  if (status === 404 || status === 405 || status === 501) return `the workbench's server refused to seal secrets: HTTP ${status} from mint-key, so a key would be gone after a reload`;
  return undefined;
}
