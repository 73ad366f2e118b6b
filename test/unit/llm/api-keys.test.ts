import * as assert from 'node:assert/strict';
import { keyProviders, mintKeyUrl, sealRefusal, storeApiKey, type KeyStore } from '../../../src/llm/api-keys';

const KEY = 'sk-test-0123456789abcdef';

/** Secret storage as a map, with the failures seen in real windows to switch on. */
class FakeKeyStore implements KeyStore {
  readonly values = new Map<string, string>();
  failSet?: Error;
  failDelete?: Error;
  /** Accepts the write and then does not have it: a browser that could not seal it. */
  forgets = false;
  /** Gives back something else than was written. */
  garbles = false;
  async get(name: string): Promise<string | undefined> {
    const value = this.values.get(name);
    return this.garbles && value !== undefined ? `${value}x` : value;
  }
  async set(name: string, value: string): Promise<void> {
    if (this.failSet) throw this.failSet;
    if (!this.forgets) this.values.set(name, value);
  }
  async delete(name: string): Promise<void> {
    if (this.failDelete) throw this.failDelete;
    this.values.delete(name);
  }
}

describe('Set API Key: the providers offered', () => {
  it('offers OpenAI and Anthropic with no models file, and with one that names neither (the demo\'s)', () => {
    for (const configured of [[], [{ id: 'scripted', kind: 'scripted' }]]) {
      const offered = keyProviders(configured);
      assert.deepEqual(offered.map((p) => [p.id, p.kind, p.secretName, p.envName, p.configured]), [
        ['openai', 'openai', 'openai', 'OPENAI_API_KEY', false],
        ['anthropic', 'anthropic', 'anthropic', 'ANTHROPIC_API_KEY', false],
      ]);
    }
  });

  it('puts the models file\'s hosted providers first, under the secret name and variable they read, without doubling one', () => {
    const offered = keyProviders([
      { id: 'openai', kind: 'openai' },
      { id: 'work', kind: 'anthropic', apiKeySecret: 'work-claude', apiKeyEnv: 'WORK_ANTHROPIC_KEY' },
      { id: 'ollama', kind: 'openai-compatible-but-local' },
    ]);
    assert.deepEqual(offered.map((p) => [p.id, p.secretName, p.envName, p.configured]), [
      ['openai', 'openai', 'OPENAI_API_KEY', true],
      ['work', 'work-claude', 'WORK_ANTHROPIC_KEY', true],
      ['anthropic', 'anthropic', 'ANTHROPIC_API_KEY', false],
    ]);
  });
});

describe('Set API Key: a key kept whole or not at all', () => {
  const [openai] = keyProviders([]);

  it('stores the key under the provider\'s secret name when it reads back the same', async () => {
    const store = new FakeKeyStore();
    assert.deepEqual(await storeApiKey(store, openai!, KEY), { ok: true });
    assert.equal(store.values.get('openai'), KEY);
  });

  const failures: { name: string; arrange: (s: FakeKeyStore) => void; reason: RegExp }[] = [
    { name: 'the store throws (no keychain)', arrange: (s) => (s.failSet = new Error(`Cannot create an item in a locked collection: ${KEY}`)), reason: /locked collection: …\)/ },
    { name: 'the store accepts it but does not have it (a browser that could not seal it)', arrange: (s) => (s.forgets = true), reason: /the key was not there when read back/ },
    { name: 'a different value comes back', arrange: (s) => (s.garbles = true), reason: /a different value came back/ },
  ];
  for (const f of failures) {
    it(`says so and keeps nothing when ${f.name}`, async () => {
      const store = new FakeKeyStore();
      f.arrange(store);
      const result = await storeApiKey(store, openai!, KEY);
      assert.equal(result.ok, false);
      assert.ok(!result.ok);
      assert.equal(result.code, 'secret-storage');
      assert.match(result.message, f.reason);
      assert.match(result.message, /nothing was saved\. Set OPENAI_API_KEY in the environment VS Code starts from instead/);
      assert.ok(!result.message.includes(KEY), 'the key is never in a message');
      assert.deepEqual([...store.values], [], 'nothing half-saved');
    });
  }

  it('puts back the key that was there before when the new one does not read back', async () => {
    const store = new FakeKeyStore();
    store.values.set('openai', 'sk-earlier');
    store.forgets = true;
    const result = await storeApiKey(store, openai!, KEY);
    assert.equal(result.ok, false);
    assert.deepEqual([...store.values], [['openai', 'sk-earlier']]);
  });

  it('still says so when the store refuses to clean up too', async () => {
    const store = new FakeKeyStore();
    store.garbles = true;
    store.failDelete = new Error('read-only');
    const result = await storeApiKey(store, openai!, KEY);
    assert.equal(result.ok, false);
  });
});

describe('Set API Key in a browser workbench: can its server seal secrets', () => {
  it('finds the mint-key address beside the workbench\'s callback route', () => {
    assert.equal(mintKeyUrl('http://127.0.0.1:40123/callback?vscode-reqid=1&vscode-scheme=code-oss'), 'http://127.0.0.1:40123/mint-key');
    assert.equal(mintKeyUrl('https://example.test/base/path/callback?vscode-reqid=2'), 'https://example.test/base/path/mint-key');
    assert.equal(mintKeyUrl('code-oss://ideal-state.ideal-state/secret-storage-check'), undefined, 'a desktop window hands back its own scheme');
    assert.equal(mintKeyUrl('not a url'), undefined);
  });

  it('reads a missing route as "cannot seal", and a sign-in or success as no reason to refuse', () => {
    assert.match(sealRefusal(405)!, /refused to seal secrets: HTTP 405 from mint-key, so a key would be gone after a reload/);
    assert.match(sealRefusal(404)!, /HTTP 404/);
    for (const status of [200, 302, 401, 403, 500]) assert.equal(sealRefusal(status), undefined, String(status));
  });
});
