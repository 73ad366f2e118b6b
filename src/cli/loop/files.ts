import * as crypto from 'node:crypto';
import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** Writes a file whole or not at all: a temporary file beside it, then a rename. */
export async function writeFileAtomically(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    await fs.writeFile(temp, text, 'utf8');
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

/** sha256 (hex) of each workspace-relative file's content; a file that cannot be read is left out. */
export async function hashFiles(workspace: string, files: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const file of files) {
    try {
      const hash = crypto.createHash('sha256');
      for await (const chunk of createReadStream(path.join(workspace, file))) hash.update(chunk as Buffer);
      out.set(file, hash.digest('hex'));
    } catch {
      // Unreadable here: a result for it cannot be bound to its content, and the merge says so.
    }
  }
  return out;
}
