import type * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { CriteriaLocks } from './criteria-locks';

export const OFFER_MESSAGE = 'Lock these criteria so the agent cannot change them?';
export const OFFER_LOCK = 'Lock';
export const OFFER_NOT_NOW = 'Not now';
const ANSWERED_KEY = 'idealState.lockOffer.answered';
const KEPT = 500;

/**
 * When a run's criteria are first shown (its ISC table), the person is offered the lock of
 * its PRD in a notification: Lock (the Lock Criteria modal) or Not now. Once answered, that
 * PRD is not offered again (kept in global state). The offer never holds up the run: it is
 * not awaited by anything the run waits on, so no second of it counts against the budget.
 */
export class LockOffers {
  /** Offered in this window and not answered yet: not offered twice at once. */
  private readonly open = new Set<string>();

  constructor(
    private readonly locks: CriteriaLocks,
    private readonly state: vscode.Memento,
    private readonly log: Logger,
  ) {}

  /** Offers the lock of this PRD unless it was answered before; returns at once (the answer comes later). */
  offer(folder: string, prdPath: string): void {
    const key = `${folder}\0${prdPath}`;
    if (this.open.has(key) || this.answered().includes(key) || !this.locks.trusted()) return;
    this.open.add(key);
    void this.ask(folder, prdPath, key).finally(() => this.open.delete(key));
  }

  private answered(): string[] {
    return this.state.get<string[]>(ANSWERED_KEY, []);
  }

  private async ask(folder: string, prdPath: string, key: string): Promise<void> {
    const answer = await this.locks.dialogs.ask({ kind: 'offer', message: `${OFFER_MESSAGE} (${prdPath})`, detail: '', choices: [OFFER_LOCK, OFFER_NOT_NOW] });
    // A notification closed without a choice is not an answer: it may be offered again next time.
    if (answer !== OFFER_LOCK && answer !== OFFER_NOT_NOW) return;
    await this.state.update(ANSWERED_KEY, [...this.answered().filter((k) => k !== key), key].slice(-KEPT));
    this.log.info(`lock of ${prdPath} offered: ${answer}`);
    if (answer === OFFER_LOCK) {
      const result = await this.locks.lock(folder, [prdPath]);
      this.log.info(`lock of ${prdPath}: ${result.message}`);
    }
  }
}
