import * as fs from 'node:fs/promises';
import type { z } from 'zod';

/**
 * Reads one JSON record Ideal State keeps in the user's state folder. A missing file is
 * `empty`; a file that cannot be read, is not JSON or does not match `schema` is an error
 * made by `fail` (never "nothing recorded", which could let a denied or unapproved command run).
 */
export async function readStateRecord<T>(file: string, schema: z.ZodType<T>, empty: T, fail: (message: string) => Error): Promise<T> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return empty;
    throw fail(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw fail(`${file} is not JSON (${(error as Error).message}); move it aside to start over`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw fail(`${file} is not a record Ideal State wrote (${parsed.error.issues[0]?.message ?? 'invalid'}); move it aside to start over`);
  return parsed.data;
}
