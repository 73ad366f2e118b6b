import { SearchWorkers, type WorkerReply } from './search-worker';

/**
 * Where the JS search matches the lines of a file too large to read whole: one worker thread
 * of the built-in search's kind (src/verify/search-worker.ts), given whole lines in batches.
 * Reading the file, ignore rules and the collector stay on the search's thread.
 */

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

export interface RegexWorkerSink {
  match(file: string, line: number): void;
  /** The match threw on this file's text: its content is unknown. */
  unreadable(file: string): void;
}

export class RegexWorker {
  private readonly worker: SearchWorkers<Batch>;
  private batch: Batch = emptyBatch();
  private flushScheduled = false;

  constructor(regex: RegExp, private readonly sink: RegexWorkerSink) {
    this.worker = new SearchWorkers<Batch>(regex, { threads: 1, maxBytes: 0 }, (reply, b) => this.receive(reply, b));
  }

  /** Why the worker died on its own (a crash, out of memory); undefined while it works or after `stop`. */
  get failure(): string | undefined {
    return this.worker.failure;
  }

  /** Queues some whole lines of a file (joined by `\n`, the first numbered `firstLine`); waits while too much is unanswered. */
  async submit(file: string, text: string, firstLine: number): Promise<void> {
    if (this.worker.isEnded) return;
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
    while (!this.worker.isEnded && this.worker.inFlight > MAX_IN_FLIGHT_CHARS) await this.worker.changed();
  }

  /** Resolves when every queued line has been answered, or at once when the worker ended. */
  async finish(): Promise<void> {
    this.flush();
    while (!this.worker.isEnded && this.worker.pending > 0) await this.worker.changed();
  }

  /** Resolves when the worker ends: by `stop` or by failing. */
  get whenEnded(): Promise<void> {
    return this.worker.whenEnded;
  }

  /** Ends the worker now, even in the middle of a match; every wait returns. */
  stop(): void {
    this.worker.stop();
  }

  /** The search is done: its worker goes back for the next search (SearchWorkers.release). */
  release(): void {
    this.worker.release();
  }

  private flush(): void {
    this.flushScheduled = false;
    const b = this.batch;
    if (this.worker.isEnded || b.texts.length === 0) return;
    this.batch = emptyBatch();
    this.worker.send(b, { texts: b.texts, firstLines: b.firstLines }, b.chars);
  }

  private receive(reply: WorkerReply, b: Batch): void {
    for (const [j, lines] of reply.found) for (const n of lines) this.sink.match(b.files[j]!, n);
    for (const j of reply.failed) this.sink.unreadable(b.files[j]!);
  }
}

function emptyBatch(): Batch {
  return { files: [], texts: [], firstLines: [], chars: 0 };
}
