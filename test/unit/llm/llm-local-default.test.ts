import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LlmConfig } from '../../../src/llm/config';
import { chooseDefault, LOCAL_SERVERS, probeLocalServers, type LocalServerKind } from '../../../src/llm/local-default';

/** A stand-in local server on 127.0.0.1 at a random port. */
async function serve(handler: http.RequestListener): Promise<{ port: number; hits: string[]; close: () => Promise<void> }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const models = (ids: string[], delayMs = 0): http.RequestListener => (req, res) => {
  setTimeout(() => {
    if (req.url !== '/v1/models') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: ids.map((id) => ({ id, object: 'model' })) }));
  }, delayMs);
};

/** A port nothing listens on: bound, then freed. */
async function deadPort(): Promise<number> {
  const s = await serve(() => undefined);
  await s.close();
  return s.port;
}

const kind = (name: string, port: number): LocalServerKind => ({ name, port, modelsPath: '/v1/models' });

describe('llm default with nothing configured', () => {
  const opened: { close: () => Promise<void> }[] = [];
  const open = async (handler: http.RequestListener) => {
    const s = await serve(handler);
    opened.push(s);
    return s;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });

  it('knows the usual ports of Ollama, LM Studio, vLLM and llama.cpp', () => {
    assert.deepEqual(LOCAL_SERVERS.map((s) => [s.name, s.port, s.modelsPath]), [
      ['Ollama', 11434, '/v1/models'],
      ['LM Studio', 1234, '/v1/models'],
      ['vLLM', 8000, '/v1/models'],
      ['llama.cpp', 8080, '/v1/models'],
    ]);
  });

  it('returns the first server in list order that answers with its models, skipping one that is down', async () => {
    const dead = await deadPort();
    const slow = await open(models(['qwen2.5-coder:7b', 'nomic-embed-text'], 80));
    const fast = await open(models(['llama-3.1-8b']));
    const found = await probeLocalServers(fetch, undefined, { servers: [kind('Ollama', dead), kind('LM Studio', slow.port), kind('vLLM', fast.port)] });
    assert.deepEqual(found, { name: 'LM Studio', baseUrl: `http://127.0.0.1:${slow.port}/v1`, models: ['qwen2.5-coder:7b', 'nomic-embed-text'] });
    assert.deepEqual(slow.hits, ['/v1/models']);
  });

  it('skips servers that hang, answer an error, speak something else or list no models, within the timeout', async () => {
    const hanging = await open(() => undefined);
    const failing = await open((_req, res) => void res.writeHead(500).end('boom'));
    const html = await open((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>router login</html>'));
    const empty = await open(models([]));
    const good = await open(models(['mistral']));
    const started = Date.now();
    const found = await probeLocalServers(fetch, undefined, {
      servers: [kind('a', hanging.port), kind('b', failing.port), kind('c', html.port), kind('d', empty.port), kind('e', good.port)],
      timeoutMs: 300,
    });
    assert.equal(found?.name, 'e');
    assert.ok(Date.now() - started < 2000, 'the hanging server cost at most the timeout');
    assert.equal(hanging.hits.length, 1);
    assert.equal(await probeLocalServers(fetch, undefined, { servers: [kind('a', hanging.port), kind('d', empty.port)], timeoutMs: 200 }), undefined);
  });

  it('stops at once when cancelled', async () => {
    const hanging = await open(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    assert.equal(await probeLocalServers(fetch, controller.signal, { servers: [kind('a', hanging.port)], timeoutMs: 10_000 }), undefined);
    assert.ok(Date.now() - started < 2000);
  });

  describe('chooseDefault', () => {
    const probe = { name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1', models: ['nomic-embed-text', 'qwen2.5-coder:7b'] };
    const copilot = { id: 'copilot-gpt-4.1', vendor: 'copilot', family: 'gpt-4.1', name: 'GPT-4.1' };

    it('runs local-first with escalation to the editor model when it has both', () => {
      const choice = chooseDefault({ vscodeLmModels: [copilot], probe });
      assert.ok(choice.ok);
      const config = LlmConfig.parse(choice.config);
      assert.deepEqual(config.models.map((m) => [m.id, m.provider, m.model]), [['local', 'local', 'qwen2.5-coder:7b'], ['editor', 'vscode-lm', 'copilot-gpt-4.1']]);
      assert.equal(config.routing.default, 'local');
      assert.equal(config.routing.escalation.to, 'editor');
      assert.equal(config.providers[0]!.baseUrl, 'http://127.0.0.1:11434/v1');
      assert.match(choice.description, /qwen2\.5-coder:7b on Ollama .* escalating to GPT-4\.1 from copilot/);
    });

    it('uses whichever one it has alone', () => {
      const editorOnly = chooseDefault({ vscodeLmModels: [copilot], probe: undefined });
      assert.ok(editorOnly.ok);
      assert.deepEqual(LlmConfig.parse(editorOnly.config).models.map((m) => m.id), ['editor']);
      const localOnly = chooseDefault({ vscodeLmModels: [], probe });
      assert.ok(localOnly.ok);
      assert.equal(LlmConfig.parse(localOnly.config).routing.default, 'local');
    });

    it('says how to set one up when nothing is available, including a server with only embedding models', () => {
      for (const p of [undefined, { ...probe, models: ['nomic-embed-text'] }]) {
        const choice = chooseDefault({ vscodeLmModels: [], probe: p });
        assert.ok(!choice.ok);
        assert.equal(choice.reason, 'nothing-available');
        assert.match(choice.message, /Set API Key/);
        assert.match(choice.message, /Ollama on port 11434/);
        assert.equal(choice.actionLabel, 'Set API Key');
      }
    });
  });
});
