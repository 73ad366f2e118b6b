/**
 * Milliseconds on a monotonic clock, for how long a check took. Node's global `performance`
 * loads perf_hooks and eight more modules on its first use, about a millisecond that the stop
 * hook would pay at every stop; `process.hrtime` is there from the start.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
