import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The largest message the server reads (a proposal of 50 criteria is a few kB). */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * MCP over stdio (newline-delimited JSON-RPC, https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#stdio)
 * with a bound on one message. The SDK's StdioServerTransport closes the connection when a
 * message passes its 10 MB buffer, so one 12 MB message ended the server with exit 0 and no
 * word. Here a message over the bound is skipped as it streams in (never held in
 * memory), answered with a JSON-RPC error for its id (found by a scan of its top-level keys)
 * and logged, and the server goes on serving.
 */
export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  private skipping: IdScanner | undefined;
  private closed = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly log: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
    private readonly maxBytes = MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
    this.stdin.once('end', this.onEnd);
  }

  private readonly onStreamError = (error: Error) => this.onerror?.(error);
  private readonly onEnd = () => void this.close();

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    while (data.length > 0) {
      const nl = data.indexOf(0x0a);
      const part = nl < 0 ? data : data.subarray(0, nl);
      if (this.skipping) this.skipping.feed(part);
      else if (this.size + part.length > this.maxBytes) {
        this.skipping = new IdScanner();
        for (const c of this.chunks) this.skipping.feed(c);
        this.skipping.feed(part);
        this.chunks = [];
      } else {
        this.chunks.push(part);
      }
      this.size += part.length;
      if (nl < 0) return;
      data = data.subarray(nl + 1);
      this.endOfLine();
    }
  };

  private endOfLine(): void {
    const size = this.size;
    const skipped = this.skipping;
    const line = skipped ? undefined : Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    this.skipping = undefined;
    if (skipped) return this.refuseOversized(size, skipped.id);
    if (line === undefined || line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (error) {
      this.log(`ideal-state mcp: a message that is not JSON-RPC was ignored (${error instanceof SyntaxError ? error.message : 'not a JSON-RPC 2.0 message'})`);
      return;
    }
    this.onmessage?.(message);
  }

  private refuseOversized(size: number, id: string | number | undefined): void {
    this.log(`ideal-state mcp: refused a message of ${size} bytes, over the ${this.maxBytes} bytes one message may have${id === undefined ? '' : ` (request id ${JSON.stringify(id)})`}; still serving`);
    if (id === undefined) return; // a notification (or no id to answer): nothing to answer
    void this.send({ jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: the message is ${size} bytes, over the ${this.maxBytes} bytes this server reads in one message; send less at once` } });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    await new Promise<void>((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    this.stdin.off('end', this.onEnd);
    this.chunks = [];
    this.onclose?.();
  }
}

/**
 * Finds a JSON object's top-level `"id"` value while the bytes stream past, holding only the
 * current key and a short value: depth and string state, nothing else.
 */
class IdScanner {
  id: string | number | undefined;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private token = '';
  private lastKey: string | undefined;
  private expectValue = false;
  private capture: string | undefined;
  private done = false;

  feed(bytes: Buffer): void {
    if (this.done) return;
    const text = bytes.toString('latin1');
    for (let i = 0; i < text.length && !this.done; i++) {
      const ch = text[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (ch === '\\') this.escaped = true;
        else if (ch === '"') {
          this.inString = false;
          this.endString();
          continue;
        }
        if (this.depth === 1 && this.token.length < 200) this.token += ch;
        continue;
      }
      if (this.capture !== undefined) {
        if (/[0-9.eE+-]/.test(ch) && this.capture.length < 40) {
          this.capture += ch;
          continue;
        }
        const n = Number(this.capture);
        if (this.capture !== '' && Number.isFinite(n)) this.setId(n);
        this.capture = undefined;
      }
      if (ch === '"') {
        this.inString = true;
        this.token = '';
      } else if (ch === '{' || ch === '[') {
        this.depth++;
        this.expectValue = false;
      } else if (ch === '}' || ch === ']') this.depth--;
      else if (ch === ':' && this.depth === 1) this.expectValue = true;
      else if (ch === ',') this.expectValue = false;
      else if (this.depth === 1 && this.expectValue && this.lastKey === 'id' && /[0-9-]/.test(ch)) this.capture = ch;
    }
  }

  private endString(): void {
    if (this.depth !== 1) return;
    if (this.expectValue) {
      if (this.lastKey === 'id') this.setId(this.token);
      this.expectValue = false;
      this.lastKey = undefined;
    } else this.lastKey = this.token;
  }

  private setId(id: string | number): void {
    this.id = id;
    this.done = true;
  }
}
