import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * Where the built-in search reads and matches files: a few worker threads (one per core, at
 * most four), each given batches of file paths. A worker reads each file with blocking reads
 * (its own thread, so the search's thread keeps its timers, the timeout and Ctrl+C), skips
 * binary files, skips at once a file without the pattern's required literal (found in the raw
 * bytes, before any decoding), and matches the rest line by line as RegexWorker does. A file
 * past `maxBytes` is handed back unread: the search streams it itself, so memory stays bounded.
 *
 * Like RegexWorker, the code is a string started with `eval: true`, so every bundle carries it.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const line = new RegExp(workerData.source, workerData.flags);
const prefilter = new RegExp(workerData.source, workerData.flags + 'm');
const literal = workerData.literal === undefined ? undefined : Buffer.from(workerData.literal, 'utf8');
const maxBytes = workerData.maxBytes;
parentPort.on('message', ({ id, root, files }) => {
  const found = [];
  const failed = [];
  const unreadable = [];
  const large = [];
  for (let j = 0; j < files.length; j++) {
    let buffer;
    try {
      const fd = fs.openSync(root + '/' + files[j], 'r');
      try {
        const size = fs.fstatSync(fd).size;
        if (size > maxBytes) { large.push(j); continue; }
        buffer = Buffer.allocUnsafe(size);
        let read = 0;
        while (read < size) {
          const n = fs.readSync(fd, buffer, read, size - read, read);
          if (n === 0) break;
          read += n;
        }
        if (read < size) buffer = buffer.subarray(0, read);
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      unreadable.push(j);
      continue;
    }
    if (buffer.length === 0 || buffer.includes(0)) continue;
    if (literal !== undefined && buffer.indexOf(literal) === -1) continue;
    let text = buffer.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith('\\n')) text = text.slice(0, -1);
    try {
      if (!prefilter.test(text)) continue;
      const lines = [];
      let n = 1;
      for (let start = 0; start <= text.length; n++) {
        let end = text.indexOf('\\n', start);
        if (end === -1) end = text.length;
        if (line.test(text.slice(start, end))) lines.push(n);
        start = end + 1;
      }
      if (lines.length > 0) found.push([j, lines]);
    } catch {
      failed.push(j);
    }
  }
  parentPort.postMessage({ id, found, failed, unreadable, large });
});
`;

/** Files per message: large enough that messaging costs little per file, small enough to spread over the workers. */
const BATCH_FILES = 64;
/** Batches sent to one worker and not yet answered, before `submit` waits. */
const MAX_IN_FLIGHT_PER_WORKER = 4;

interface Reply {
  id: number;
  found: [number, number[]][];
  failed: number[];
  unreadable: number[];
  large: number[];
}

export interface SearchPoolSink {
  match(file: string, line: number): void;
  /** The match threw on this file's text: its content is unknown. */
  unreadable(file: string): void;
  /** Larger than `maxBytes`: not read; the caller streams it. */
  large(file: string): void;
}

export class SearchPool {
  private readonly workers: Worker[] = [];
  private readonly inFlight: number[] = [];
  private readonly sent = new Map<number, { worker: number; files: string[] }>();
  private batch: string[] = [];
  private nextId = 0;
  private waiting: (() => void)[] = [];
  private ended = false;
  private readonly endedPromise: Promise<void>;
  private markEnded!: () => void;
  /** Why a worker died on its own (a crash, out of memory); undefined while they work or after `stop`. */
  failure: string | undefined;

  constructor(
    regex: RegExp,
    private readonly root: string,
    private readonly sink: SearchPoolSink,
    options: { maxBytes: number; threads?: number },
  ) {
    this.endedPromise = new Promise((resolve) => (this.markEnded = resolve));
    const literal = requiredLiteral(regex.source);
    const threads = options.threads ?? Math.max(1, Math.min(availableParallelism(), 4));
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { source: regex.source, flags: regex.flags, literal, maxBytes: options.maxBytes } });
      worker.on('message', (reply: Reply) => this.receive(reply));
      worker.on('error', (error) => this.fail(error.message));
      worker.on('exit', (code) => this.fail(`a search worker thread exited (${code})`));
      this.workers.push(worker);
      this.inFlight.push(0);
    }
  }

  /** Queues a file (relative to the root, `/`-separated); waits while every worker has enough to do. */
  async submit(file: string): Promise<void> {
    if (this.ended) return;
    this.batch.push(file);
    if (this.batch.length >= BATCH_FILES) await this.flush();
  }

  /** Resolves when every queued file has been answered, or at once when the pool ended. */
  async finish(): Promise<void> {
    await this.flush();
    while (!this.ended && this.sent.size > 0) await Promise.race([new Promise<void>((resolve) => this.waiting.push(resolve)), this.endedPromise]);
  }

  get whenEnded(): Promise<void> {
    return this.endedPromise;
  }

  /** Ends every worker now, even in the middle of a match; every wait returns. */
  stop(): void {
    if (this.ended) return;
    this.end();
    for (const w of this.workers) void w.terminate();
  }

  private async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const files = this.batch;
    this.batch = [];
    for (;;) {
      if (this.ended) return;
      let least = 0;
      for (let i = 1; i < this.workers.length; i++) if (this.inFlight[i]! < this.inFlight[least]!) least = i;
      if (this.inFlight[least]! < MAX_IN_FLIGHT_PER_WORKER) {
        const id = this.nextId++;
        this.sent.set(id, { worker: least, files });
        this.inFlight[least]!++;
        this.workers[least]!.postMessage({ id, root: this.root, files });
        return;
      }
      await Promise.race([new Promise<void>((resolve) => this.waiting.push(resolve)), this.endedPromise]);
    }
  }

  private receive(reply: Reply): void {
    const sent = this.sent.get(reply.id);
    if (!sent || this.ended) return;
    this.sent.delete(reply.id);
    this.inFlight[sent.worker]!--;
    const files = sent.files;
    for (const [j, lines] of reply.found) for (const n of lines) this.sink.match(files[j]!, n);
    for (const j of reply.failed) this.sink.unreadable(files[j]!);
    for (const j of reply.unreadable) this.sink.unreadable(files[j]!);
    for (const j of reply.large) this.sink.large(files[j]!);
    this.release();
  }

  private fail(reason: string): void {
    if (this.ended) return;
    this.failure = reason;
    this.end();
    for (const w of this.workers) void w.terminate();
  }

  private end(): void {
    this.ended = true;
    this.markEnded();
    this.release();
  }

  private release(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}

/**
 * The longest run of literal characters every match must contain, or undefined when the
 * pattern has none worth looking for (shorter than 3 characters) or cannot be read simply
 * (an alternation outside a group). Only characters outside groups count, and a character a
 * quantifier makes optional (`?`, `*`, `{0,…}`) ends the run without itself: so a file whose
 * bytes lack the run cannot match, and skipping it changes no outcome.
 */
export function requiredLiteral(source: string): string | undefined {
  const chars = Array.from(source);
  const runs: string[][] = [];
  let run: string[] = [];
  let lastWasLiteral = false;
  let depth = 0;
  const cut = () => {
    if (run.length > 0) runs.push(run);
    run = [];
    lastWasLiteral = false;
  };
  const literal = (c: string) => {
    if (depth > 0) return;
    run.push(c);
    lastWasLiteral = true;
  };
  /** A quantifier on the previous atom: optional drops a literal; either way the run ends. */
  const quantified = (optional: boolean) => {
    if (lastWasLiteral && optional) run.pop();
    cut();
  };
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\') {
      const next = chars[++i];
      if (next !== undefined && '.^$*+?()[]{}|\\/-'.includes(next)) literal(next);
      else cut();
    } else if (c === '[') {
      // A class: skip to its end (escapes inside it included).
      for (i++; i < chars.length && chars[i] !== ']'; i++) if (chars[i] === '\\') i++;
      cut();
    } else if (c === '(') {
      cut();
      depth++;
    } else if (c === ')') {
      depth = Math.max(0, depth - 1);
      cut();
    } else if (c === '|') {
      if (depth === 0) return undefined;
    } else if (c === '*' || c === '?') {
      quantified(true);
    } else if (c === '+') {
      quantified(false);
    } else if (c === '{') {
      const m = /^\{(\d+)(,\d*)?\}/.exec(chars.slice(i).join(''));
      if (!m) return undefined;
      quantified(Number(m[1]) === 0);
      i += Array.from(m[0]).length - 1;
    } else if (c === '.' || c === '^' || c === '$') {
      cut();
    } else {
      literal(c);
    }
  }
  cut();
  const best = runs.map((r) => r.join('')).sort((a, b) => b.length - a.length)[0];
  return best !== undefined && best.length >= 3 && !best.includes('\uFFFD') ? best : undefined;
}
