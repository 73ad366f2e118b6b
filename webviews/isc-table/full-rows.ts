import { isLight } from './rows';

/**
 * Turns light rows (rows.ts `lightRow`) into full ones: a block's rows as the block comes near
 * the screen (`contentvisibilityautostatechange`, the same signal that lets the browser skip
 * it), the rows of blocks already on screen whenever rows are placed, and every other row a
 * few at a time while the view is idle — so soon after a run loads every row is whole, and
 * the first frame did not wait for that.
 */
export class FullRows {
  private readonly onScreen = new Set<HTMLElement>();
  private idle: number | undefined;

  constructor(
    private readonly body: HTMLElement,
    private readonly fill: (row: HTMLElement) => void,
  ) {
    // The event does not bubble: caught on the way down.
    body.addEventListener(
      'contentvisibilityautostatechange',
      (e) => {
        const block = e.target;
        if (!(block instanceof HTMLElement) || !block.classList.contains('block')) return;
        if ((e as Event & { skipped?: boolean }).skipped) this.onScreen.delete(block);
        else {
          this.onScreen.add(block);
          this.fillBlock(block);
        }
      },
      true,
    );
  }

  /** After rows were placed: rows now in blocks on screen are made whole at once, the rest when idle. */
  placed(): void {
    for (const block of this.onScreen) {
      if (block.isConnected) this.fillBlock(block);
      else this.onScreen.delete(block);
    }
    this.whenIdle();
  }

  /**
   * Makes whole, in order, the light rows the screen shows, and stops at the first that
   * reaches the bottom edge: each row is measured once it is whole, as it will be painted
   * (whole rows are taller than light ones, so a light row's height would over-count). The
   * measuring lays out now what the frame would lay out anyway.
   */
  fillScreen(): void {
    for (const row of Array.from(this.body.querySelectorAll<HTMLElement>('.row'))) {
      if (isLight(row)) this.fill(row);
      if (row.getBoundingClientRect().bottom >= window.innerHeight) return;
    }
  }

  /** Makes every row whole now (before reading the table back, say). */
  all(): void {
    this.body.querySelectorAll<HTMLElement>('.row.light').forEach((row) => this.fill(row));
  }

  private fillBlock(block: HTMLElement): void {
    for (const row of Array.from(block.children) as HTMLElement[]) if (isLight(row)) this.fill(row);
  }

  private whenIdle(): void {
    if (this.idle !== undefined) return;
    this.idle = requestIdleCallback((deadline) => {
      this.idle = undefined;
      const light = this.body.querySelectorAll<HTMLElement>('.row.light');
      let i = 0;
      for (; i < light.length && deadline.timeRemaining() > 1; i++) this.fill(light[i]!);
      if (i < light.length) this.whenIdle();
    });
  }
}
