import * as path from 'node:path';
import type { Priority } from '../../model';
import { LoopShardFile, type LoopArtifactStatus, type LoopSpec, type LoopState } from '../../model/loop';
import { compareFiles, LoopInputError, shardIndexOf } from './artifacts';
import { loopReport, specKey, type MergedLoop } from './report';

/**
 * `loop merge` proves what it merges: a shard file is the output of another
 * machine, so it is input to check, not a result to believe. The merge re-lists the glob in
 * its own checkout and takes each artifact exactly once, each result bound to the content
 * hash it was verified at; it recomputes the spec key; it derives each artifact's status from
 * its outcomes and the template's priorities, and the loop's state from those; every count
 * and size is bounded before anything is allocated; no path leaves the workspace; no field
 * that is written into a PRD holds a line break or a control character.
 */

/** What the merging job's checkout says: the artifacts its glob lists, their content hashes, the template's criteria. */
export interface MergeCheckout {
  /** The glob's artifacts in this checkout (workspace-relative), as listArtifacts gives them. */
  readonly listed: readonly string[];
  /** sha256 (hex) of each listed artifact's content here. */
  readonly hashes: ReadonlyMap<string, string>;
  /** The ISC template's criteria (ids in order, with priorities). */
  readonly criteria: readonly { readonly id: string; readonly priority: Priority }[];
}

/** C0 and C1 controls, DEL, and the Unicode line and paragraph separators: none belongs in a PRD field. */
// eslint-disable-next-line no-control-regex
const NOT_IN_A_FIELD = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;

const refuse = (file: string, field: string, what: string, todo: string) => new LoopInputError(`${file}: ${field}: ${what}; ${todo}`);
const REWRITE = 'give the file the shard wrote (ideal-state loop --shard I/N --out FILE), unchanged';

/** Reads a shard file's text; anything that is not one names the file, the field and what is wrong. */
export function parseShardFile(name: string, text: string): LoopShardFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new LoopInputError(`${name} is not JSON (${(error as Error).message}); give the file a shard wrote with --shard I/N --out FILE`);
  }
  if (json && typeof json === 'object' && (json as { version?: unknown }).version === 1) {
    throw refuse(name, 'version', 'a version 1 shard file has no content hashes, so its results cannot be bound to what was verified', 'run the shards again with this version of ideal-state');
  }
  const parsed = LoopShardFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw refuse(name, issue.path.join('.') || '(root)', `${issue.message}${parsed.error.issues.length > 1 ? ` (and ${parsed.error.issues.length - 1} more)` : ''}, so this is not a loop shard file as a shard writes it`, REWRITE);
  }
  checkFields(name, parsed.data);
  return parsed.data;
}

/** Every field that reaches the merged PRD or report is one line of printable text, and every path stays in the workspace. */
function checkFields(name: string, shard: LoopShardFile): void {
  const line = (field: string, value: string) => {
    const bad = NOT_IN_A_FIELD.exec(value);
    if (bad) throw refuse(name, field, `holds U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} (a line break or control character), which would write its own line into the merged PRD`, REWRITE);
  };
  line('spec.glob', shard.spec.glob);
  line('spec.isc', shard.spec.isc);
  line('specKey', shard.specKey);
  shard.criterionIds.forEach((id, i) => line(`criterionIds[${i}]`, id));
  shard.artifacts.forEach((a, i) => {
    const at = `artifacts[${i}]`;
    line(`${at}.file`, a.file);
    if (a.runId !== undefined) line(`${at}.runId`, a.runId);
    for (const id of Object.keys(a.outcomes)) line(`${at}.outcomes key`, id);
    for (const id of Object.keys(a.evidence)) line(`${at}.evidence key`, id);
    const normal = path.posix.normalize(a.file);
    if (a.file.startsWith('/') || /^[A-Za-z]:/.test(a.file) || a.file.includes('\\') || normal !== a.file || normal === '..' || normal.startsWith('../')) {
      throw refuse(name, `${at}.file`, `"${a.file}" is not a workspace-relative path inside the workspace`, 'an artifact is a file the loop\'s glob lists in the workspace');
    }
  });
}

/**
 * Shard files of one loop into one result, checked against the merging job's checkout. Bad
 * input throws LoopInputError naming the file, the field and what to do.
 */
export function mergeShards(files: readonly { name: string; shard: LoopShardFile }[], checkout: MergeCheckout): MergedLoop {
  const seen = checkShardSet(files);
  const first = files[0]!;
  const count = first.shard.shard.count;
  const ids = checkout.criteria.map((c) => c.id);
  const listed = new Set(checkout.listed);
  const from = new Map<string, string>();
  for (const { name, shard } of files) {
    if (shard.criterionIds.length !== ids.length || shard.criterionIds.some((id, i) => id !== ids[i])) {
      throw refuse(name, 'criterionIds', `${JSON.stringify(shard.criterionIds)} are not the criteria of the template ${shard.spec.isc} here (${ids.join(', ')})`, 'merge in a checkout with the ISC template the shards ran with');
    }
    shard.artifacts.forEach((a, i) => {
      const at = `artifacts[${i}]`;
      if (shardIndexOf(a.file, count) !== shard.shard.index) throw refuse(name, `${at}.file`, `${a.file} belongs to shard ${shardIndexOf(a.file, count)}/${count}, not ${shard.shard.index}/${count}; the file was not written by that shard`, REWRITE);
      if (!listed.has(a.file)) throw refuse(name, `${at}.file`, `${a.file} is not an artifact of ${shard.spec.glob} in this checkout`, 'merge in a checkout of the commit the shards verified');
      const twice = from.get(a.file);
      if (twice !== undefined) throw refuse(name, `${at}.file`, `${a.file} has a result already (in ${twice}); each artifact is merged exactly once`, REWRITE);
      from.set(a.file, name);
      if (checkout.hashes.get(a.file) !== a.sha256) throw refuse(name, `${at}.sha256`, `${a.file} was verified at content ${a.sha256.slice(0, 12)}… but is ${checkout.hashes.get(a.file)?.slice(0, 12) ?? 'unreadable'}… here: the result is for other content`, 'merge in a checkout of the commit the shards verified, or run the shards again');
      for (const id of Object.keys(a.outcomes)) if (!ids.includes(id)) throw refuse(name, `${at}.outcomes`, `"${id}" is not a criterion of the template ${shard.spec.isc}`, REWRITE);
    });
  }
  const absent = checkout.listed.filter((f) => !from.has(f));
  if (absent.length > 0) {
    const shardOf = (f: string) => seen.get(shardIndexOf(f, count))!;
    throw refuse(shardOf(absent[0]!), 'artifacts', `${absent.length} artifact${absent.length === 1 ? '' : 's'} of ${first.shard.spec.glob} in this checkout ha${absent.length === 1 ? 's' : 've'} no result: ${absent.slice(0, 5).join(', ')}${absent.length > 5 ? ', …' : ''}`, 'give the shard files of a loop run on this commit; every listed artifact needs a result');
  }

  const critical = checkout.criteria.filter((c) => c.priority === 'CRITICAL').map((c) => c.id);
  const artifacts = files
    .flatMap((f) => f.shard.artifacts)
    .map(({ sha256: _h, ...a }) => ({ ...a, status: derivedStatus(a.status, a.outcomes, critical) }))
    .sort((a, b) => compareFiles(a.file, b.file));
  const { shard: _s, ...spec } = first.shard.spec;
  const states = files.map((f) => f.shard.state);
  const allPass = artifacts.every((a) => a.status === 'PASSING');
  const state: LoopState = states.includes('CANCELLED') ? 'CANCELLED' : allPass ? 'COMPLETE' : states.includes('BUDGET_EXHAUSTED') ? 'BUDGET_EXHAUSTED' : states.includes('RUNNING') ? 'RUNNING' : 'FAILED';
  return {
    spec: spec as LoopSpec,
    criterionIds: ids,
    state,
    iteration: Math.max(...files.map((f) => f.shard.iteration)),
    artifacts,
    report: loopReport(spec, ids, artifacts),
  };
}

/** The files are the N shards of one loop, each once, each unchanged since it ran (its spec's key); by index, their names. */
export function checkShardSet(files: readonly { name: string; shard: LoopShardFile }[]): Map<number, string> {
  if (files.length === 0) throw new LoopInputError('loop merge needs the shard files (FILE…)');
  const first = files[0]!;
  const count = first.shard.shard.count;
  // The count is bounded by the schema (MAX_SHARDS) before anything is sized by it.
  const seen = new Map<number, string>();
  for (const { name, shard } of files) {
    if (shard.specKey !== first.shard.specKey) throw new LoopInputError(`${name} is a shard of another loop (glob ${shard.spec.glob}, ISC ${shard.spec.isc}) than ${first.name} (glob ${first.shard.spec.glob}, ISC ${first.shard.spec.isc})`);
    const key = specKey(shard.spec);
    if (key !== shard.specKey) throw refuse(name, 'specKey', `is ${shard.specKey} but its spec's key is ${key}: the spec was changed after the shard ran`, REWRITE);
    if (shard.shard.count !== count) throw refuse(name, 'shard.count', `is shard ${shard.shard.index}/${shard.shard.count} but ${first.name} is one of ${count}`, 'give the shards of one loop');
    if (shard.iteration > shard.spec.maxIterations) throw refuse(name, 'iteration', `${shard.iteration} is past the spec's maxIterations ${shard.spec.maxIterations}`, REWRITE);
    const other = seen.get(shard.shard.index);
    if (other) throw new LoopInputError(`${name} and ${other} are both shard ${shard.shard.index}/${count}`);
    seen.set(shard.shard.index, name);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length > 0) throw new LoopInputError(`shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing: give all ${count} shard files`);
  return seen;
}

/**
 * An artifact passes when every CRITICAL criterion of the template has a PASS outcome, whatever
 * its file says; one never verified (PENDING, or WORKING when the loop stopped) stays so.
 */
function derivedStatus(claimed: LoopArtifactStatus, outcomes: Readonly<Record<string, string>>, critical: readonly string[]): LoopArtifactStatus {
  if (critical.every((id) => outcomes[id] === 'PASS')) return Object.keys(outcomes).length > 0 || critical.length > 0 ? 'PASSING' : claimed;
  return claimed === 'PENDING' || claimed === 'WORKING' ? claimed : 'FAILING';
}
