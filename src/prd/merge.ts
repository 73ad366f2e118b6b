import type { LogEntryInput, PrdEdit } from './edit';
import { applyEdits } from './edit';
import { criterionData, type PrdCriterionData, type PrdDocument } from './model';
import { parsePrd } from './parse';

/**
 * What the engine wants a PRD to say now, relative to the text it last saw. The engine
 * states its criteria in full; the merge works out what it changed by comparing with
 * `base`, and brings only those changes into the user's current text.
 */
export interface EngineUpdate {
  /** The PRD text the engine last read or wrote: the common ancestor of both sides. */
  base: string;
  /** Every criterion and anti-criterion as the engine has them now; left out: criteria untouched. */
  criteria?: readonly PrdCriterionData[];
  /** Frontmatter keys the engine sets (status, iteration, updated, …). */
  frontmatter?: Readonly<Record<string, unknown>>;
  /** LOG entries to append; appending never overwrites anything, so they always go in. */
  log?: readonly LogEntryInput[];
}

export interface MergeResult {
  text: string;
  /** What the engine changed and now shows, e.g. `ISC-2 checked`, `ISC-9 added`, `status`. */
  applied: string[];
  /** Engine changes left out because the user changed the same thing: the user's text wins. */
  userWon: string[];
}

type Field = 'checked' | 'text' | 'priority' | 'source' | 'verify';
const FIELDS: readonly Field[] = ['checked', 'text', 'priority', 'source', 'verify'];

/** JSON with sorted keys, so two equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))) : v,
  ) ?? 'undefined';
}
const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

function byId(doc: PrdDocument): Map<string, PrdCriterionData> {
  const map = new Map<string, PrdCriterionData>();
  for (const c of doc.criteria) if (!map.has(c.id)) map.set(c.id, criterionData(c));
  return map;
}

function fieldEdit(id: string, field: Field, c: PrdCriterionData): PrdEdit {
  switch (field) {
    case 'checked':
      return { kind: 'setChecked', id, checked: c.checked };
    case 'text':
      return { kind: 'setText', id, text: c.text };
    case 'priority':
      return { kind: 'setPriority', id, priority: c.priority === 'CRITICAL' ? undefined : c.priority };
    case 'source':
      return { kind: 'setSource', id, source: c.source === 'EXPLICIT' ? undefined : c.source };
    case 'verify':
      return { kind: 'setVerify', id, verify: c.verify };
  }
}

/**
 * Three-way merge of an engine update into the user's current text, criterion by criterion
 * and field by field: a field the engine changed and the user did not takes the engine's
 * value; a field both changed keeps the user's; a criterion the user removed stays removed;
 * one the engine removed goes only if the user left it as the engine saw it. Every edit is
 * line-local (see applyEdits), so lines the merge is not about keep their bytes.
 */
export function mergeEngineUpdate(current: string, update: EngineUpdate): MergeResult {
  const base = parsePrd(update.base);
  const mine = parsePrd(current);
  const edits: PrdEdit[] = [];
  const applied: string[] = [];
  const userWon: string[] = [];

  if (update.criteria) {
    const was = byId(base);
    const now = byId(mine);
    const engine = new Map(update.criteria.map((c) => [c.id, c]));
    for (const [id, theirs] of engine) {
      const ancestor = was.get(id);
      const ours = now.get(id);
      if (!ancestor) {
        if (!ours) {
          edits.push({ kind: 'addCriterion', anti: theirs.kind === 'anti-criterion', ...(theirs.domain ? { domain: theirs.domain } : {}), criterion: { id, text: theirs.text, checked: theirs.checked, source: theirs.source, priority: theirs.priority, ...(theirs.verify ? { verify: theirs.verify } : {}) } });
          applied.push(`${id} added`);
        } else if (!same(ours, theirs)) userWon.push(`${id} added by both`);
        continue;
      }
      if (!ours) {
        if (!same(ancestor, theirs)) userWon.push(`${id} removed by the user`);
        continue;
      }
      for (const field of FIELDS) {
        if (same(ancestor[field], theirs[field])) continue; // the engine did not change it
        if (same(ours[field], theirs[field])) continue; // both made the same change
        if (!same(ours[field], ancestor[field])) {
          userWon.push(`${id} ${field}`);
          continue;
        }
        edits.push(fieldEdit(id, field, theirs));
        applied.push(`${id} ${field === 'checked' ? (theirs.checked ? 'checked' : 'unchecked') : field}`);
      }
    }
    for (const [id, ancestor] of was) {
      if (engine.has(id)) continue;
      const ours = now.get(id);
      if (!ours) continue; // removed on both sides
      if (same(ours, ancestor)) {
        edits.push({ kind: 'removeCriterion', id });
        applied.push(`${id} removed`);
      } else userWon.push(`${id} removed by the engine but edited by the user`);
    }
  }

  for (const [key, value] of Object.entries(update.frontmatter ?? {})) {
    const ancestor = base.frontmatter?.data[key];
    const ours = mine.frontmatter?.data[key];
    if (same(ours, value)) continue;
    if (!same(ours, ancestor)) {
      userWon.push(key);
      continue;
    }
    // Broken frontmatter cannot be edited; the user's text wins there too.
    if (mine.frontmatter && !mine.frontmatter.ok) {
      userWon.push(key);
      continue;
    }
    edits.push({ kind: 'setFrontmatter', key, value });
    applied.push(key);
  }

  for (const entry of update.log ?? []) {
    edits.push({ kind: 'appendLog', entry });
    applied.push(`LOG iteration ${entry.iteration}`);
  }

  return { text: edits.length > 0 ? applyEdits(mine, edits) : current, applied, userWon };
}
