import { z } from 'zod';
import { compileStoreForOneShot } from '../../store/wasm-tier';

/**
 * Commands whose process is gone in a second: a stop hook's `gate`, CI's `verify`, and the
 * terminal's look-ups. The long-lived `mcp` server, `run` and `loop` are not among them.
 */
export const ONE_SHOT_COMMANDS: ReadonlySet<string> = new Set(['gate', 'verify', 'store', 'prd', 'effort', 'isc', 'ratings', 'reflections', 'trust']);

/**
 * Tunes a one-shot process for its one second (imported first by each command line's entry,
 * src/cli/start/lean.ts and src/cli/start/bin.ts, so it runs before any schema is built):
 * - zod parses without its JIT: at each object schema's first parse it compiles a parser with
 *   `new Function`, which pays only over many parses (bench/gate.mjs: 40 ms of the gate's 310);
 * - the store's SQLite (WASM) compiles with V8's baseline tier only, set just before it compiles
 *   (src/store/wasm-tier.ts).
 */
if (ONE_SHOT_COMMANDS.has(process.argv[2] ?? '')) {
  z.config({ jitless: true });
  compileStoreForOneShot();
}
