import type { VerificationMethod } from '../../model';
import { applyEdits, formatVerifySpec, parsePrd, parseVerifySpec, type PrdEdit } from '../../prd';
import type { LockedCriterion, LockedPrd } from './lock-schema';

/** The default priority of a PRD criterion with no tag (src/prd/model.ts: "CRITICAL unless a tag says otherwise"). */
const DEFAULT_PRIORITY = 'CRITICAL';

export type RevertResult = { ok: true; text: string; restored: string[] } | { ok: false; message: string };

/**
 * A PRD's text with one locked criterion put back as it was locked: its text, priority and
 * verification method on its own line (re-added when it was deleted), every other byte as it
 * is (the PRD edits rewrite only the lines they are about). The gate then sees it as locked.
 */
export function revertCriterionText(current: string, locked: LockedPrd, id: string): RevertResult {
  if (locked.format !== 'prd') return { ok: false, message: `${locked.path} is an ISA; put ${id} back by hand (its claims are not single lines)` };
  const was = locked.criteria.find((c) => c.id === id);
  if (!was) return { ok: false, message: `${id} is not a locked criterion of ${locked.path}` };
  const doc = parsePrd(current);
  const now = doc.criteria.find((c) => c.id === id);
  const verify = verifyOf(was);
  if (!verify.ok) return { ok: false, message: `${id}: the locked method "${was.verify}" does not read back (${verify.message})` };
  const restored: string[] = [];
  const edits: PrdEdit[] = [];
  if (!now) {
    edits.push({ kind: 'addCriterion', anti: was.kind === 'anti-criterion', criterion: { id, text: was.text, ...(was.priority !== DEFAULT_PRIORITY ? { priority: was.priority } : {}), ...(verify.method ? { verify: verify.method } : {}) } });
    restored.push('the line');
  } else {
    if (now.kind !== was.kind) return { ok: false, message: `${id} moved between the criteria and the anti-criteria; move its line back by hand` };
    if (now.text !== was.text) {
      edits.push({ kind: 'setText', id, text: was.text });
      restored.push('text');
    }
    if (now.priority !== was.priority) {
      edits.push({ kind: 'setPriority', id, priority: was.priority === DEFAULT_PRIORITY ? undefined : was.priority });
      restored.push('priority');
    }
    // Compared as written after `Verify:`, the way the lock recorded it.
    const text = edits.some((e) => e.kind === 'setText') ? was.text : now.text;
    if (verifyLine(now.verify, text) !== was.verify) {
      edits.push({ kind: 'setVerify', id, verify: verify.method });
      restored.push('verification method');
    }
  }
  if (edits.length === 0) return { ok: true, text: current, restored };
  return { ok: true, text: applyEdits(doc, edits), restored };
}

function verifyLine(method: VerificationMethod | undefined, text: string): string | null {
  return method ? formatVerifySpec(method, text) : null;
}

function verifyOf(c: LockedCriterion): { ok: true; method: VerificationMethod | undefined } | { ok: false; message: string } {
  if (c.verify === null) return { ok: true, method: undefined };
  const colon = c.verify.indexOf(':');
  const type = colon < 0 ? c.verify : c.verify.slice(0, colon);
  const argument = colon < 0 ? undefined : c.verify.slice(colon + 1).trim();
  const parsed = parseVerifySpec(type, argument, c.text);
  return parsed.ok ? { ok: true, method: parsed.method } : { ok: false, message: parsed.message };
}
