import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { beforeStoreCompiles } from './wasm-tier';

let loading: Promise<SqlJsStatic> | undefined;

/**
 * Loads the sql.js WASM module once per process, on first use, so activating the
 * extension never pays for it. `wasmPath` defaults to the copy next to the bundle.
 */
export function loadSqlJs(wasmPath?: string): Promise<SqlJsStatic> {
  loading ??= (async () => {
    const file = wasmPath ?? defaultWasmPath();
    const wasmBinary = await fs.promises.readFile(file);
    await beforeStoreCompiles();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const initSqlJs = require('sql.js') as (config: { wasmBinary: ArrayBuffer }) => Promise<SqlJsStatic>;
    return initSqlJs({ wasmBinary: wasmBinary.buffer.slice(wasmBinary.byteOffset, wasmBinary.byteOffset + wasmBinary.byteLength) as ArrayBuffer });
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

function defaultWasmPath(): string {
  const besideBundle = path.join(__dirname, 'sql-wasm.wasm');
  if (fs.existsSync(besideBundle)) return besideBundle;
  // Running from sources or a test bundle: use the package's own copy. (A variable,
  // so the bundler leaves this lookup to run time.)
  const packaged = 'sql.js/dist/sql-wasm.wasm';
  return require.resolve(packaged);
}
