import * as crypto from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { formatProblem, parseYamlDataFile } from '../model/data-file';
import { NO_TRUST, TrustRecords } from '../app/trust';
import { cliDataFolder } from '../store/store';

/**
 * The command line's trust records on disk: one JSON file under the user's data folder,
 * beside the stores and never inside a workspace, readable and writable by the user only.
 */
export function cliTrustFile(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  return path.join(cliDataFolder(env, platform), 'trust.json');
}

/** The records file exists but cannot be used; nothing is trusted then, and nothing overwrites it. */
export class TrustStoreError extends Error {
  readonly code = 'trust-records-unreadable';
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`cannot read the trust records ${file} (${detail}); fix or remove that file`);
  }
}

export function contentHash(bytes: Uint8Array): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/** The records; none when the file does not exist. */
export async function readTrustRecords(file: string): Promise<TrustRecords> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return NO_TRUST;
    throw new TrustStoreError(file, (error as Error).message);
  }
  // JSON is YAML: the data-file parser gives a located problem for either mistake.
  const parsed = parseYamlDataFile(file, text, TrustRecords);
  if (!parsed.ok) throw new TrustStoreError(file, parsed.problems.map(formatProblem).join('; '));
  return parsed.value;
}

/** Replaces the records at once (a unique temporary file, then a rename), private to the user. */
export async function writeTrustRecords(file: string, records: TrustRecords): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  try {
    await fs.writeFile(temporary, `${JSON.stringify(records, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await fs.rename(temporary, file);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}
