// A small HTTP server for the fake model providers: it reads JSON bodies, records every
// request, and writes JSON or server-sent events.
import * as http from 'node:http';

export class FakeServer {
  /** @param {(req: { method: string, path: string, headers: object, body: any, raw: string }, res: Reply) => void} handler */
  constructor(name, handler) {
    this.name = name;
    this.received = [];
    /** Requests refused by a documented rule: { rule, status, message }. */
    this.refused = [];
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
