import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { ApprovedIgnores } from '../../verify/search-rules';
import { entryOf, walkSource, type Fingerprint } from './source-walk';

export type { Fingerprint };

/**
 * A cheap second guard beside the snapshot: the live workspace's source (paths, sizes, modification
 * and change times, inode numbers) when the gate began copying it and when its checks ended. The
 * host waits for its stop hook, so an honest agent writes nothing meanwhile; a difference is a
 * process writing while the gate verified (a watcher that makes a file only while a `gate` process
 * exists, a loop swapping the PRD), and the gate blocks, saying what changed. A change time after
 * the gate's process began counts too: the watcher may act before the first look.
 *
 * What does not count: ignored entries and the dependency and tool folders (the checks write build
 * output and caches there), `.git`, and the gate's own writes (its LOG entry in a held PRD, recorded
 * with `ownWrite`). Its state and store are outside the workspace.
 */
/** At most this many source files are looked at; past it the rest is not guarded (the snapshot has its own bound). */
export const FINGERPRINT_LIMIT = 100_000;

export async function fingerprint(workspace: string, approvedIgnores?: ApprovedIgnores): Promise<Fingerprint> {
  const live = await fs.realpath(workspace).catch(() => path.resolve(workspace));
  return (await walkSource(live, approvedIgnores, FINGERPRINT_LIMIT)).fingerprint;
}

/** What the gate wrote itself, each with its entry as it left it: not a change. */
export class OwnWrites {
  private readonly files = new Map<string, string>();

  constructor(private readonly workspace: string) {}

  /** Records a file the gate just wrote (a held PRD's outcomes and LOG entry). */
  async ownWrite(file: string): Promise<void> {
    const live = await fs.realpath(this.workspace).catch(() => path.resolve(this.workspace));
    const real = await fs.realpath(file).catch(() => path.resolve(file));
    const relative = path.relative(live, real).split(path.sep).join('/');
    const stat = await fs.lstat(real).catch(() => undefined);
    if (stat) this.files.set(relative, entryOf('file', stat));
  }

  wrote(relative: string, entry: string | undefined): boolean {
    return entry !== undefined && this.files.get(relative) === entry;
  }

  /** A folder the gate wrote into (a PRD is rewritten beside itself, then renamed): its own change time moved. */
  wroteInto(relative: string): boolean {
    return [...this.files.keys()].some((f) => path.posix.dirname(f) === (relative === '' ? '.' : relative));
  }
}

/**
 * What changed between two fingerprints, or since `sinceMs` (the gate's process start), in
 * words the block says; empty when nothing did. At most `max` are named.
 */
export function workspaceChanges(before: Fingerprint, after: Fingerprint, options: { sinceMs: number; own?: OwnWrites; max?: number }): string[] {
  const out: string[] = [];
  const own = options.own;
  for (const [relative, entry] of after.entries) {
    const was = before.entries.get(relative);
    if (own?.wrote(relative, entry)) continue;
    if (was === undefined) out.push(`${relative} was added`);
    else if (was !== entry) out.push(`${relative} was changed`);
  }
  for (const relative of before.entries.keys()) {
    if (!after.entries.has(relative) && !own?.wrote(relative, after.entries.get(relative))) out.push(`${relative} was removed`);
  }
  const named = new Set(out.map((o) => o.slice(0, o.lastIndexOf(' was '))));
  for (const [relative, ctime] of before.changed) {
    if (named.has(relative) || ctime < options.sinceMs) continue;
    const entry = after.entries.get(relative);
    if (entry === 'folder' ? own?.wroteInto(relative) : own?.wrote(relative, entry)) continue;
    out.push(entry === 'folder' ? `${relative === '' ? 'the workspace folder' : relative}: an entry was added, removed or renamed after the gate began` : `${relative} was written after the gate began`);
  }
  const max = options.max ?? 5;
  return out.length > max ? [...out.slice(0, max), `and ${out.length - max} more`] : out;
}
