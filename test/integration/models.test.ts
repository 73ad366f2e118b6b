import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateIdealState, extensionEngine } from './ideal-state';

describe('language models in the editor', () => {
  it('offers OpenAI and Anthropic as unavailable until a key is set, saying how to set one', async () => {
    const options = await (await activateIdealState()).modelOptions();
    const hosted = options.filter((o) => o.id.startsWith('openai:') || o.id.startsWith('anthropic:'));
    assert.equal(hosted.length, 2, JSON.stringify(options));
    for (const option of hosted) {
      assert.equal(option.available, false);
      assert.match(option.detail, /has no API key: use "Ideal State: Set API Key"/);
      assert.ok(option.providerNeedingKey, 'offers to set the key');
    }
  });

  it('reads a models file from the trusted workspace, reporting a bad one without crashing', async () => {
    const api = await activateIdealState();
    const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.ideal-state/models.yaml');
    const write = (text: string) => vscode.workspace.fs.writeFile(file, new TextEncoder().encode(text));
    try {
      await write(['version: 1', 'providers:', '  - id: lmstudio', '    kind: openai', '    baseUrl: http://127.0.0.1:1234/v1', 'models:', '  - id: coder', '    provider: lmstudio', '    model: qwen2.5-coder', ''].join('\n'));
      const local = (await api.modelOptions()).find((o) => o.id === 'coder');
      assert.ok(local?.available, 'a loopback server needs no key');
      assert.match(local.detail, /local/);
      await write('version: 1\nproviders: []\nmodels: []\n');
      const fallback = await api.modelOptions();
      assert.ok(fallback.some((o) => o.id.startsWith('openai:')), 'falls back to the defaults');
    } finally {
      await vscode.workspace.fs.delete(file, { useTrash: false });
    }
  });
});

describe('language models from any window', () => {
  it('with a models file that names neither (as the demo\'s), still lists OpenAI and Anthropic, saying why they cannot serve', async () => {
    const api = await activateIdealState();
    const folder = vscode.workspace.workspaceFolders![0]!.uri;
    const file = vscode.Uri.joinPath(folder, '.ideal-state/models.yaml');
    const models = ['version: 1', 'providers: [{ id: scripted, kind: scripted, script: .ideal-state/demo/demo-run.yaml }]', 'models: [{ id: demo, provider: scripted, model: demo-run }]', 'routing: { default: demo }', ''];
    try {
      await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(models.join('\n')));
      const options = await api.modelOptions();
      assert.equal(options[0]?.id, 'demo', JSON.stringify(options));
      assert.equal(options[0]?.available, true);
      for (const provider of ['openai', 'anthropic']) {
        const hosted = options.find((o) => o.id.startsWith(`${provider}:`));
        assert.ok(hosted, `${provider} is listed: ${JSON.stringify(options)}`);
        assert.equal(hosted.available, false);
        assert.equal(hosted.providerNeedingKey, provider, 'picking it offers to set its key');
        assert.match(hosted.detail, new RegExp(`provider "${provider}" has no API key: use "Ideal State: Set API Key" or set ${provider.toUpperCase()}_API_KEY`));
      }
    } finally {
      await vscode.workspace.fs.delete(file, { useTrash: false });
    }
  });
});

describe('budget caps in the editor', () => {
  it('holds runs to the idealState.budgets settings, over the models file, over the effort level', async () => {
    const api = await activateIdealState();
    const shipped = extensionEngine().budgetFor('STANDARD');
    const budgets = vscode.workspace.getConfiguration('idealState.budgets');
    const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.ideal-state/models.yaml');
    const set = (key: string, value: number | undefined) => budgets.update(key, value, vscode.ConfigurationTarget.Workspace);
    try {
      assert.deepEqual(await api.budgetLimits('STANDARD'), shipped, 'nothing set: the shipped caps of the level');
      const models = ['version: 1', 'providers: [{ id: lmstudio, kind: openai, baseUrl: "http://127.0.0.1:1234/v1" }]', 'models: [{ id: coder, provider: lmstudio, model: qwen2.5-coder }]'];
      await vscode.workspace.fs.writeFile(file, new TextEncoder().encode([...models, 'budgets:', '  STANDARD: { call: { tokens: 1000 }, run: { usd: 1 } }', ''].join('\n')));
      let limits = await api.budgetLimits('STANDARD');
      assert.deepEqual(limits.call, { tokens: 1000, usd: shipped.call.usd }, 'the models file replaces the level\'s cap');
      assert.deepEqual(limits.run, { tokens: shipped.run.tokens, usd: 1 });
      await set('callTokens', 500);
      await set('runUsd', 0);
      limits = await api.budgetLimits('STANDARD');
      assert.equal(limits.call.tokens, 500, 'the setting wins over the models file');
      assert.equal(limits.run.usd, 1, 'a setting of 0 leaves the cap to the models file');
      assert.equal((await api.modelsForRun('STANDARD')).budget.limits.call.tokens, 500, 'a run gets the caps in force');
      assert.equal((await api.budgetLimits('DEEP')).call.tokens, 500, 'a setting holds at every effort level');
      await set('callTokens', undefined);
      assert.equal((await api.budgetLimits('STANDARD')).call.tokens, 1000, 'cleared: the models file again');
    } finally {
      await set('callTokens', undefined);
      await set('runUsd', undefined);
      await vscode.workspace.fs.delete(file, { useTrash: false });
    }
    assert.deepEqual(await api.budgetLimits('STANDARD'), shipped);
  });
});

describe('language models with nothing configured', () => {
  it('finds an OpenAI-compatible server on its usual local port and offers it, no key needed', async function () {
    const http = await import('node:http');
    const asked: string[] = [];
    const server = http.createServer((req, res) => {
      asked.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(req.url === '/v1/models' ? JSON.stringify({ object: 'list', data: [{ id: 'qwen2.5-coder:7b', object: 'model' }] }) : '{}');
    });
    // A free port, never Ollama's own 11434 (a developer's Ollama may hold it): the extension's
    // requests to 127.0.0.1:11434 are sent here instead, through this extension host's fetch.
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (server.address() as { port: number }).port;
    const realFetch = globalThis.fetch;
    globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const ollama = /^http:\/\/127\.0\.0\.1:11434(\/.*)?$/.exec(url);
      return realFetch(ollama ? `http://127.0.0.1:${port}${ollama[1] ?? '/'}` : input, init);
    }) as typeof fetch;
    try {
      const options = await (await activateIdealState()).modelOptions();
      assert.ok(asked.includes('/v1/models'), `the extension never asked the local port: ${JSON.stringify(asked)}`);
      const local = options.find((o) => o.id === 'local');
      assert.ok(local, JSON.stringify(options));
      assert.equal(local.available, true);
      assert.match(local.detail, /local/);
      assert.equal(options[0]!.id, 'local', 'available models come first');
    } finally {
      globalThis.fetch = realFetch;
      server.close();
    }
  });
});
