import type { CriterionSegments } from '../criterion-line';
import { byPosition, diagnostic, rangeOn, type PrdDiagnostic } from '../diagnostics';
import { keyRange } from '../frontmatter';
import { lintPrd } from '../lint';
import type { PrdCriterion, PrdDocument } from '../model';
import { isaCompletionProblems } from './completion';
import { isContainer, ISA_CHECK_TYPE_LIST, liveClaims, type IsaClaim, type IsaDocument } from './model';
import { parseIsa } from './parse';
import { isKnownCheckType, planProbe, probeCommand } from './probe';
import { isKnownSeverity } from './strategy';

/** The product's wording rules (length, compound, action, scope word) apply to claims as they do to criteria. */
const TEXT_RULES = new Set(['isc-length', 'isc-compound', 'isc-action', 'isc-scope-word']);
const RUNNABLE = new Set(['bash', 'bun-test', 'bun-property', 'curl']);

/** Parses and lints an ISA: every diagnostic, in document order. */
export function checkIsa(text: string): { document: IsaDocument; diagnostics: PrdDiagnostic[] } {
  const document = parseIsa(text);
  const lint = document.diagnostics.some((d) => d.rule === 'prd-too-large') ? [] : lintIsa(document);
  return { document, diagnostics: [...document.diagnostics, ...lint].sort(byPosition) };
}

export function lintIsa(doc: IsaDocument): PrdDiagnostic[] {
  const out: PrdDiagnostic[] = [...wording(doc)];
  const lineText = (i: number) => doc.source.lines[i]!.text;
  const whole = (i: number) => rangeOn(i, 0, lineText(i).length);
  const claims = new Map(doc.claims.map((c) => [c.id, c]));
  const probed = new Set<string>();
  for (const p of doc.probes) {
    if (!p.isc) {
      out.push(diagnostic('error', 'probe-no-claim', whole(p.line), 'this Test Strategy row names no claim; put the claim id (ISC-1, C1) in its isc column'));
      continue;
    }
    const claim = claims.get(p.isc);
    if (!claim) out.push(diagnostic('error', 'probe-unknown-claim', whole(p.line), `the Test Strategy names ${p.isc}, which is not a claim of this ISA; fix the id or add the claim`));
    else if (claim.tombstone) out.push(diagnostic('warning', 'probe-dropped-claim', whole(p.line), `${p.isc} was dropped (tombstone); this row is not run, remove it`));
    if (probed.has(p.isc)) out.push(diagnostic('warning', 'probe-duplicate', whole(p.line), `${p.isc} already has a Test Strategy row above; only the first is run`));
    probed.add(p.isc);
    if (!isKnownCheckType(p.type)) {
      // Real ISAs name their own check types (integration, word-count, …): read, and verified by what the probe is.
      const plan = planProbe(p);
      const how = plan.kind === 'method' ? `it is verified by running \`${plan.method.type === 'CLI' ? plan.method.command : plan.method.type}\` (exit 0 = holds)` : `${p.isc} stays UNKNOWN, as ${plan.reason.replace(/, so it stays UNKNOWN|,? and it stays UNKNOWN/, '')}`;
      out.push(diagnostic('warning', 'probe-unknown-type', whole(p.line), `check type "${p.type}" for ${p.isc} is not one of ${ISA_CHECK_TYPE_LIST}; ${how}`));
    } else if (RUNNABLE.has(p.type) && !probeCommand(p)) {
      out.push(diagnostic('warning', 'probe-no-command', whole(p.line), `${p.isc}'s ${p.type} probe names no command (tool "${p.tool}"); put the command in the tool column, or it stays UNKNOWN`));
    }
    if (p.severity && !isKnownSeverity(p.severity)) out.push(diagnostic('warning', 'probe-severity', whole(p.line), `severity "${p.severity}" is neither critical nor normal; it is ignored`));
  }
  for (const c of liveClaims(doc)) {
    if (!probed.has(c.id) && !isContainer(doc, c.id)) {
      out.push(diagnostic('warning', 'claim-no-probe', rangeOn(c.line, c.checkColumn + 3, lineText(c.line).length), `${c.id} has no Test Strategy row, so nothing proves it (it stays UNKNOWN); add "| ${c.id} | bash | … | exit 0 | <command> |"`));
    }
  }
  if (liveClaims(doc).length > 0 && !liveClaims(doc).some((c) => c.anti)) {
    const s = doc.sections.find((x) => x.kind === 'claims' || x.kind === 'features');
    out.push(diagnostic('warning', 'isc-no-anti', s ? whole(s.line) : rangeOn(0, 0), 'no anti-claim; add at least one "- [ ] ISC-N: Anti: …" naming what must not happen (its probe states the good state)'));
  }
  out.push(...progressMismatch(doc));
  // What LifeOS's Stop gate refuses at close; the done gate refuses it too (see isaResults).
  for (const p of isaCompletionProblems(doc)) out.push(diagnostic('warning', p.rule, whole(p.line), p.message));
  return out;
}

/** The frontmatter's `progress: M/N` against the checkboxes (leaves, tombstones left out). */
function progressMismatch(doc: IsaDocument): PrdDiagnostic[] {
  const written = doc.meta.progress;
  if (!written || !doc.frontmatter || !/^\d+\/\d+$/.test(written)) return [];
  const counted = isaProgress(doc);
  if (written === counted) return [];
  const at = keyRange(doc.frontmatter, 'progress') ?? rangeOn(doc.frontmatter.open, 0);
  return [diagnostic('warning', 'progress-mismatch', at, `progress says ${written}, the checkboxes say ${counted} (checked / claims, containers and tombstones left out)`)];
}

/** `M/N`: checked leaf claims over all leaf claims, tombstones left out. */
export function isaProgress(doc: IsaDocument, checked?: (c: IsaClaim) => boolean): string {
  const leaves = liveClaims(doc).filter((c) => !isContainer(doc, c.id));
  return `${leaves.filter(checked ?? ((c) => c.checked)).length}/${leaves.length}`;
}

/** lintPrd's text rules, run on each claim as if it were a PRD criterion. */
function wording(doc: IsaDocument): PrdDiagnostic[] {
  const criteria = liveClaims(doc).map((c): PrdCriterion => {
    const line = doc.source.lines[c.line]!.text;
    const segments: CriterionSegments = { lead: line.slice(0, c.textColumn), check: '', close: '', id: '', sep: '', tags: '', anti: '', text: line.slice(c.textColumn).trimEnd(), verify: ' ', trailing: '' };
    return { id: c.id, kind: 'criterion', checked: c.checked, text: c.text, priority: 'CRITICAL', source: 'EXPLICIT', line: c.line, segments, tags: {}, section: 'criteria' };
  });
  const shim = { criteria, sections: [], source: doc.source, meta: {}, domains: [] } as unknown as PrdDocument;
  return lintPrd(shim).filter((d) => TEXT_RULES.has(d.rule));
}
