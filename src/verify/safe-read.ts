import * as crypto from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import * as fs from 'node:fs/promises';

/**
 * Reading a file an agent can replace. A FIFO in place of `.vscode/settings.json` (or a PRD, a
 * `.gitignore`, the allow-list) made `readFile` wait forever for a writer, past the gate's own
 * deadline, and the host then killed the hook and let the agent stop. So a workspace file is
 * read only when it is a regular file of bounded size: looked at first (stat), opened without
 * waiting (O_NONBLOCK: opening a FIFO returns at once), and looked at again through the open
 * handle (fstat), so a file swapped between the look and the open is still caught. A FIFO, a
 * device, a socket or a folder is never read, and says what it is.
 */

/** The most a workspace data file (settings, tasks, package.json, allow-list, .gitignore) may hold to be read. */
export const WORKSPACE_FILE_LIMIT = 8 * 1024 * 1024;
/** The most a file whose digest the gate compares (a protected test file) may hold. */
export const DIGEST_FILE_LIMIT = 512 * 1024 * 1024;

export type SafeRead = { ok: true; bytes: Buffer } | { ok: false; reason: 'absent' | 'not-regular' | 'too-large' | 'unreadable'; message: string };

/** What a file that is not a regular one is, in a person's words. */
export function fileTypeWords(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a folder';
  return 'not a regular file';
}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

type Opened = { ok: true; handle: fs.FileHandle; size: number } | Extract<SafeRead, { ok: false }>;

async function openRegular(file: string, maxBytes: number, shown: string): Promise<Opened> {
  const refuse = (stat: Stats): Extract<SafeRead, { ok: false }> | undefined => {
    if (!stat.isFile()) return { ok: false, reason: 'not-regular', message: `${shown} is not a regular file (${fileTypeWords(stat)}); it is not read` };
    if (stat.size > maxBytes) return { ok: false, reason: 'too-large', message: `${shown} is ${stat.size} bytes, over the ${maxBytes} a file read here may have; it is not read` };
    return undefined;
  };
  let before: Stats;
  try {
    before = await fs.stat(file);
  } catch (error) {
    return failed(error, shown);
  }
  const early = refuse(before);
  if (early) return early;
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, OPEN_FLAGS);
  } catch (error) {
    return failed(error, shown);
  }
  try {
    const after = await handle.stat();
    const late = refuse(after);
    if (late) {
      await handle.close();
      return late;
    }
    return { ok: true, handle, size: after.size };
  } catch (error) {
    await handle.close().catch(() => undefined);
    return failed(error, shown);
  }
}

function failed(error: unknown, shown: string): Extract<SafeRead, { ok: false }> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, reason: 'absent', message: `${shown} does not exist` };
  return { ok: false, reason: 'unreadable', message: `${shown} cannot be read (${code ?? (error as Error).message})` };
}

/** A regular file's bytes, at most `maxBytes` (a file that grows past it while read is refused too). */
export async function readRegularFile(file: string, options: { maxBytes?: number; shown?: string } = {}): Promise<SafeRead> {
  const maxBytes = options.maxBytes ?? WORKSPACE_FILE_LIMIT;
  const shown = options.shown ?? file;
  const opened = await openRegular(file, maxBytes, shown);
  if (!opened.ok) return opened;
  const { handle } = opened;
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(Math.max(opened.size - total, 0) + 1, 1024 * 1024, maxBytes - total + 1));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) return { ok: false, reason: 'too-large', message: `${shown} grew past the ${maxBytes} bytes a file read here may have; it is not read` };
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return { ok: true, bytes: Buffer.concat(chunks, total) };
  } catch (error) {
    return failed(error, shown);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** A regular file's text (UTF-8); undefined when absent; a file that is not regular, too large or unreadable is an error value. */
export async function readRegularText(file: string, options: { maxBytes?: number; shown?: string } = {}): Promise<{ ok: true; text: string } | Extract<SafeRead, { ok: false }>> {
  const read = await readRegularFile(file, options);
  return read.ok ? { ok: true, text: read.bytes.toString('utf8') } : read;
}

/**
 * The text, or undefined for every way it cannot be read: for readers whose caller already
 * treats a missing file as "not set" (a settings file, tasks.json). A FIFO then reads as absent
 * instead of hanging; where its absence would change a verdict, the lock's digest says so.
 */
export async function readRegularTextOrAbsent(file: string, maxBytes = WORKSPACE_FILE_LIMIT): Promise<string | undefined> {
  const read = await readRegularText(file, { maxBytes });
  return read.ok ? read.text : undefined;
}

/** The SHA-256 of a regular file's bytes, streamed (a large test fixture is not held in memory). */
export async function digestRegularFile(file: string, options: { maxBytes?: number; shown?: string } = {}): Promise<{ ok: true; digest: string } | Extract<SafeRead, { ok: false }>> {
  const maxBytes = options.maxBytes ?? DIGEST_FILE_LIMIT;
  const shown = options.shown ?? file;
  const opened = await openRegular(file, maxBytes, shown);
  if (!opened.ok) return opened;
  const { handle } = opened;
  const hash = crypto.createHash('sha256');
  const chunk = Buffer.alloc(1024 * 1024);
  let total = 0;
  try {
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) return { ok: false, reason: 'too-large', message: `${shown} grew past the ${maxBytes} bytes a file digested here may have` };
      hash.update(chunk.subarray(0, bytesRead));
    }
    return { ok: true, digest: hash.digest('hex') };
  } catch (error) {
    return failed(error, shown);
  } finally {
    await handle.close().catch(() => undefined);
  }
}
