import { availableParallelism } from 'node:os';
import { SearchWorkers, type WorkerReply } from './search-worker';

/**
 * Where the built-in search reads and matches files: a few worker threads (one per core, at
 * most four; src/verify/search-worker.ts), each given batches of file paths to read and match.
 * The walk hands files over with `add`, which only queues (no promise per file: with 100,000
 * files the waiting itself had cost the walk's thread more than the reading cost the workers),
 * and waits on `room()` once per folder while the queue is long, so memory stays bounded.
 */

/** Files per message: large enough that messaging costs little per file, small enough to spread over the workers. */
const BATCH_FILES = 128;
/** Batches one worker has unanswered before the next waits in the queue. */
const MAX_IN_FLIGHT_PER_WORKER = 3;
/** Queued files past which the walk waits (`room`). */
const QUEUE_HIGH = 8 * 1024;

export interface SearchPoolSink {
  match(file: string, line: number): void;
  /** The match threw on this file's text: its content is unknown. */
  unreadable(file: string): void;
  /** Larger than `maxBytes`: not read; the caller streams it. */
  large(file: string): void;
}

export class SearchPool {
  private readonly workers: SearchWorkers<string[]>;
  private queue: string[] = [];
  /** The first queued file not yet sent. */
  private head = 0;
  private finishing = false;

  constructor(
    regex: RegExp,
    private readonly root: string,
    private readonly sink: SearchPoolSink,
    options: { maxBytes: number; threads?: number },
  ) {
    const threads = options.threads ?? Math.max(1, Math.min(availableParallelism(), 4));
    const literal = requiredLiteral(regex.source);
    this.workers = new SearchWorkers<string[]>(regex, { threads, maxBytes: options.maxBytes, ...(literal !== undefined ? { literal } : {}) }, (reply, files) => this.receive(reply, files));
  }

  /** Why a worker died on its own; undefined while they work or after `stop`. */
  get failure(): string | undefined {
    return this.workers.failure;
  }

  /** Queues a file (relative to the root, `/`-separated); sends a batch when one is full and a worker has room. */
  add(file: string): void {
    if (this.workers.isEnded) return;
    this.queue.push(file);
    if (this.queued >= BATCH_FILES) this.pump();
  }

  /** Resolves once the queue is short enough to add more (or the pool ended). */
  async room(): Promise<void> {
    while (!this.workers.isEnded && this.queued > QUEUE_HIGH) await this.workers.changed();
  }

  /** Resolves when every queued file has been answered, or at once when the pool ended. */
  async finish(): Promise<void> {
    this.finishing = true;
    this.pump();
    while (!this.workers.isEnded && (this.queued > 0 || this.workers.pending > 0)) {
      await this.workers.changed();
      this.pump();
    }
  }

  get whenEnded(): Promise<void> {
    return this.workers.whenEnded;
  }

  /** Ends every worker now, even in the middle of a match; every wait returns. */
  stop(): void {
    this.workers.stop();
  }

  /** The search is done: its workers go back for the next search (SearchWorkers.release). */
  release(): void {
    this.workers.release();
  }

  /** Sends full batches (a partial one too once finishing) while some worker has room. */
  private pump(): void {
    while (!this.workers.isEnded && (this.queued >= BATCH_FILES || (this.finishing && this.queued > 0)) && this.workers.lightest < MAX_IN_FLIGHT_PER_WORKER) {
      const end = Math.min(this.head + BATCH_FILES, this.queue.length);
      const files = this.queue.slice(this.head, end);
      this.head = end;
      if (this.head === this.queue.length) {
        this.queue = [];
        this.head = 0;
      } else if (this.head >= QUEUE_HIGH) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      this.workers.send(files, { root: this.root, files }, 1);
    }
  }

  private get queued(): number {
    return this.queue.length - this.head;
  }

  private receive(reply: WorkerReply, files: string[]): void {
    for (const [j, lines] of reply.found) for (const n of lines) this.sink.match(files[j]!, n);
    for (const j of reply.failed) this.sink.unreadable(files[j]!);
    for (const j of reply.unreadable ?? []) this.sink.unreadable(files[j]!);
    for (const j of reply.large ?? []) this.sink.large(files[j]!);
    this.pump();
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
