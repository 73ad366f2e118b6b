/** A clock the engine reads; tests pass a fake one. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/**
 * The wall-time budget of a run (DESIGN §3): elapsed share, compress past the threshold
 * (150 % by default). Time a run spent stopped (crashed, reloaded) does not count: the
 * tracker starts from the elapsed time last committed.
 */
export class BudgetTracker {
  private readonly startedAt: number;

  constructor(
    readonly budgetSeconds: number,
    readonly compressAtPercent: number,
    private readonly clock: Clock,
    private readonly elapsedBeforeMs = 0,
  ) {
    this.startedAt = clock.now().getTime();
  }

  elapsedMs(): number {
    return this.elapsedBeforeMs + Math.max(0, this.clock.now().getTime() - this.startedAt);
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
