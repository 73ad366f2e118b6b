import { inputKey, protectedGlobsOf, snapshotInputs, textsKept, unresolvedExecuted, type InputProblems } from './lock-inputs';
import { criterionLine, goalOf, lockedCriterion, readForLock } from './lock';
import type { LockedCriterion, LockedInput, LockedPrd } from './lock-schema';
import { prdFolder } from './prds';

/**
 * What changed since a PRD was locked (or since the baseline): each change to a locked
 * criterion, a protected input or the PRD itself, with a diff. Any of them is TAMPERED to the
 * gate. Criteria added since are not changes: an agent may only add.
 */
export interface LockChange {
  /** The criterion id, or the PRD's path for a change to the file, or the input's name. */
  id: string;
  what: 'criterion' | 'prd' | 'input';
  summary: string;
  /** `- ` what was locked, `+ ` what is there now. */
  diff: string[];
}

export interface LockComparison {
  changes: LockChange[];
  /** Ids of the criteria the file has now that the lock does not: verified like the rest. */
  added: string[];
  /** The file is there and readable (else it is verified from nothing: it is TAMPERED). */
  readable: boolean;
  /** The PRD's text as compared: the gate verifies these bytes, never a second reading. */
  text?: string;
}

export async function compareWithLock(workspace: string, locked: LockedPrd, now: Date): Promise<LockComparison> {
  const changes: LockChange[] = [];
  const read = await readForLock(workspace, locked.path, now);
  if (!read.ok) {
    const gone = read.reason === 'absent';
    // A file the gate cannot parse is the verification's problem (it blocks with its lines); one that is gone is tampering.
    if (gone) changes.push({ id: locked.path, what: 'prd', summary: `the locked PRD ${locked.path} is gone (deleted, moved or renamed)`, diff: locked.criteria.map((c) => `- ${criterionLine(c)}`) });
    // A FIFO or device in its place is never read (it would hang the gate): tampering too.
    else if (read.reason === 'not-regular' || read.reason === 'too-large') changes.push({ id: locked.path, what: 'prd', summary: `the locked PRD ${asChange(read.message)}`, diff: locked.criteria.map((c) => `- ${criterionLine(c)}`) });
    return { changes, added: [], readable: false };
  }
  const { source } = read;
  if (source.document.meta.loopId !== undefined) {
    changes.push({ id: locked.path, what: 'prd', summary: `${locked.path} was relabelled as a loop's PRD`, diff: [`+ loop: ${source.document.meta.loopId}`] });
  }
  const folder = await prdFolder(workspace);
  if (folder !== locked.prdFolder && !locked.path.startsWith(`${folder.replace(/\/+$/, '')}/`)) {
    changes.push({ id: locked.path, what: 'prd', summary: `${locked.path} is no longer in the PRD folder (idealState.prd.folder)`, diff: [`- idealState.prd.folder: ${locked.prdFolder}`, `+ idealState.prd.folder: ${folder}`] });
  }
  changes.push(...criterionChanges(locked.criteria, source.criteria.map(lockedCriterion)));
  changes.push(...goalChanges(locked, goalOf(source.document.frontmatter?.data).goal));
  const lockedIds = new Set(locked.criteria.map((c) => c.id));
  const added = source.criteria.filter((c) => !lockedIds.has(c.id)).map((c) => c.id);

  const globs = protectedGlobsOf(source.document.frontmatter?.data).globs;
  const dropped = locked.protectedGlobs.filter((g) => !globs.includes(g));
  if (dropped.length > 0) changes.push({ id: locked.path, what: 'prd', summary: `${locked.path}'s protected globs lost ${dropped.join(', ')}`, diff: dropped.map((g) => `- protected: ${g}`) });
  // Inputs as the lock named them: the locked criteria's tasks and the locked globs, whatever the file says now.
  const lockedCriteria = source.criteria.filter((c) => lockedIds.has(c.id));
  const searches = locked.inputs.some((i) => i.kind === 'gitignore');
  const resolved = await snapshotInputs(workspace, lockedCriteria, locked.protectedGlobs, { searches });
  const current = { ...resolved, inputs: [...resolved.inputs, ...(await unresolvedExecuted(workspace, locked.inputs, resolved.inputs, resolved.problems))] };
  // Searches run under the .gitignore files as locked where their texts were kept: a change to one then changes nothing.
  const approvedRules = !locked.walkTruncated && textsKept(locked.inputs.filter((i) => i.kind === 'gitignore'));
  changes.push(...inputChanges(approvedRules ? locked.inputs.filter((i) => i.kind !== 'gitignore') : locked.inputs, approvedRules ? current.inputs.filter((i) => i.kind !== 'gitignore') : current.inputs, current.problems));
  // A .gitignore that is a FIFO or a device is TAMPERED even where the approved texts decide the searches: the file is not what was approved.
  if (approvedRules) {
    for (const i of locked.inputs.filter((x) => x.kind === 'gitignore')) {
      const problem = current.problems.get(inputKey(i));
      if (problem) changes.push(unreadableChange(i, problem));
    }
  }
  return { changes, added, readable: true, text: read.text };
}

/** An ISA's stated goal or its `frozen` changed since the lock: the person's words, not the agent's. */
function goalChanges(locked: LockedPrd, now: LockedPrd['goal']): LockChange[] {
  const was = locked.goal ?? {};
  const is = now ?? {};
  const out: LockChange[] = [];
  const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));
  if (was.principalStatedGoal !== is.principalStatedGoal) out.push({ id: locked.path, what: 'prd', summary: `${locked.path}'s principal_stated_goal was changed`, diff: [`- principal_stated_goal: ${show(was.principalStatedGoal)}`, `+ principal_stated_goal: ${show(is.principalStatedGoal)}`] });
  if (JSON.stringify(was.frozen) !== JSON.stringify(is.frozen)) out.push({ id: locked.path, what: 'prd', summary: `${locked.path}'s frozen was changed`, diff: [`- frozen: ${show(was.frozen)}`, `+ frozen: ${show(is.frozen)}`] });
  return out;
}

/** Each locked criterion removed or changed (text, priority, kind, method); added ones are not changes. */
export function criterionChanges(locked: readonly LockedCriterion[], current: readonly LockedCriterion[]): LockChange[] {
  const byId = new Map(current.map((c) => [c.id, c]));
  const changes: LockChange[] = [];
  for (const was of locked) {
    const is = byId.get(was.id);
    if (!is) changes.push({ id: was.id, what: 'criterion', summary: `${was.id} was removed`, diff: [`- ${criterionLine(was)}`] });
    else if (!same(was, is)) changes.push({ id: was.id, what: 'criterion', summary: `${was.id} was changed (${differences(was, is).join(', ')})`, diff: [`- ${criterionLine(was)}`, `+ ${criterionLine(is)}`] });
  }
  return changes;
}

function same(a: LockedCriterion, b: LockedCriterion): boolean {
  return a.text === b.text && a.priority === b.priority && a.kind === b.kind && a.verify === b.verify;
}

function differences(a: LockedCriterion, b: LockedCriterion): string[] {
  const out: string[] = [];
  if (a.text !== b.text) out.push('text');
  if (a.priority !== b.priority) out.push(`priority ${a.priority} → ${b.priority}`);
  if (a.kind !== b.kind) out.push('kind');
  if (a.verify !== b.verify) out.push('verification method');
  return out;
}

const INPUT_WORDS: Record<LockedInput['kind'], string> = { task: 'task', 'allow-list': 'verify-commands allow-list', gitignore: '.gitignore', protected: 'protected file', executes: 'file a check runs' };

const short = (d: string | null) => (d === null ? 'absent' : `sha256 ${d.slice(0, 12)}`);

/** A read's refusal as a change's summary: the verdict adds "since a person locked it". */
const asChange = (problem: string) => problem.replace(/; it is not read$/, '');

function unreadableChange(was: LockedInput, problem: string): LockChange {
  return { id: was.name, what: 'input', summary: `the ${INPUT_WORDS[was.kind]} ${asChange(problem)}`, diff: [`- ${was.name}: ${short(was.digest)}`, `+ ${was.name}: not read`] };
}

function inputChanges(locked: readonly LockedInput[], current: readonly LockedInput[], problems: InputProblems = new Map()): LockChange[] {
  const key = inputKey;
  const now = new Map(current.map((i) => [key(i), i]));
  const out: LockChange[] = [];
  for (const was of locked) {
    const problem = problems.get(key(was));
    if (problem) {
      out.push(unreadableChange(was, problem));
      continue;
    }
    const is = now.get(key(was))?.digest ?? null;
    if (is === was.digest) continue;
    const verb = was.digest === null ? 'was added' : is === null ? 'was deleted' : 'was changed';
    out.push({ id: was.name, what: 'input', summary: `the ${INPUT_WORDS[was.kind]} ${was.name} ${verb}`, diff: [`- ${was.name}: ${short(was.digest)}`, `+ ${was.name}: ${short(is)}`] });
  }
  const lockedKeys = new Set(locked.map(key));
  for (const is of current) {
    // A new .gitignore can hide files from a search; a new test file is the agent's own work.
    if (is.kind === 'gitignore' && !lockedKeys.has(key(is))) out.push({ id: is.name, what: 'input', summary: `the .gitignore ${is.name} was added`, diff: [`+ ${is.name}: ${short(is.digest)}`] });
  }
  return out;
}
