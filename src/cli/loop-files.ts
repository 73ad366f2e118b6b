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
