// Smoke mode (`npm run bench -- --smoke`, or IDEAL_STATE_BENCH_SMOKE=1): every benchmark runs
// at a small size, so `npm test` proves each still measures the product as it is. No figure
// from a smoke run means anything about speed.
export const smoke = process.env.IDEAL_STATE_BENCH_SMOKE === '1' || process.argv.includes('--smoke');

/**
 * A knob: its environment variable when set, else the full or the smoke default. A knob set
 * in the environment wins in either mode.
 */
export function knob(name, full, small) {
  const set = process.env[name];
  if (set !== undefined && set !== '') {
    const n = Number(set);
    if (!Number.isFinite(n)) throw new Error(`${name}=${set} is not a number`);
    return n;
  }
  return smoke ? small : full;
}
