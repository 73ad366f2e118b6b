import type { Approver } from '../../agent/approvals';

/**
 * The time a loop spends waiting for a person, kept out of its budget as a run keeps it out of
 * its own: otherwise a loop whose only agent waits for an approval spends its budget on the
 * person's coffee (it showed "55 % budget" while its sub-run said "5 s of 2 min + 44 s waiting,
 * not counted"). The loop's clock stops while every task in flight (an agent's sub-run, a
 * verification) waits for an answer; an agent still working keeps it going.
 */
export class PersonWaits {
  private busy = 0;
  private waiting = 0;
  private pausedAt: number | undefined;
  private waitedMs = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The approver the loop's sub-runs and verifications ask through, each answer timed. */
  wrap(approver: Approver): Approver {
    return {
      ...(approver.unattended !== undefined ? { unattended: approver.unattended } : {}),
      ask: async (request, signal) => {
        this.waiting++;
        this.update();
        try {
          return await approver.ask(request, signal);
        } finally {
          this.waiting--;
          this.update();
        }
      },
    };
  }

  /** A task (a sub-run, a verification) of the loop runs `work`. */
  async task<T>(work: () => Promise<T>): Promise<T> {
    this.busy++;
    this.update();
    try {
      return await work();
    } finally {
      this.busy--;
      this.update();
    }
  }

  /** Time waited for a person so far, the wait going on included. */
  total(): number {
    return this.waitedMs + (this.pausedAt === undefined ? 0 : this.now() - this.pausedAt);
  }

  private update(): void {
    const paused = this.waiting > 0 && this.waiting >= this.busy;
    if (paused && this.pausedAt === undefined) this.pausedAt = this.now();
    else if (!paused && this.pausedAt !== undefined) {
      this.waitedMs += this.now() - this.pausedAt;
      this.pausedAt = undefined;
    }
  }
}
