import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** The release this command line belongs to, read from the package it was installed from (`unknown` when it cannot be read): what ratings and lessons are recorded against. */
export async function productVersion(): Promise<string> {
  try {
    return (JSON.parse(await fs.readFile(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
