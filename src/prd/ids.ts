import { ANTI_CRITERION_ID, CRITERION_ID } from '../model/criterion';

export function isWellFormedId(id: string, anti: boolean): boolean {
  return anti ? ANTI_CRITERION_ID.test(id) : CRITERION_ID.test(id) && !ANTI_CRITERION_ID.test(id);
}

const NUMBERED = /^(ISC-(?:[A-Z0-9]+-)*)(\d+)$/;

/**
 * The next id nobody uses, in the style of `like` (`ISC-COMP-002` → `ISC-COMP-003`, same
 * padding); `ISC-<n>` or `ISC-A-<n>` when there is nothing well-formed to follow.
 */
export function nextFreeId(existing: Iterable<string>, anti: boolean, like?: string): string {
  const taken = new Set(existing);
  const m = like !== undefined && isWellFormedId(like, anti) ? NUMBERED.exec(like) : null;
  const prefix = m ? m[1]! : anti ? 'ISC-A-' : 'ISC-';
  const width = m ? m[2]!.length : 1;
  let max = 0;
  for (const id of taken) {
    if (!id.startsWith(prefix)) continue;
    const rest = id.slice(prefix.length);
    if (/^\d+$/.test(rest)) max = Math.max(max, Number(rest));
  }
  for (let n = max + 1; ; n++) {
    const id = `${prefix}${String(n).padStart(width, '0')}`;
    if (!taken.has(id)) return id;
  }
}
