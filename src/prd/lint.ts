import { resolveEffortLevel, shippedEffortTable } from '../model/effort-table';
import { DEFAULT_EFFORT_LEVEL, type EffortLevel, type EffortTable } from '../model/effort';
import { segmentSpan } from './criterion-line';
import { diagnostic, rangeOn, type PrdDiagnostic, type Range } from './diagnostics';
import { keyRange } from './frontmatter';
import type { PrdCriterion, PrdDocument } from './model';

/**
 * PAI's ISC rules made mechanical. Every finding is a warning: the rules are heuristics
 * about words, and the user may know better.
 */
export interface LintOptions {
  /** The effort table in force (shipped plus the workspace override); the shipped one by default. */
  effortTable?: EffortTable;
}

export const VERIFY_LINE_TO_FILL = ' | Verify: Custom: describe how to check';

const MIN_WORDS = 8;
const MAX_WORDS = 12;
const IMPERATIVES = new Set(['add', 'implement', 'create', 'fix', 'update', 'make', 'write', 'refactor', 'ensure', 'remove', 'delete', 'change', 'rename', 'configure', 'install', 'enable', 'disable', 'improve', 'optimize', 'migrate', 'replace', 'integrate', 'convert']);
const CONJUNCTION = /\b(and|with|including|plus)\b/gi;
const SCOPE = /\b(all|every|complete)\b/i;
const ENUMERATED = /\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|both)\b|[(:]|,.*,/i;

export function lintPrd(doc: PrdDocument, options: LintOptions = {}): PrdDiagnostic[] {
  const out: PrdDiagnostic[] = [];
  for (const c of doc.criteria) if (c.text) lintText(c, out);
  lintVerify(doc, out);
  lintCounts(doc, options.effortTable ?? shippedEffortTable(), out);
  return out;
}

function words(text: string): { word: string; start: number }[] {
  return [...text.matchAll(/\S+/g)].map((m) => ({ word: m[0], start: m.index }));
}

function lintText(c: PrdCriterion, out: PrdDiagnostic[]): void {
  const [textStart, textEnd] = segmentSpan(c.segments, 'text');
  const at = (start: number, end: number) => rangeOn(c.line, textStart + start, textStart + end);
  const raw = c.segments.text;
  const list = words(raw);
  if (list.length < MIN_WORDS || list.length > MAX_WORDS) {
    const advice = list.length < MIN_WORDS ? 'say more precisely what must be true' : 'split it or say it shorter';
    out.push(diagnostic('warning', 'isc-length', rangeOn(c.line, textStart, textEnd), `${c.id} has ${list.length} words; criteria are ${MIN_WORDS}–${MAX_WORDS} words, so ${advice}`));
  }
  for (const m of raw.matchAll(CONJUNCTION)) {
    const before = words(raw.slice(0, m.index)).length;
    const after = words(raw.slice(m.index + m[0].length)).length;
    // "with" often just qualifies a noun ("rejects empty password with inline error"); it joins
    // two checks when a whole clause stands on each side of it.
    const joins = m[0].toLowerCase() === 'with' ? before >= 4 && after >= 3 : before >= 2 && after >= 2;
    if (joins) {
      out.push(diagnostic('warning', 'isc-compound', at(m.index, m.index + m[0].length), `${c.id} may join two checks with "${m[0]}"; if one part can pass while the other fails, split it into two criteria`));
      break;
    }
  }
  const first = list[0];
  const verb = first?.word.replace(/[^A-Za-z]/g, '').toLowerCase();
  if (first && verb && IMPERATIVES.has(verb)) {
    out.push(diagnostic('warning', 'isc-action', at(first.start, first.start + first.word.length), `${c.id} is an action ("${first.word} …"); state what is true when it is done, e.g. "Settings page shows a dark mode toggle"`));
  }
  const scope = SCOPE.exec(raw);
  if (scope && !ENUMERATED.test(raw)) {
    out.push(diagnostic('warning', 'isc-scope-word', at(scope.index, scope.index + scope[0].length), `${c.id} says "${scope[0]}" without saying what that covers; enumerate them (a number or a list) or write one criterion each`));
  }
}

function lintVerify(doc: PrdDocument, out: PrdDiagnostic[]): void {
  for (const c of doc.criteria) {
    if (c.verify || c.segments.verify !== '') continue; // a written but unreadable Verify is the parser's diagnostic
    const [at] = segmentSpan(c.segments, 'verify');
    const range = rangeOn(c.line, at);
    out.push(
      diagnostic('warning', 'isc-no-verify', rangeOn(c.line, segmentSpan(c.segments, 'id')[0], at), `${c.id} has no verification method; add "| Verify: Type: argument" (CLI, Test, Task, Grep, Read, Static, Custom or Browser)`, {
        description: 'add a Custom verification to fill in',
        edits: [{ range, newText: VERIFY_LINE_TO_FILL }],
      }),
    );
  }
}

function lintCounts(doc: PrdDocument, table: EffortTable, out: PrdDiagnostic[]): void {
  // A loop's PRD (`loop:`) holds no criteria of its own: each artifact's are in its sub-run.
  if (doc.meta.loopId !== undefined) return;
  const criteriaSection = doc.sections.find((s) => s.kind === 'criteria');
  const where: Range = criteriaSection ? rangeOn(criteriaSection.line, 0, doc.source.lines[criteriaSection.line]!.text.length) : rangeOn(0, 0);
  let level: EffortLevel = DEFAULT_EFFORT_LEVEL;
  if (doc.meta.effort) {
    const r = resolveEffortLevel(doc.meta.effort, table);
    if (r.ok) level = r.level;
    else {
      const key = doc.frontmatter && (keyRange(doc.frontmatter, 'effort_level') ?? keyRange(doc.frontmatter, 'effort'));
      out.push(diagnostic('warning', 'effort-level', key ?? rangeOn(0, 0), `${r.message} (the criteria count is checked against ${DEFAULT_EFFORT_LEVEL})`));
    }
  }
  const ideal = doc.criteria.filter((c) => c.kind === 'criterion').length;
  const min = table.levels[level].minCriteria;
  if (ideal < min) {
    out.push(diagnostic('warning', 'isc-count', where, `${ideal} criteria, fewer than the ${min} that effort level ${level} asks for; split compound criteria or add missing ones`));
  }
  if (!doc.criteria.some((c) => c.kind === 'anti-criterion')) {
    const anti = doc.sections.find((s) => s.kind === 'anti-criteria');
    const at = anti ? rangeOn(anti.line, 0, doc.source.lines[anti.line]!.text.length) : where;
    out.push(diagnostic('warning', 'isc-no-anti', at, 'no anti-criterion; add at least one "- [ ] ISC-A-1: …" stating what must NOT be true at the end'));
  }
}
