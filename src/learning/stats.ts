/** Ratings figures by PAI's rules: the last 10, rounded to one decimal, trend by halves. */

export type Trend = '↑' | '↓' | '→';

export const ROLLING_WINDOW = 10;
/** The second half must beat the first by more than half a point to count as a trend. */
export const TREND_THRESHOLD = 0.5;

export interface RatingFigures {
  readonly count: number;
  /** Mean of the last 10, one decimal; undefined with no ratings. */
  readonly rollingAverage: number | undefined;
  readonly trend: Trend;
}

/** The rolling average of the last `window` values (oldest first), rounded to one decimal. */
export function rollingAverage(values: readonly number[], window = ROLLING_WINDOW): number | undefined {
  const recent = values.slice(-window);
  if (recent.length === 0) return undefined;
  return Math.round((sum(recent) / recent.length) * 10) / 10;
}

/** ↑ ↓ → from the last `window` values: fewer than 3 is →; otherwise second half against first. */
export function trend(values: readonly number[], window = ROLLING_WINDOW): Trend {
  const recent = values.slice(-window);
  if (recent.length < 3) return '→';
  const half = Math.floor(recent.length / 2);
  const first = recent.slice(0, half);
  const second = recent.slice(half);
  const diff = sum(second) / second.length - sum(first) / first.length;
  if (diff > TREND_THRESHOLD) return '↑';
  if (diff < -TREND_THRESHOLD) return '↓';
  return '→';
}

export function ratingFigures(values: readonly number[], count = values.length): RatingFigures {
  return { count, rollingAverage: rollingAverage(values), trend: trend(values) };
}

/** "7.5 ↑ (12)" for the status bar; "no ratings yet" when there are none. */
export function formatFigures(figures: RatingFigures): string {
  if (figures.rollingAverage === undefined) return 'no ratings yet';
  return `${figures.rollingAverage.toFixed(1)} ${figures.trend}`;
}

/**
 * Figures kept up to date as ratings arrive, without reading the history again: a count and
 * the last 10 values. Feeding it every rating gives the same figures as `ratingFigures` over all.
 */
export class RollingRatings {
  private recent: number[] = [];
  private total = 0;

  constructor(history: Iterable<number> = []) {
    for (const value of history) this.add(value);
  }

  add(value: number): void {
    this.total += 1;
    this.recent.push(value);
    if (this.recent.length > ROLLING_WINDOW) this.recent.shift();
  }

  get figures(): RatingFigures {
    return ratingFigures(this.recent, this.total);
  }
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}
