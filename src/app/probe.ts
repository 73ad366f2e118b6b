import * as fs from 'node:fs/promises';
import { PROBE_WORDS, probeFlags, type ProbeFlag } from '../algorithm/probe';
import { setNote, notesOf } from '../prd/notes';
import { parsePrd } from '../prd/parse';
import { verifyPrdFile, writeAtomically } from './verify-prd-file';

/**
 * Probe the probes, when a person locks criteria (`ideal-state criteria lock`, the
 * editor's Lock Criteria): the PRD's checks run once on the workspace as it is, and each
 * criterion whose check already passes gets a "Probe" note. The run's own probe, when it accepts
 * its criteria, and the rules both follow are in src/algorithm/probe.ts.
 */
export { PROBE_WORDS, probeFlags, type ProbeFlag } from '../algorithm/probe';

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

/**
 * `flags`: checks that pass though their criterion is not ticked in the PRD — nothing was done
 * for them yet, so a pass says the check may not be able to fail (a Probe note is written).
 * `done`: checks that pass on a criterion the PRD already ticks — the work was done before the
 * lock, so a pass is what it should be and proves nothing either way (no note; said as such).
 */
export type ProbeOutcome = { kind: 'probed'; flags: ProbeFlag[]; done: string[]; written: boolean } | { kind: 'not-probed'; message: string };

/**
 * Runs a PRD's checks once as `ideal-state verify` would (its commands approved as verify
 * approves them: `ask` on a terminal, else the allow-list), records nothing in the store, and
 * writes the probe notes into the PRD unless it changed meanwhile.
 */
export async function probePrd(file: string, workspace: string, options: { ask?: (q: string) => Promise<string>; warn: (s: string) => void; now: Date }): Promise<ProbeOutcome> {
  const v = await verifyPrdFile({ file, workspace, checks: { timeoutSeconds: 120 }, commands: { ...(options.ask ? { ask: options.ask } : {}) }, report: { store: false }, warn: options.warn });
  if (v.kind !== 'verified') return { kind: 'not-probed', message: v.kind === 'bad-input' ? v.summary : v.message };
  const ticked = new Set(parsePrd(v.text).criteria.filter((c) => c.checked).map((c) => c.id));
  const passing = probeFlags(v.criteria, v.set.results);
  const flags = passing.filter((f) => !ticked.has(f.id));
  const done = passing.filter((f) => ticked.has(f.id)).map((f) => f.id);
  // Only the flagged get a note; a criterion whose work was done keeps none (an old one goes).
  const next = withProbeNotes(v.text, flags.map((f) => f.id), options.now.toISOString().slice(0, 10));
  if (next === v.text) return { kind: 'probed', flags, done, written: false };
  const current = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (current !== v.text) return { kind: 'probed', flags, done, written: false };
  await writeAtomically(file, next);
  return { kind: 'probed', flags, done, written: true };
}

/** What the lock says of checks that pass because their work was already done. */
export function doneWords(ids: readonly string[]): string {
  const one = ids.length === 1;
  return `${ids.join(', ')} already ${one ? 'passes' : 'pass'} and ${one ? 'is' : 'are'} ticked in the PRD: the work was done before the lock, so this probe cannot tell whether ${one ? 'that check' : 'those checks'} can fail (no Probe note)`;
}
