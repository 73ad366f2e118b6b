// A small HTTP server for the fake model providers: it reads JSON bodies, records every
// request, and writes JSON or server-sent events. What breaks the provider's contract is
// recorded, and fails the test whose host sent it (assertNoContractBreaks).
import * as assert from 'node:assert/strict';
import * as http from 'node:http';

export class FakeServer {
  /** @param {(req: { method: string, path: string, headers: object, body: any, raw: string }, res: Reply) => void} handler */
  constructor(name, handler) {
    this.name = name;
    this.received = [];
    /** Requests refused by a documented rule: { rule, status, message }. */
    this.refused = [];
    /** The fake's own faults (its handler threw): { message }. */
    this.faults = [];
    this.server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body;
        try {
          body = raw ? JSON.parse(raw) : undefined;
        } catch {
          body = undefined;
        }
        const url = new URL(req.url ?? '/', 'http://x');
        const entry = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body, raw };
        this.received.push(entry);
        const reply = new Reply(res, this);
        try {
          handler(entry, reply);
        } catch (error) {
          this.faults.push({ message: `${req.method} ${url.pathname}: ${error.message ?? error}` });
          reply.json(599, { error: { message: `fake ${name}: ${error.stack ?? error}` } });
        }
      });
    });
  }

  async start() {
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${this.server.address().port}`;
    return this;
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export class Reply {
  constructor(res, server) {
    this.res = res;
    this.server = server;
  }

  json(status, value) {
    this.res.writeHead(status, { 'content-type': 'application/json' });
    this.res.end(JSON.stringify(value));
  }

  /** Refuses by a documented rule, recorded so a test fails on it. */
  refuse(rule, status, value) {
    this.server.refused.push({ rule, status, message: JSON.stringify(value) });
    this.json(status, value);
  }

  /** Server-sent events: `events` is a list of [eventName | undefined, data]. `done` adds `data: [DONE]`. */
  sse(events, { done = false } = {}) {
    this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const [event, data] of events) {
      if (event) this.res.write(`event: ${event}\n`);
      this.res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    }
    if (done) this.res.write('data: [DONE]\n\n');
    this.res.end();
  }
}

/**
 * What went against the contract in one run: each request the fake refused by a documented
 * rule of its provider, each fault of the fake itself, each problem the scripted model met
 * (a host that offered no tool it knows). A host that retries after a refusal may still reach
 * the end; these say that it broke the rules on the way.
 */
export function contractBreaks(server, script) {
  return [
    ...server.refused.map((r) => `the fake ${server.name} refused a request by the rule "${r.rule}" (HTTP ${r.status}): ${r.message}`),
    ...server.faults.map((f) => `the fake ${server.name} failed on ${f.message}`),
    ...(script?.problems ?? []).map((p) => `the scripted model: ${p}`),
  ];
}

/** Fails the calling test with every break of `contractBreaks`, and `log` for the rest of the run. */
export function assertNoContractBreaks(server, script, log = '') {
  const breaks = contractBreaks(server, script);
  if (breaks.length === 0) return;
  assert.fail(`${breaks.length} break(s) of the provider's contract:\n- ${breaks.join('\n- ')}${log ? `\n${log}` : ''}`);
}
