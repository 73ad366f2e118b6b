let baselineOnly = false;

/**
 * This process is gone in a second (src/cli/start/one-shot.ts): the store's SQLite compiles with V8's
 * baseline compiler only. The optimizing tier would compile it again on background threads,
 * which on Node 20 doubled the store's CPU time and added some 30 MB to the peak RSS
 * (bench/gate.mjs).
 */
export function compileStoreForOneShot(): void {
  baselineOnly = true;
}

/**
 * Called just before the store's WASM compiles (src/store/sqljs.ts). The flag is set then, not at
 * the process's start: V8 refuses the code cache of anything compiled under other flags than it
 * was made with, Node's own modules included (20 ms more for the gate's).
 */
export async function beforeStoreCompiles(): Promise<void> {
  if (baselineOnly) (await import('node:v8')).setFlagsFromString('--liftoff-only');
}
