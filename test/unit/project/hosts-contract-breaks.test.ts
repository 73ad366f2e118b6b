import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../support/repo-root';

/**
 * The hosts tier's verdict on its fakes (test/hosts/http.mjs): a request the real provider
 * would refuse fails the test whose host sent it, even when the host retried and got through.
 */

const REPO = REPO_ROOT;

interface FakeServer {
  url: string;
  refused: unknown[];
  stop(): Promise<void>;
}
interface Hosts {
  startAnthropic(script: { next(): { kind: 'text'; text: string } }): Promise<FakeServer>;
  assertNoContractBreaks(server: FakeServer, script: { problems: string[] }, log?: string): void;
}

async function hosts(): Promise<Hosts> {
  const load = (file: string) => import(pathToFileURL(path.join(REPO, 'test', 'hosts', file)).href);
  return { ...(await load('fake-anthropic.mjs')), ...(await load('http.mjs')) } as Hosts;
}

describe('hosts tier: a break of the provider contract fails the test that caused it', () => {
  const script = { problems: [] as string[], next: () => ({ kind: 'text' as const, text: 'done' }) };
  const ask = (url: string, headers: Record<string, string>, messages: unknown[] = [{ role: 'user', content: 'hi' }]) =>
    fetch(`${url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-fake', ...headers }, body: JSON.stringify({ model: 'claude-fake', max_tokens: 64, messages }) });

  it('a request without anthropic-version, refused by the fake and then retried right, fails with the rule in the message', async () => {
    const h = await hosts();
    const server = await h.startAnthropic(script);
    try {
      assert.equal((await ask(server.url, {})).status, 400);
      assert.equal((await ask(server.url, { 'anthropic-version': '2023-06-01' })).status, 200);
      assert.throws(() => h.assertNoContractBreaks(server, script, 'the run log'), (error: Error) => {
        assert.match(error.message, /1 break\(s\) of the provider's contract/);
        assert.match(error.message, /the fake anthropic refused a request by the rule "version" \(HTTP 400\)/);
        assert.match(error.message, /the run log/);
        return true;
      });
    } finally {
      await server.stop();
    }
  });

  it("passes a run of requests that hold the contract, and fails on the scripted model's problems", async () => {
    const h = await hosts();
    const server = await h.startAnthropic(script);
    try {
      assert.equal((await ask(server.url, { 'anthropic-version': '2023-06-01' })).status, 200);
      // A system message in `messages` is the API's own (SystemMessageParam), as Claude Code 2.1 sends it.
      const withSystem = [{ role: 'user', content: 'hi' }, { role: 'system', content: [{ type: 'text', text: '# Environment' }] }];
      assert.equal((await ask(server.url, { 'anthropic-version': '2023-06-01' }, withSystem)).status, 200);
      h.assertNoContractBreaks(server, script);
      assert.throws(() => h.assertNoContractBreaks(server, { problems: ['no known write tool among Read'] }), /the scripted model: no known write tool among Read/);
    } finally {
      await server.stop();
    }
  });
});
