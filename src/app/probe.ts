import * as fs from 'node:fs/promises';
import type { AnyCriterion, CriterionResult } from '../model';
import { setNote, notesOf } from '../prd/notes';
import { parsePrd } from '../prd/parse';
import { verifyPrdFile, writeAtomically } from './verify-prd-file';

/**
 * Probe the probes (issue 28 §5): when a person accepts criteria, every runnable check is run
 * once on the workspace as it is. A criterion about new behaviour whose check already passes
 * may be a check that cannot fail (the demo's "farewell throws…" took "m.farewell is not a
 * function" for the expected error); it is flagged, not failed. Anti-criteria state what must
 * not become true, so they are expected to pass before any work: never flagged.
 */
export const PROBE_WORDS = 'passes before any work — can this check fail?';

/** The checks a probe runs: mechanical ones. A model's judgement (CUSTOM) or a browser scenario says nothing about a check. */
const RUNNABLE = new Set(['CLI', 'TEST', 'TASK', 'GREP', 'READ', 'STATIC']);

export interface ProbeFlag {
  readonly id: string;
  /** The check's own evidence that it passed. */
  readonly evidence: string;
}

/** Which criteria a probe flags: a criterion (never an anti-criterion) with a runnable check that PASSES now. */
export function probeFlags(criteria: readonly Pick<AnyCriterion, 'id' | 'kind' | 'verify'>[], results: readonly Pick<CriterionResult, 'criterionId' | 'outcome' | 'evidence'>[]): ProbeFlag[] {
  const byId = new Map(results.map((r) => [r.criterionId, r]));
  return criteria.flatMap((c) => {
    const r = byId.get(c.id);
    if (c.kind !== 'criterion' || !c.verify || !RUNNABLE.has(c.verify.type) || r?.outcome !== 'PASS') return [];
    return [{ id: c.id, evidence: r.evidence }];
  });
}

/** The criteria of a PRD's text that carry a "Probe" note: their check passed before any work was done. */
export function probedIds(text: string): string[] {
  const doc = parsePrd(text);
  return doc.criteria.filter((c) => notesOf(doc, c.id).some((n) => n.kind === 'probe')).map((c) => c.id);
}

/** The PRD with a "Probe" note under each flagged criterion, and none under the others (round-trip safe: src/prd/notes.ts). */
export function withProbeNotes(text: string, flagged: readonly string[], day: string): string {
  const doc = parsePrd(text);
  let out = text;
  for (const c of doc.criteria) {
    const has = notesOf(doc, c.id).some((n) => n.kind === 'probe');
    if (flagged.includes(c.id)) {
      if (!has) out = setNote(out, c.id, 'probe', { text: `${PROBE_WORDS} (${day})` });
    } else if (has) out = setNote(out, c.id, 'probe', undefined);
  }
  return out;
}

export type ProbeOutcome = { kind: 'probed'; flags: ProbeFlag[]; written: boolean } | { kind: 'not-probed'; message: string };

/**
 * Runs a PRD's checks once as `ideal-state verify` would (its commands approved as verify
 * approves them: `ask` on a terminal, else the allow-list), records nothing in the store, and
 * writes the probe notes into the PRD unless it changed meanwhile.
 */
export async function probePrd(file: string, workspace: string, options: { ask?: (q: string) => Promise<string>; warn: (s: string) => void; now: Date }): Promise<ProbeOutcome> {
  const v = await verifyPrdFile({ file, workspace, timeoutSeconds: 120, yes: false, noCommands: false, store: false, warn: options.warn, ...(options.ask ? { ask: options.ask } : {}) });
  if (v.kind !== 'verified') return { kind: 'not-probed', message: v.kind === 'bad-input' ? v.summary : v.message };
  const flags = probeFlags(v.criteria, v.set.results);
  const next = withProbeNotes(v.text, flags.map((f) => f.id), options.now.toISOString().slice(0, 10));
  if (next === v.text) return { kind: 'probed', flags, written: false };
  const current = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (current !== v.text) return { kind: 'probed', flags, written: false };
  await writeAtomically(file, next);
  return { kind: 'probed', flags, written: true };
}
