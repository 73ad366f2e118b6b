import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { loadVerifySource } from '../verify-source';
import { compileGlob, type GlobRule } from '../../verify/glob';
import { VERIFY_COMMANDS_FILE } from '../../verify/verify-commands-file';
import { criterionChanges, type LockChange } from './lock-changes';
import { diskReader, executedInputs, namedTasks, protectedGlobsOf, taskDigest, type FileReader } from './lock-inputs';
import { lockedCriterion } from './lock';
import type { LockedCriterion } from './lock-schema';

/**
 * CI's lock: the criteria and protected inputs as they are at a git revision (the default
 * branch), which the change under review cannot rewrite. A criterion the change removed or
 * altered, or an input it changed (a named task, a file a check runs, the allow-list, a
 * .gitignore, a protected file), "changed, needs review" (`ideal-state verify --criteria-from REF`). Criteria it adds
 * are no change.
 */
export interface CriteriaReview {
  changes: LockChange[];
  /** The criteria as at REF, for reports that name a criterion the change removed. */
  base: readonly LockedCriterion[];
  /** The PRD does not exist at REF: the change adds it (nothing to weaken). */
  newFile: boolean;
}

function git(cwd: string, args: readonly string[]): Promise<{ ok: true; stdout: string } | { ok: false; stderr: string }> {
  return new Promise((resolve) => {
    execFile('git', [...args], { cwd, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => resolve(error ? { ok: false, stderr: stderr || error.message } : { ok: true, stdout }));
  });
}

export async function criteriaReview(workspace: string, prdFile: string, ref: string, now = new Date()): Promise<{ ok: true; review: CriteriaReview } | { ok: false; message: string }> {
  const verified = await git(workspace, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  if (!verified.ok) return { ok: false, message: `--criteria-from ${ref}: not a revision of the git repository at ${workspace}` };
  const atRef: FileReader = async (relative) => {
    const r = await git(workspace, ['show', `${ref}:./${relative}`]);
    return r.ok ? r.stdout : undefined;
  };
  const relative = path.relative(workspace, path.resolve(prdFile)).split(path.sep).join('/');
  const baseText = await atRef(relative);
  const currentText = await fs.readFile(path.resolve(prdFile), 'utf8');
  const current = loadVerifySource(currentText, relative, now);
  if (!current.ok) return { ok: false, message: current.summary };
  if (baseText === undefined) return { ok: true, review: { changes: [], base: [], newFile: true } };
  const base = loadVerifySource(baseText, `${ref}:${relative}`, now);
  // A PRD that did not parse at REF held nothing to weaken; the current one is verified as it is.
  if (!base.ok) return { ok: true, review: { changes: [], base: [], newFile: false } };
  const baseCriteria = base.criteria.map(lockedCriterion);
  const changes = criterionChanges(baseCriteria, current.criteria.map(lockedCriterion));

  const disk = diskReader(workspace);
  const short = (d: string | null) => (d === null ? 'absent' : `sha256 ${d.slice(0, 12)}`);
  for (const name of namedTasks(base.criteria)) {
    const [was, is] = [await taskDigest(workspace, name, atRef), await taskDigest(workspace, name, disk)];
    if (was !== is) changes.push({ id: name, what: 'input', summary: `the task ${name} was changed since ${ref}`, diff: [`- ${name}: ${short(was)}`, `+ ${name}: ${short(is)}`] });
  }
  // What the checks execute (scripts, Makefiles, runner configuration, shims), as at REF or now;
  // a file git tracks neither then nor now (an installed node_modules/.bin link) is the machine's, not the change's.
  const executed = [...new Set([...(await executedInputs(workspace, base.criteria, atRef)), ...(await executedInputs(workspace, base.criteria))])];
  const tracked = executed.length === 0 ? new Set<string>() : await trackedNow(workspace, executed);
  for (const name of executed) {
    const [was, is] = [await atRef(name), await disk(name)];
    if (was === is || (was === undefined && !tracked.has(name))) continue;
    const verb = was === undefined ? 'added' : is === undefined ? 'deleted' : 'changed';
    changes.push({ id: name, what: 'input', summary: `the file ${name}, which a check runs, was ${verb} since ${ref}`, diff: [] });
  }
  if ((await atRef(VERIFY_COMMANDS_FILE)) !== (await disk(VERIFY_COMMANDS_FILE))) {
    changes.push({ id: VERIFY_COMMANDS_FILE, what: 'input', summary: `the verify-commands allow-list ${VERIFY_COMMANDS_FILE} was changed since ${ref}`, diff: [] });
  }
  const globs = protectedGlobsOf(base.document.frontmatter?.data).globs.map((g) => compileGlob(g)).filter((r): r is GlobRule => r !== undefined);
  const searches = base.criteria.some((c) => c.verify?.type === 'GREP');
  const diff = await git(workspace, ['diff', '--name-status', '--relative', '--no-renames', ref, '--']);
  const untracked = await git(workspace, ['ls-files', '--others', '--exclude-standard']);
  const entries = [
    ...(diff.ok ? diff.stdout.split('\n').filter(Boolean).map((l) => ({ status: l[0]!, name: l.slice(l.indexOf('\t') + 1) })) : []),
    ...(untracked.ok ? untracked.stdout.split('\n').filter(Boolean).map((name) => ({ status: 'A', name })) : []),
  ];
  for (const entry of entries) {
    const isIgnoreFile = path.posix.basename(entry.name) === '.gitignore';
    if (isIgnoreFile && searches) changes.push({ id: entry.name, what: 'input', summary: `the .gitignore ${entry.name} was ${word(entry.status)} since ${ref}`, diff: [] });
    // A test the change adds is its own work; one it edits or deletes is a protected input.
    else if (!isIgnoreFile && entry.status !== 'A' && globs.some((g) => g.regex.test(entry.name))) changes.push({ id: entry.name, what: 'input', summary: `the protected file ${entry.name} was ${word(entry.status)} since ${ref}`, diff: [] });
  }
  return { ok: true, review: { changes, base: baseCriteria, newFile: false } };
}

/** Which of these workspace-relative files git tracks now (staged or committed). */
async function trackedNow(workspace: string, names: readonly string[]): Promise<Set<string>> {
  const r = await git(workspace, ['ls-files', '-z', '--', ...names.map((n) => `:(literal)${n}`)]);
  return new Set(r.ok ? r.stdout.split('\0').filter(Boolean) : []);
}

function word(status: string): string {
  return status === 'A' ? 'added' : status === 'D' ? 'deleted' : 'changed';
}

/** The marker every report format carries for a change under review. */
export const NEEDS_REVIEW = 'changed, needs review';

interface ReviewedSet {
  results: import('../../model').CriterionResult[];
  passed: boolean;
  summary: string;
  counts: Record<import('../../model').Outcome, number>;
}

/**
 * The verification with the review folded in, so every report format (table, JSON, JUnit,
 * SARIF, Markdown) lists each change: a changed criterion's result, or a new row for a removed
 * criterion or a changed input, FAIL "changed, needs review". With `allow` (a reviewer passed
 * --allow-criteria-changes) the rows stay listed but do not fail the job.
 */
export function withReview<S extends ReviewedSet>(set: S, review: CriteriaReview, ref: string, allow: boolean): S {
  if (review.changes.length === 0) return set;
  const results = [...set.results];
  for (const change of review.changes) {
    const evidence = `${NEEDS_REVIEW} (since ${ref}${allow ? '; allowed by --allow-criteria-changes' : ''}): ${change.summary}${change.diff.length > 0 ? `\n${change.diff.join('\n')}` : ''}`;
    const at = results.findIndex((r) => r.criterionId === change.id);
    if (allow) {
      if (at >= 0) results[at] = { ...results[at]!, evidence: `${evidence}\n${results[at]!.evidence}` };
      else results.push({ criterionId: change.id, outcome: 'UNKNOWN', evidence, durationMs: 0, failureLabel: 'SCOPE_ERROR', locations: [] });
      continue;
    }
    const row = { criterionId: change.id, outcome: 'FAIL' as const, evidence, durationMs: 0, failureLabel: 'CONSTRAINT_VIOLATION' as const, repairTarget: `the change is reverted, or a reviewer accepts it (--allow-criteria-changes)`, locations: [] };
    if (at >= 0) results[at] = row;
    else results.push(row);
  }
  const counts = { PASS: 0, FAIL: 0, PARTIAL: 0, UNKNOWN: 0 };
  for (const r of results) counts[r.outcome]++;
  const ids = review.changes.map((c) => c.id).join(', ');
  return { ...set, results, counts, passed: set.passed && allow, summary: `${set.summary}; ${NEEDS_REVIEW} since ${ref}: ${ids}` };
}
