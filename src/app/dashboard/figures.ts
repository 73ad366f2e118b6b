/** Small sums shared by the aggregation and the page (pure; no DOM, no store). */

/** The middle value (the mean of the two middle ones for an even count); undefined for none. */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Dollars in billionths, the unit a call's cost is rounded to (src/model/run-usage.ts): sums stay exact. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}

/** Passing share in whole percent; undefined when nothing was verified. */
export function passRate(passed: number, total: number): number | undefined {
  return total > 0 ? Math.round((passed / total) * 100) : undefined;
}

/** "4 m 12 s", "1 h 03 m", "850 ms". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} m ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} m`;
}

/** "$0.0213", "$12.40". */
export function dollars(usd: number): string {
  return `$${usd.toFixed(usd >= 1 || usd === 0 ? 2 : 4)}`;
}

/** "12,400". */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}
