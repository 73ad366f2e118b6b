import { Worker } from 'node:worker_threads';

/**
 * Where the JS search runs its regex: a worker thread of its own, so a pattern that
 * backtracks catastrophically (`(a+)+$` over a long line) blocks that thread only. The
 * search's thread keeps its timers and its AbortSignal, and ends the worker with
 * `terminate()`, which V8 honours even inside a running match.
 *
 * The worker's code is a string started with `eval: true`, so every bundle (the command
 * line, the extension, the engine, a test) carries it without a file of its own. It only
 * matches: reading files, ignore rules and the collector stay on the search's thread.
 * Each job is some whole lines of one file; the reply gives, per job with a match, its
 * matching line numbers, and the jobs whose match threw (e.g. the regex ran out of stack),
 * whose content is then unknown.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const line = new RegExp(workerData.source, workerData.flags);
const prefilter = new RegExp(workerData.source, workerData.flags + 'm');
parentPort.on('message', ({ id, texts, firstLines }) => {
  const found = [];
  const failed = [];
  for (let j = 0; j < texts.length; j++) {
    const text = texts[j];
    try {
      if (!prefilter.test(text)) continue;
      const lines = [];
      let n = firstLines[j];
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
  parentPort.postMessage({ id, found, failed });
});
`;

/** Lines are sent in batches of about this many characters, one message each. */
const BATCH_CHARS = 256 * 1024;
/** Past this many characters sent and not yet answered, `submit` waits: a stuck regex must not let the reads fill memory. */
const MAX_IN_FLIGHT_CHARS = 8 * 1024 * 1024;

interface Batch {
  files: string[];
  texts: string[];
  firstLines: number[];
  chars: number;
}

interface Reply {
  id: number;
  found: [number, number[]][];
  failed: number[];
}

export interface RegexWorkerSink {
  match(file: string, line: number): void;
  /** The match threw on this file's text: its content is unknown. */
  unreadable(file: string): void;
}

export class RegexWorker {
  private readonly worker: Worker;
  private batch: Batch = emptyBatch();
  private readonly sent = new Map<number, Batch>();
  private nextId = 0;
  private inFlight = 0;
  private flushScheduled = false;
  private waiting: (() => void)[] = [];
  private ended = false;
  private readonly endedPromise: Promise<void>;
  private markEnded!: () => void;
  /** Why the worker died on its own (a crash, out of memory); undefined while it works or after `stop`. */
  failure: string | undefined;

  constructor(regex: RegExp, private readonly sink: RegexWorkerSink) {
    this.endedPromise = new Promise((resolve) => (this.markEnded = resolve));
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { source: regex.source, flags: regex.flags } });
    this.worker.on('message', (reply: Reply) => this.receive(reply));
    this.worker.on('error', (error) => this.fail(error.message));
    this.worker.on('exit', (code) => this.fail(`the search's worker thread exited (${code})`));
  }

  /** Queues some whole lines of a file (joined by `\n`, the first numbered `firstLine`); waits while too much is unanswered. */
  async submit(file: string, text: string, firstLine: number): Promise<void> {
    if (this.ended) return;
    const b = this.batch;
    b.files.push(file);
    b.texts.push(text);
    b.firstLines.push(firstLine);
    b.chars += text.length;
    if (b.chars >= BATCH_CHARS) this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    while (!this.ended && this.inFlight > MAX_IN_FLIGHT_CHARS) await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Resolves when every queued line has been answered, or at once when the worker ended. */
  async finish(): Promise<void> {
    this.flush();
    while (!this.ended && this.sent.size > 0) await Promise.race([new Promise<void>((resolve) => this.waiting.push(resolve)), this.endedPromise]);
  }

  /** Resolves when the worker ends: by `stop` or by failing. */
  get whenEnded(): Promise<void> {
    return this.endedPromise;
  }

  /** Ends the worker now, even in the middle of a match; every wait returns. */
  stop(): void {
    if (this.ended) return;
    this.end();
    void this.worker.terminate();
  }

  private flush(): void {
    this.flushScheduled = false;
    const b = this.batch;
    if (this.ended || b.texts.length === 0) return;
    this.batch = emptyBatch();
    const id = this.nextId++;
    this.sent.set(id, b);
    this.inFlight += b.chars;
    this.worker.postMessage({ id, texts: b.texts, firstLines: b.firstLines });
  }

  private receive(reply: Reply): void {
    const b = this.sent.get(reply.id);
    if (!b || this.ended) return;
    this.sent.delete(reply.id);
    this.inFlight -= b.chars;
    for (const [j, lines] of reply.found) for (const n of lines) this.sink.match(b.files[j]!, n);
    for (const j of reply.failed) this.sink.unreadable(b.files[j]!);
    this.release();
  }

  private fail(reason: string): void {
    if (this.ended) return;
    this.failure = reason;
    this.end();
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

function emptyBatch(): Batch {
  return { files: [], texts: [], firstLines: [], chars: 0 };
}
