import type { AnyCriterion, CriterionResult, Priority } from '../model';
import { checkPrd } from '../prd/check';
import { diagnostic, rangeOn, type PrdDiagnostic } from '../prd/diagnostics';
import type { IsaDocument } from '../prd/isa/model';
import { checkIsa } from '../prd/isa/lint';
import { writeIsaOutcomes } from '../prd/isa/write';
import type { PrdDocument } from '../prd/model';
import { recogniseFormat, type RequirementFormat } from '../prd/recognise';
import { toCoreCriterion } from '../prd/to-core';
import { writeOutcomes } from '../prd/write-outcomes';
import { liveClaims } from '../prd/isa/model';
import { isaCriteria, isaResults } from './isa-verification';
import type { VerifySetResult } from '../verify/types';

/** One criterion (or ISA claim) as reports name it: its id as the file writes it, and where it is. */
export interface CriterionInfo {
  id: string;
  text: string;
  priority: Priority;
  anti: boolean;
  /** 1-based line in the file. */
  line: number;
}

/**
 * A requirements file ready to verify, whichever format it is in: the criteria for the
 * engine, how its results read under the file's own ids, how outcomes are written back.
 */
export interface VerifySource {
  ok: true;
  format: RequirementFormat;
  /** For the effort level and the store's run (an ISA lends its frontmatter and title). */
  document: PrdDocument;
  criteria: AnyCriterion[];
  /** Every criterion's id as the file writes it, in document order (an ISA's claims, containers too). */
  ids: readonly string[];
  /** The engine's set under the file's ids (a PRD's are the same). */
  shown(set: VerifySetResult): VerifySetResult;
  write(results: readonly CriterionResult[], options: { date: string; by: string }): string;
  /**
   * The same outcomes written into `text`, the file as it is now (an editor's document may
   * have been typed in since it was read), in the file's format: a PRD's checkboxes and
   * LOG, an ISA's checkboxes, `progress: M/N` and Verification lines.
   */
  writeInto(text: string, results: readonly CriterionResult[], options: { date: string; by: string }): string;
  info(id: string): CriterionInfo | undefined;
  /**
   * The engine's ids of the criteria named by the file's own ids (`only` is given as the file
   * writes them: an ISA's `C1`, `ISC-2.1`, or a container `ISC-2`, which is its parts), and
   * the names that are none of its criteria.
   */
  engineIds(ids: readonly string[]): { ids: string[]; unknown: string[] };
}

export type LoadedSource = VerifySource | { ok: false; problems: PrdDiagnostic[]; summary: string };

export function loadVerifySource(text: string, file: string, now: Date): LoadedSource {
  return recogniseFormat(text, file) === 'isa' ? loadIsa(text, file, now) : loadPrd(text, file, now);
}

function blocking(file: string, diagnostics: readonly PrdDiagnostic[]): LoadedSource | undefined {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) return undefined;
  return { ok: false, problems: errors, summary: `${file} has ${errors.length} error${errors.length === 1 ? '' : 's'}; fix ${errors.length === 1 ? 'it' : 'them'} before verifying` };
}

function loadPrd(text: string, file: string, now: Date): LoadedSource {
  const { document, diagnostics } = checkPrd(text);
  const bad = blocking(file, diagnostics);
  if (bad) return bad;
  const criteria: AnyCriterion[] = [];
  for (const c of document.criteria) {
    const core = toCoreCriterion(c, now.toISOString());
    if (!core.ok) return { ok: false, problems: [diagnostic('error', 'invalid-criterion', rangeOn(c.line, 0), core.message)], summary: `${file} has a criterion that cannot be verified` };
    criteria.push(core.criterion);
  }
  if (criteria.length === 0) {
    return { ok: false, problems: [diagnostic('error', 'no-criteria', rangeOn(0, 0), 'no criteria to verify; add "- [ ] ISC-1: …" lines under "## Ideal State Criteria"')], summary: `${file} has no criteria to verify` };
  }
  const byId = new Map(document.criteria.map((c) => [c.id, c]));
  return {
    ok: true,
    format: 'prd',
    document,
    criteria,
    ids: document.criteria.map((c) => c.id),
    shown: (set) => set,
    write: (results, options) => writeOutcomes(document, results, options),
    writeInto: (current, results, options) => writeOutcomes(current, results, options),
    info(id) {
      const c = byId.get(id);
      return c && { id, text: c.text, priority: c.priority, anti: c.kind === 'anti-criterion', line: c.line + 1 };
    },
    engineIds: (ids) => ({ ids: ids.filter((id) => byId.has(id)), unknown: ids.filter((id) => !byId.has(id)) }),
  };
}

function loadIsa(text: string, file: string, now: Date): LoadedSource {
  const { document: isa, diagnostics } = checkIsa(text);
  const bad = blocking(file, diagnostics);
  if (bad) return bad;
  const v = isaCriteria(isa, now.toISOString());
  if (v.problems.length > 0) return { ok: false, problems: v.problems.map((p) => diagnostic('error', 'invalid-criterion', rangeOn(p.line, 0), p.message)), summary: `${file} has a claim that cannot be verified` };
  if (v.criteria.length === 0 && v.containers.length === 0) {
    return { ok: false, problems: [diagnostic('error', 'no-criteria', rangeOn(0, 0), 'no claims to verify; add "- [ ] ISC-1: …" lines under "## Claims" and a "## Test Strategy" row for each')], summary: `${file} has no claims to verify` };
  }
  const byId = new Map(isa.claims.map((c) => [c.id, c]));
  return {
    ok: true,
    format: 'isa',
    document: isaAsPrd(isa),
    criteria: v.criteria,
    ids: liveClaims(isa).map((c) => c.id),
    shown: (set) => isaResults(isa, v, set),
    write: (results, options) => writeIsaOutcomes(isa, results, options),
    writeInto: (current, results, options) => writeIsaOutcomes(current, results, options),
    info(id) {
      const c = byId.get(id);
      return c && { id, text: c.text, priority: 'CRITICAL', anti: c.anti, line: c.line + 1 };
    },
    engineIds(ids) {
      const engineOf = new Map([...v.isaIdOf].map(([engine, isa]) => [isa, engine]));
      // A container is verified through its parts, however deep.
      const under = (id: string): string[] => (engineOf.has(id) ? [engineOf.get(id)!] : isa.claims.filter((c) => c.parent === id && !c.tombstone).flatMap((c) => under(c.id)));
      const found = ids.map((id) => [id, under(id)] as const);
      return { ids: [...new Set(found.flatMap(([, e]) => e))], unknown: found.filter(([, e]) => e.length === 0).map(([id]) => id) };
    },
  };
}

/** What the store and the effort table read of a PRD (meta and title), from an ISA; it has no PRD criteria. */
function isaAsPrd(isa: IsaDocument): PrdDocument {
  return {
    source: isa.source,
    dialect: 'pai-v2',
    ...(isa.frontmatter ? { frontmatter: isa.frontmatter } : {}),
    meta: isa.meta,
    ...(isa.title ? { title: isa.title } : {}),
    sections: [],
    domains: [],
    criteria: [],
    keyFiles: [],
    constraints: [],
    decisions: [],
    log: [],
    evidence: {},
    diagnostics: [],
    structural: isa.structural,
  };
}
