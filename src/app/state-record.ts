import type { z } from 'zod';
import { readRegularText } from '../verify/safe-read';

/**
 * Reads one JSON record Ideal State keeps in the user's state folder. A missing file is
 * `empty`; a file that cannot be read, is not JSON or does not match `schema` is an error
 * made by `fail` (never "nothing recorded", which could let a denied or unapproved command run).
 * It is read only as a regular file of bounded size: a FIFO put in its place is an error at
 * once, never a read that waits forever.
 */
/** A state record is a few kilobytes; far past that it is not one Ideal State wrote. */
const STATE_RECORD_LIMIT = 16 * 1024 * 1024;

export async function readStateRecord<T>(file: string, schema: z.ZodType<T>, empty: T, fail: (message: string) => Error): Promise<T> {
  const read = await readRegularText(file, { maxBytes: STATE_RECORD_LIMIT });
  if (!read.ok && read.reason === 'absent') return empty;
  if (!read.ok) throw fail(`${read.message}; move it aside to start over`);
  const text = read.text;
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
