import { z } from 'zod';
import { WORKSPACE_CAPABILITIES_FILE } from '../algorithm/capabilities';
import { WORKSPACE_PHASE_GRAPH_FILE } from '../algorithm/phase-graph';
import { ROLE_IDS, WORKSPACE_ROLES_DIR } from '../algorithm/roles';
import { SETTINGS } from '../model/settings';

/**
 * Trust in a workspace's configuration on the command line, like `direnv allow`:
 * a file that can send a key somewhere, run a command or steer the agent is used only after
 * the user trusted its current content. Records live outside the workspace (a cloned
 * repository or an agent edit cannot plant one) and name the file and a hash of its bytes,
 * so a changed file is untrusted again. Pure: hashing and the disk are the caller's.
 */

/**
 * Workspace-relative files that need trust. The models file names servers and key variables;
 * capabilities give the agent `run_command` and move a role to a frontier model (workspace
 * text leaves the machine); the phase graph can turn gates off; a role file is the prompt the
 * model follows. Not here: the effort table (times, counts, parallelism: nothing that leaves
 * the machine or runs) and ISC definitions (the command line only lists them; a run does not
 * read the workspace's, so their `CLI:` methods never run from there).
 */
export const TRUST_GATED_FILES: readonly string[] = [
  SETTINGS.modelsConfigFile.default,
  WORKSPACE_CAPABILITIES_FILE,
  WORKSPACE_PHASE_GRAPH_FILE,
  ...ROLE_IDS.map((id) => `${WORKSPACE_ROLES_DIR}/${id}.yaml`),
];

/** Whether a workspace-relative path (forward slashes) is one of the files that need trust. */
export function needsTrust(relative: string): boolean {
  return TRUST_GATED_FILES.includes(relative);
}

export const TrustRecord = z
  .object({
    /** Absolute path of the file when it was trusted. */
    file: z.string().min(1),
    /** SHA-256 of the file's bytes, lowercase hex. */
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 is 64 lowercase hex digits'),
    trustedAt: z.string().min(1),
    /** What the content named when it was trusted (servers, key variables, tools), for `--list`. */
    names: z.array(z.string()).default([]),
  })
  .strict();
export type TrustRecord = z.infer<typeof TrustRecord>;

export const TrustRecords = z.object({ version: z.literal(1), records: z.array(TrustRecord) }).strict();
export type TrustRecords = z.infer<typeof TrustRecords>;

export const NO_TRUST: TrustRecords = { version: 1, records: [] };

/** `changed`: the file was trusted with other content; `untrusted`: never trusted (or revoked). */
export type TrustState = 'trusted' | 'changed' | 'untrusted';

export function trustStateOf(records: TrustRecords, file: string, sha256: string): TrustState {
  const record = records.records.find((r) => r.file === file);
  return !record ? 'untrusted' : record.sha256 === sha256 ? 'trusted' : 'changed';
}

/** The records with `record` in force: one record per file, the newest content wins. */
export function withTrust(records: TrustRecords, record: TrustRecord): TrustRecords {
  return { version: 1, records: [...records.records.filter((r) => r.file !== record.file), record] };
}

/** The records without those `revoked` picks, and what was removed. */
export function withoutTrust(records: TrustRecords, revoked: (record: TrustRecord) => boolean): { records: TrustRecords; removed: TrustRecord[] } {
  return { records: { version: 1, records: records.records.filter((r) => !revoked(r)) }, removed: records.records.filter(revoked) };
}

/** What the command line says when it leaves a file out; `trustCommand` is what to run after reading it. */
export function ignoredNotice(relative: string, state: Exclude<TrustState, 'trusted'>, trustCommand: string): string {
  const why = state === 'changed' ? 'changed since you trusted it' : 'not trusted';
  return `ignored ${relative} (${why}: run \`${trustCommand}\` after reading it)`;
}
