/** A clock the engine reads; tests pass a fake one. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** How long a run has waited for a person so far (ms, a wait under way included). */
export interface PersonWaits {
  waitedMs(): number;
}

/** Where a question to a person is timed: `begin` when it is asked, call what it returns when it is answered. */
export interface AskingPerson {
  /** @param what what the person is asked, for "waiting for …" ("approval", "your answer: …"). */
  begin(what?: string): () => void;
}

/**
 * The time a run waits for a person — an approval or a question (the learned-criteria pick)
 * asked and not yet answered. Waits may
 * overlap (two packets each asking); the time counts once, from the first ask to the last
 * answer. The budget leaves it out: a person deciding is not the run spending its time.
 */
export class WaitingTime implements PersonWaits, AskingPerson {
  private open = 0;
  private since = 0;
  private doneMs = 0;
  private readonly asked: { what: string }[] = [];

  constructor(private readonly clock: Clock = systemClock) {}

  /** A wait begins; call the returned function (once) when it ends. */
  begin(what = 'approval'): () => void {
    if (this.open++ === 0) this.since = this.clock.now().getTime();
    const entry = { what };
    this.asked.push(entry);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.asked.splice(this.asked.indexOf(entry), 1);
      if (--this.open === 0) this.doneMs += Math.max(0, this.clock.now().getTime() - this.since);
    };
  }

  /** What the person is being asked now (the first question still open); undefined when no one is waited for. */
  waitingFor(): string | undefined {
    return this.asked[0]?.what;
  }

  /** Waiting now, for this long (ms); undefined when no one is being waited for. */
  waitingMs(): number | undefined {
    return this.open > 0 ? Math.max(0, this.clock.now().getTime() - this.since) : undefined;
  }

  waitedMs(): number {
    return this.doneMs + (this.waitingMs() ?? 0);
  }
}

/**
 * The wall-time budget of a run: elapsed share, compress past the threshold
 * (150 % by default). Time a run spent stopped (crashed, reloaded) does not count: the
 * tracker starts from the elapsed time last committed. Nor does time spent waiting for a
 * person (`waits`): it is kept apart, in `waitedMs`.
 */
export class BudgetTracker {
  private readonly startedAt: number;
  private readonly waitedAtStart: number;

  constructor(
    readonly budgetSeconds: number,
    readonly compressAtPercent: number,
    private readonly clock: Clock,
    private readonly elapsedBeforeMs = 0,
    private readonly waits?: PersonWaits,
    private readonly waitedBeforeMs = 0,
  ) {
    this.startedAt = clock.now().getTime();
    this.waitedAtStart = waits?.waitedMs() ?? 0;
  }

  elapsedMs(): number {
    return this.elapsedBeforeMs + Math.max(0, this.clock.now().getTime() - this.startedAt - this.waitedHereMs());
  }

  /** Every wait for a person of the run, before this tracker started and since. */
  waitedMs(): number {
    return this.waitedBeforeMs + this.waitedHereMs();
  }

  private waitedHereMs(): number {
    return this.waits ? Math.max(0, this.waits.waitedMs() - this.waitedAtStart) : 0;
  }

  percent(): number {
    return Math.round((this.elapsedMs() / (this.budgetSeconds * 1000)) * 1000) / 10;
  }

  shouldCompress(): boolean {
    return this.percent() >= this.compressAtPercent;
  }

  /** A node's share of the budget in milliseconds, for the "over its share" note. */
  shareMs(share: number): number {
    return share * this.budgetSeconds * 1000;
  }
}
