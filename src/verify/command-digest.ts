import { createHash } from 'node:crypto';

/** A command's short digest, as a PRD's "Not approved" note and the denial record name it. */
export function commandDigest(command: string): string {
  return `sha256:${createHash('sha256').update(command.trim(), 'utf8').digest('hex').slice(0, 12)}`;
}
