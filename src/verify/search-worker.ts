import { Worker } from 'node:worker_threads';

/**
 * The worker threads of the built-in search, shared by SearchPool (whole files, read in the
 * worker) and RegexWorker (the lines of a file too large to read whole, streamed to it).
 *
 * A worker matches line by line with JavaScript's regex engine, which backtracks: `(a+)+$`
 * over a long line of `a` holds its thread for hours. Off the search's thread, that thread
 * keeps its timers, the timeout and Ctrl+C, and ends the workers with `terminate()`, which V8
 * honours even inside a running match.
 *
 * A files job reads each file with blocking reads into one reused buffer (no stat, no buffer
 * per file), skips empty files, searches a file with a NUL byte as text (skipping
 * it would let one NUL hide a match from an anti-criterion), skips at once a file whose raw bytes
 * lack the pattern's required literal (no decoding), and hands back unread a file past
 * `maxBytes` (the search streams it, so memory stays bounded). A texts job is some whole
 * lines of one file. The reply gives, per file or text with a match, its matching line
 * numbers, and those whose match threw (e.g. the regex ran out of stack): content unknown.
 *
 * Every job carries its search's pattern, so a worker a finished search gave back serves the
 * next search of the process (a worker's start costs about 35–60 ms of CPU: a gate with four Greps and
 * no ripgrep started four); one a search stopped, or that failed, is never given back.
 *
 * The code is a string started with `eval: true`, so every bundle (the command line, the
 * extension, the engine, a test) carries it without a file of its own.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
let key, line, prefilter, literal, maxBytes;
function configure(p) {
  const next = JSON.stringify(p);
  if (next === key) return;
  key = next;
  line = new RegExp(p.source, p.flags);
  prefilter = new RegExp(p.source, p.flags + 'm');
  literal = p.literal === undefined ? undefined : Buffer.from(p.literal, 'utf8');
  maxBytes = p.maxBytes;
}
let scratch = Buffer.allocUnsafe(64 * 1024);
function matching(text, first) {
  if (!prefilter.test(text)) return undefined;
  const lines = [];
  let n = first;
  for (let start = 0; start <= text.length; n++) {
    let end = text.indexOf('\\n', start);
    if (end === -1) end = text.length;
    if (line.test(text.slice(start, end))) lines.push(n);
    start = end + 1;
  }
  return lines.length > 0 ? lines : undefined;
}
/** The file's bytes (a view of the scratch buffer, valid until the next read), or undefined past maxBytes. */
function readWhole(file) {
  const fd = fs.openSync(file, 'r');
  try {
    let size = 0;
    for (;;) {
      if (size === scratch.length) {
        if (size > maxBytes) return undefined;
        const bigger = Buffer.allocUnsafe(Math.min(scratch.length * 4, maxBytes + 1));
        scratch.copy(bigger, 0, 0, size);
        scratch = bigger;
      }
      const n = fs.readSync(fd, scratch, size, scratch.length - size, null);
      if (n === 0) return scratch.subarray(0, size);
      size += n;
    }
  } finally {
    fs.closeSync(fd);
  }
}
parentPort.on('message', (job) => {
  configure(job.pattern);
  const found = [];
  const failed = [];
  if (job.texts) {
    for (let j = 0; j < job.texts.length; j++) {
      try {
        const lines = matching(job.texts[j], job.firstLines[j]);
        if (lines) found.push([j, lines]);
      } catch {
        failed.push(j);
      }
    }
    parentPort.postMessage({ id: job.id, found, failed });
    return;
  }
  const unreadable = [];
  const large = [];
  const files = job.files;
  for (let j = 0; j < files.length; j++) {
    let buffer;
    try {
      buffer = readWhole(job.root + '/' + files[j]);
    } catch {
      unreadable.push(j);
      continue;
    }
    if (buffer === undefined) { large.push(j); continue; }
    if (buffer.length === 0) continue;
    if (literal !== undefined && buffer.indexOf(literal) === -1) continue;
    let text = buffer.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith('\\n')) text = text.slice(0, -1);
    try {
      const lines = matching(text, 1);
      if (lines) found.push([j, lines]);
    } catch {
      failed.push(j);
    }
  }
  // A buffer grown for a large file is not kept: a worker may wait idle for the next search.
  if (scratch.length > 1024 * 1024) scratch = Buffer.allocUnsafe(64 * 1024);
  parentPort.postMessage({ id: job.id, found, failed, unreadable, large });
});
`;

export interface WorkerReply {
  id: number;
  found: [number, number[]][];
  failed: number[];
  unreadable?: number[];
  large?: number[];
}

export interface SearchWorkersOptions {
  threads: number;
  /** Files past this many bytes are handed back unread (files jobs). */
  maxBytes: number;
  /** A literal every match contains (requiredLiteral), looked for in the raw bytes. */
  literal?: string;
}

/** The pattern every job of a group carries (see WORKER_SOURCE). */
interface WorkerPattern {
  source: string;
  flags: string;
  literal?: string;
  maxBytes: number;
}

/** Workers finished searches gave back, for the next search of this process; each ends after IDLE_MS unused. */
const idle: { worker: Worker; timer: NodeJS.Timeout; gone: () => void }[] = [];
const IDLE_MAX = 4;
const IDLE_MS = 30_000;

function takeWorker(): Worker {
  const kept = idle.pop();
  if (!kept) return new Worker(WORKER_SOURCE, { eval: true });
  clearTimeout(kept.timer);
  kept.worker.off('exit', kept.gone).off('error', kept.gone);
  kept.worker.ref();
  return kept.worker;
}

function giveBack(worker: Worker): void {
  if (idle.length >= IDLE_MAX) return void worker.terminate();
  const gone = () => {
    const i = idle.findIndex((k) => k.worker === worker);
    if (i !== -1) clearTimeout(idle.splice(i, 1)[0]!.timer);
  };
  const timer = setTimeout(() => {
    gone();
    void worker.terminate();
  }, IDLE_MS);
  timer.unref();
  worker.on('exit', gone).on('error', gone);
  worker.unref();
  idle.push({ worker, timer, gone });
}

/** Ends the workers kept for the next search (tests; they end on their own after IDLE_MS). */
export function endIdleSearchWorkers(): void {
  for (const kept of idle.splice(0)) {
    clearTimeout(kept.timer);
    void kept.worker.terminate();
  }
}

/**
 * A few worker threads and the jobs sent to them: each job goes to the least loaded worker,
 * its reply to `onReply` with the job. Lifecycle in one place: a worker that dies on its own
 * ends the group with `failure` set; `stop` ends it at once, even mid-match; `release` gives
 * the workers of a finished search back for the next one; `changed()` resolves at the next reply
 * or at the end (one promise for every waiter).
 */
export class SearchWorkers<J> {
  private readonly workers: Worker[] = [];
  private readonly listeners: { message: (reply: WorkerReply) => void; error: (error: Error) => void; exit: (code: number) => void };
  private readonly pattern: WorkerPattern;
  /** Per worker, the weight (files, characters) sent and not yet answered. */
  private readonly load: number[] = [];
  private readonly sent = new Map<number, { worker: number; job: J; weight: number }>();
  private nextId = 0;
  private ended = false;
  private readonly endedPromise: Promise<void>;
  private markEnded!: () => void;
  private signal: { promise: Promise<void>; resolve: () => void } | undefined;
  /** Why a worker died on its own (a crash, out of memory); undefined while they work or after `stop`. */
  failure: string | undefined;

  constructor(regex: RegExp, options: SearchWorkersOptions, private readonly onReply: (reply: WorkerReply, job: J) => void) {
    this.endedPromise = new Promise((resolve) => (this.markEnded = resolve));
    this.pattern = { source: regex.source, flags: regex.flags, ...(options.literal !== undefined ? { literal: options.literal } : {}), maxBytes: options.maxBytes };
    this.listeners = {
      message: (reply) => this.receive(reply),
      error: (error) => this.fail(error.message),
      exit: (code) => this.fail(`a search worker thread exited (${code})`),
    };
    for (let i = 0; i < options.threads; i++) {
      const worker = takeWorker();
      worker.on('message', this.listeners.message).on('error', this.listeners.error).on('exit', this.listeners.exit);
      this.workers.push(worker);
      this.load.push(0);
    }
  }

  get isEnded(): boolean {
    return this.ended;
  }
  get whenEnded(): Promise<void> {
    return this.endedPromise;
  }
  /** Jobs sent and not yet answered. */
  get pending(): number {
    return this.sent.size;
  }
  /** The least weight any one worker has unanswered. */
  get lightest(): number {
    return Math.min(...this.load);
  }
  /** Total weight sent and not yet answered. */
  get inFlight(): number {
    return this.load.reduce((a, b) => a + b, 0);
  }

  /** Sends one job (`message` without its id) to the least loaded worker. */
  send(job: J, message: Record<string, unknown>, weight: number): void {
    if (this.ended) return;
    let least = 0;
    for (let i = 1; i < this.workers.length; i++) if (this.load[i]! < this.load[least]!) least = i;
    const id = this.nextId++;
    this.sent.set(id, { worker: least, job, weight });
    this.load[least]! += weight;
    this.workers[least]!.postMessage({ ...message, pattern: this.pattern, id });
  }

  /** Resolves at the next reply, or when the group ends. */
  changed(): Promise<void> {
    if (this.ended) return Promise.resolve();
    if (!this.signal) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.signal = { promise, resolve };
    }
    return this.signal.promise;
  }

  /** Ends every worker now, even in the middle of a match; every wait returns. */
  stop(): void {
    if (this.ended) return;
    this.end();
    for (const w of this.workers) void w.terminate();
  }

  /**
   * The search is done: its workers, every job answered, go back for the next search of the
   * process. With a job still unanswered (a match still running) they are ended as by `stop`.
   */
  release(): void {
    if (this.ended) return;
    if (this.sent.size > 0) return this.stop();
    this.end();
    for (const w of this.workers) {
      w.off('message', this.listeners.message).off('error', this.listeners.error).off('exit', this.listeners.exit);
      giveBack(w);
    }
  }

  private receive(reply: WorkerReply): void {
    const sent = this.sent.get(reply.id);
    if (!sent || this.ended) return;
    this.sent.delete(reply.id);
    this.load[sent.worker]! -= sent.weight;
    this.onReply(reply, sent.job);
    this.wake();
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
    this.wake();
  }

  private wake(): void {
    const signal = this.signal;
    this.signal = undefined;
    signal?.resolve();
  }
}
