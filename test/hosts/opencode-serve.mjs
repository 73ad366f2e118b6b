// opencode driven as its users' editors and the TUI drive it: `opencode serve` and its HTTP API.
// `opencode run` exits at the session's first idle, before the plugin's answer can send the
// agent back, so the hosts tier uses the server (https://opencode.ai/docs/server; the routes
// as the 1.18.33 binary lists them at GET /doc, from packages/opencode/src/server/routes in
// sst/opencode, now anomalyco/opencode):
//   POST /session                           session.create → { id }
//   POST /session/{sessionID}/prompt_async  session.prompt_async, { parts, model } → 204
//   GET  /event                             event.subscribe: server-sent bus events, among
//                                           them session.status and session.idle
// The product's plugin (`gate install opencode`, .opencode/plugin/ideal-state-gate.js) runs on
// session.idle and, on a block, prompts the same session with the reason.
import { spawn } from 'node:child_process';
import * as net from 'node:net';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const json = (body) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/**
 * Starts `opencode serve` in `cwd`, sends `prompt` to a new session with `model`, and waits
 * until `settled()` holds and the session has stayed idle for `quietMs`, or `timeoutMs`.
 * @returns {Promise<{ code: number | string, stdout: string, stderr: string, events: object[] }>}
 */
export async function serveOpencode(bin, { cwd, env, prompt, model, settled, quietMs = 4000, timeoutMs = 420_000 }) {
  const port = await freePort();
  const child = spawn(bin, ['serve', '--port', String(port), '--hostname', '127.0.0.1', '--print-logs'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const closed = new Promise((resolve) => child.on('close', resolve));
  const events = [];
  const stopEvents = new AbortController();
  const deadline = Date.now() + timeoutMs;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  let code = 'timeout';
  try {
    const url = `http://127.0.0.1:${port}`;
    while (!/listening on/.test(stdout)) {
      if (child.exitCode !== null) throw new Error(`opencode serve exited ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error('opencode serve did not start listening');
      await sleep(200);
    }
    const stream = await fetch(`${url}/event`, { signal: stopEvents.signal });
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of stream.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let at;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
          try {
            if (data) events.push({ at: Date.now(), ...JSON.parse(data) });
          } catch {
            // not JSON: not an event of the bus
          }
        }
      }
    })().catch(() => undefined);
    const created = await fetch(`${url}/session`, json({}));
    if (!created.ok) throw new Error(`POST /session: ${created.status} ${await created.text()}`);
    const session = await created.json();
    const sent = await fetch(`${url}/session/${session.id}/prompt_async`, json({ parts: [{ type: 'text', text: prompt }], model }));
    if (sent.status >= 300) throw new Error(`POST /session/${session.id}/prompt_async: ${sent.status} ${await sent.text()}`);
    const mine = (e) => e.properties?.sessionID === session.id;
    while (Date.now() < deadline) {
      await sleep(500);
      const status = events.filter((e) => mine(e) && (e.type === 'session.status' || e.type === 'session.idle')).at(-1);
      const idle = status && (status.type === 'session.idle' || status.properties.status?.type === 'idle');
      if (idle && Date.now() - status.at >= quietMs && settled()) {
        code = 0;
        break;
      }
    }
  } catch (error) {
    code = `error: ${error.message}`;
  } finally {
    stopEvents.abort();
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await closed;
    clearTimeout(killer);
  }
  return { code, stdout, stderr, events };
}
