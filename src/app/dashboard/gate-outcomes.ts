import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { GateOutcomeRecord } from '../../model/gate-outcome';
import { pendingFolder } from '../../store/pending';
import { PENDING_GATE_OUTCOME } from '../../store/gate-outcomes';
import { Store } from '../../store/store';
import { defaultCliStoreFile } from '../../store/store-paths';

/**
 * The done gate's verdicts for a workspace, read where the gate leaves them: the stop hook runs
 * in the agent host's process and never opens a store; it leaves each verdict as a pending record
 * beside the command line's store for that workspace (src/app/gate/outcome-record.ts), in the
 * user's data folder, which the next `ideal-state` command folds in. The editor's own store is
 * another file, so its dashboard reads both places here: the records already folded (the store
 * opened as a reader: no lock, nothing written) and those still pending (left where they are for
 * their writer). Only the user's data folder is read, never a path the workspace names (a hook's
 * `--store` lives in a settings file the agent can write). Each record is checked against the
 * store's schema; one that is not a verdict the gate wrote is skipped and counted.
 */

/** At most this many pending records read (a gate that has not been folded for months). */
const MAX_PENDING = 20_000;
/** A pending record is one small JSON file; anything larger is not one the gate wrote. */
const MAX_RECORD_BYTES = 256 * 1024;

export interface GateOutcomesRead {
  readonly records: GateOutcomeRecord[];
  /** Where they were looked for: the store file (and its pending folder beside it). */
  readonly storeFile: string;
  /** Records skipped: not readable, not JSON, or not a gate verdict. */
  readonly skipped: number;
}

export interface GateOutcomesOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
  /** sql.js's WASM (the editor's copy); default beside the bundle. */
  readonly wasmPath?: string;
}

/** The gate's verdicts for `workspace`, from the command line's store for it and its pending records. */
export async function readGateOutcomes(workspace: string, options: GateOutcomesOptions = {}): Promise<GateOutcomesRead> {
  const storeFile = defaultCliStoreFile(workspace, options.env ?? process.env, options.platform ?? process.platform);
  const records: GateOutcomeRecord[] = [];
  let skipped = 0;
  const keep = (raw: unknown) => {
    const parsed = GateOutcomeRecord.safeParse(raw);
    if (parsed.success) records.push(parsed.data);
    else skipped++;
  };
  if (await isFile(storeFile)) {
    const store = await Store.open({ file: storeFile, readOnly: true, ...(options.wasmPath ? { wasmPath: options.wasmPath } : {}) });
    try {
      for (const row of store.read<{ data: string }>('SELECT data FROM gate_outcomes')) keep(parseJson(row.data));
    } finally {
      store.close();
    }
  }
  const folder = pendingFolder(storeFile);
  const names = (await fs.readdir(folder).catch(() => [] as string[])).filter((n) => n.endsWith(`-${PENDING_GATE_OUTCOME}.json`)).sort();
  for (const name of names.slice(0, MAX_PENDING)) {
    const file = path.join(folder, name);
    const stat = await fs.lstat(file).catch(() => undefined);
    if (!stat?.isFile() || stat.size > MAX_RECORD_BYTES) {
      skipped++;
      continue;
    }
    const text = await fs.readFile(file, 'utf8').catch(() => undefined);
    const body = text === undefined ? undefined : (parseJson(text) as { kind?: unknown; record?: unknown } | undefined);
    // Folded by a writer between the listing and the read: it is in the store now, and read next time.
    if (text === undefined && !(await isFile(file))) continue;
    if (body?.kind === PENDING_GATE_OUTCOME) keep(body.record);
    else skipped++;
  }
  return { records, storeFile, skipped: skipped + Math.max(0, names.length - MAX_PENDING) };
}

async function isFile(file: string): Promise<boolean> {
  return (await fs.stat(file).catch(() => undefined))?.isFile() ?? false;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
