import { parseCriterionLine, segmentSpan, type CriterionLineParse } from './criterion-line';
import { byPosition, diagnostic, rangeOn, type PrdDiagnostic } from './diagnostics';
import { readFrontmatter } from './frontmatter';
import { isWellFormedId, nextFreeId } from './ids';
import { splitLines, type SourceLine } from './lines';
import type { PrdCriterion, PrdDocument, PrdDomain, PrdSection } from './model';
import { outline, type Heading } from './outline';
import { detectDialect, readMeta } from './pai-v2';
import { decisions, evidence, listItems, logEntries, prose, sectionKind } from './sections';
import { parseVerifySpec, VERIFY_TYPE_NAMES } from './verify-spec';

/**
 * Reads a PRD. Never throws: whatever cannot be read as the user meant becomes a
 * diagnostic, and the text itself is kept line for line in `source`, so writing it back
 * gives the same bytes.
 */
export function parsePrd(text: string): PrdDocument {
  const source = splitLines(text);
  const lines = source.lines;
  const diagnostics: PrdDiagnostic[] = [];
  const frontmatter = readFrontmatter(lines, diagnostics);
  const { structural, headings, unclosed } = outline(lines, frontmatter ? frontmatter.close + 1 : 0);
  for (const u of unclosed) {
    const what = u.what === 'fence' ? 'code block' : 'HTML comment';
    diagnostics.push(diagnostic('warning', 'unclosed-block', rangeOn(u.line, 0, lines[u.line]!.text.length), `this ${what} is never closed, so nothing after it is read as PRD structure; close it`));
  }
  const sections = sectionsOf(headings, lines.length);
  const firstSection = sections[0]?.line ?? lines.length;
  const titleHeading = headings.find((h) => h.level === 1 && h.line < firstSection);
  const dialect = detectDialect(frontmatter, sections);
  const { criteria, domains } = readCriteria(lines, structural, headings, sections, diagnostics);
  warnOutsideCriteria(lines, structural, headings, sections, diagnostics);
  const required = dialect === 'pai-v2' ? (['criteria'] as const) : (['problem-space', 'criteria'] as const);
  for (const kind of required) {
    if (!sections.some((s) => s.kind === kind)) {
      const name = kind === 'criteria' ? (dialect === 'pai-v2' ? 'Criteria' : 'Ideal State Criteria') : 'Problem Space';
      diagnostics.push(diagnostic('warning', 'missing-section', rangeOn(0, 0), `no "## ${name}" section; add one${kind === 'criteria' ? ' (criteria are read only under it)' : ''}`));
    }
  }
  const body = (kind: PrdSection['kind'], onlyStructure: boolean) => {
    const s = sections.find((x) => x.kind === kind);
    if (!s) return [];
    const out: { line: number; text: string }[] = [];
    for (let i = s.line + 1; i < s.end; i++) if (!onlyStructure || structural[i]) out.push({ line: i, text: lines[i]!.text });
    return out;
  };
  const texts = (kind: PrdSection['kind']) => body(kind, true).map((l) => l.text);
  const problemSpace = prose(body('problem-space', false).map((l) => l.text));
  const context = prose(body('context', false).map((l) => l.text));
  return {
    source,
    dialect,
    ...(frontmatter ? { frontmatter } : {}),
    meta: readMeta(frontmatter?.data ?? {}),
    ...(titleHeading ? { title: { text: titleHeading.text, line: titleHeading.line } } : {}),
    sections,
    domains,
    criteria,
    ...(problemSpace ? { problemSpace } : {}),
    ...(context ? { context } : {}),
    keyFiles: listItems(texts('key-files')),
    constraints: listItems(texts('constraints')),
    decisions: decisions(body('decisions', true)),
    log: logEntries(body('log', true)),
    evidence: evidence(body('verification', true)),
    diagnostics: diagnostics.sort(byPosition),
    structural,
  };
}

function sectionsOf(headings: readonly Heading[], lineCount: number): PrdSection[] {
  return headings
    .filter((h) => h.level === 2)
    .map((h) => {
      const next = headings.find((o) => o.line > h.line && o.level <= 2);
      return { kind: sectionKind(h.text), heading: h.text, line: h.line, end: next ? next.line : lineCount };
    });
}

function readCriteria(lines: readonly SourceLine[], structural: readonly boolean[], headings: readonly Heading[], sections: readonly PrdSection[], diagnostics: PrdDiagnostic[]) {
  const criteria: PrdCriterion[] = [];
  const domains: PrdDomain[] = [];
  const malformed: { line: number; parse: Extract<CriterionLineParse, { kind: 'malformed' }> }[] = [];
  for (const section of sections.filter((s) => s.kind === 'criteria' || s.kind === 'anti-criteria')) {
    let domain: PrdDomain | undefined;
    for (let i = section.line + 1; i < section.end; i++) {
      if (!structural[i]) continue;
      const heading = headings.find((h) => h.line === i);
      if (heading) {
        if (heading.level === 3) {
          const kind = sectionKind(heading.text);
          const next = headings.find((h) => h.line > i && h.level <= 3);
          domain = { name: heading.text, line: i, end: Math.min(next ? next.line : section.end, section.end), anti: kind === 'anti-criteria' || section.kind === 'anti-criteria' };
          domains.push(domain);
        }
        continue;
      }
      const parsed = parseCriterionLine(lines[i]!.text);
      if (parsed.kind === 'malformed') malformed.push({ line: i, parse: parsed });
      if (parsed.kind !== 'criterion') continue;
      const { segments, tags } = parsed;
      const anti = section.kind === 'anti-criteria' || domain?.anti === true || /^ISC-A-/i.test(segments.id);
      const domainName = domain && !domain.anti && sectionKind(domain.name) !== 'criteria' ? domain.name : undefined;
      const text = segments.text.trim();
      let verify: PrdCriterion['verify'];
      if (parsed.verify) {
        const v = parsed.verify;
        const result = parseVerifySpec(v.type, v.argument, text);
        if (result.ok) verify = result.method;
        else if (result.reason === 'unknown-type') {
          const message = v.type ? result.message : `"Verify:" needs a type; use one of ${VERIFY_TYPE_NAMES.join(', ')}`;
          diagnostics.push(diagnostic('error', 'unknown-verify-type', rangeOn(i, v.typeColumn, v.typeColumn + v.type.length), message));
        } else diagnostics.push(diagnostic('warning', 'verify-argument-missing', rangeOn(i, v.typeColumn, v.typeColumn + v.type.length), result.message));
      }
      if (!text) {
        const [start] = segmentSpan(segments, 'id');
        diagnostics.push(diagnostic('error', 'malformed-criterion', rangeOn(i, start, lines[i]!.text.length), `criterion ${segments.id} has no text; write the state that must hold after the colon`));
      }
      criteria.push({
        id: segments.id,
        kind: anti ? 'anti-criterion' : 'criterion',
        checked: segments.check !== ' ',
        text,
        priority: tags.priority ?? 'CRITICAL',
        source: tags.source ?? 'EXPLICIT',
        ...(domainName ? { domain: domainName } : {}),
        ...(verify ? { verify } : {}),
        line: i,
        segments,
        tags,
        section: section.kind === 'anti-criteria' ? 'anti-criteria' : 'criteria',
      });
    }
  }
  checkIds(criteria, malformed, diagnostics);
  return { criteria, domains };
}

/** Malformed and duplicate ids, and malformed criterion lines, each with the next free id as a fix. */
function checkIds(criteria: readonly PrdCriterion[], malformed: { line: number; parse: Extract<CriterionLineParse, { kind: 'malformed' }> }[], diagnostics: PrdDiagnostic[]) {
  const taken = new Set(criteria.map((c) => c.id));
  const seen = new Set<string>();
  const lastGood: Record<PrdCriterion['kind'], string | undefined> = { criterion: undefined, 'anti-criterion': undefined };
  for (const c of criteria) {
    const anti = c.kind === 'anti-criterion';
    const [start, end] = segmentSpan(c.segments, 'id');
    const range = rangeOn(c.line, start, end);
    const replace = (like: string | undefined) => {
      const id = nextFreeId(taken, anti, like);
      taken.add(id);
      return { description: `use ${id}`, edits: [{ range, newText: id }] };
    };
    if (!isWellFormedId(c.id, anti)) {
      const hint = anti ? 'anti-criterion ids look like ISC-A-1 or ISC-A-SEC-001' : 'criterion ids look like ISC-1 or ISC-API-001';
      const where = anti && isWellFormedId(c.id, false) ? ' (it is listed as an anti-criterion)' : '';
      diagnostics.push(diagnostic('error', 'malformed-id', range, `"${c.id}" is not a valid id${where}; ${hint}`, replace(lastGood[c.kind])));
    } else {
      if (seen.has(c.id)) diagnostics.push(diagnostic('error', 'duplicate-id', range, `${c.id} is used by an earlier criterion; give this one its own id`, replace(c.id)));
      lastGood[c.kind] = c.id;
    }
    seen.add(c.id);
  }
  for (const { line, parse } of malformed) {
    const range = rangeOn(line, parse.column, parse.endColumn);
    if (parse.problem === 'no-checkbox') {
      diagnostics.push(diagnostic('error', 'malformed-criterion', range, 'a criterion needs a checkbox: "- [ ] ISC-1: text"; this line is not read as one', { description: 'add a checkbox', edits: [{ range: rangeOn(line, parse.column), newText: '[ ] ' }] }));
    } else if (parse.problem === 'no-colon') {
      const at = rangeOn(line, parse.idEnd!);
      diagnostics.push(diagnostic('error', 'malformed-criterion', range, 'put a colon after the id ("ISC-1: text"); this line is not read as a criterion', { description: 'add the colon', edits: [{ range: at, newText: ':' }] }));
    } else {
      const id = nextFreeId(taken, false, lastGood.criterion);
      taken.add(id);
      diagnostics.push(diagnostic('error', 'malformed-criterion', range, `a checkbox in a criteria section needs an id ("- [ ] ISC-1: text"); this line is not read as a criterion`, { description: `use ${id}`, edits: [{ range: rangeOn(line, parse.column), newText: `${id}: ` }] }));
    }
  }
}

function warnOutsideCriteria(lines: readonly SourceLine[], structural: readonly boolean[], headings: readonly Heading[], sections: readonly PrdSection[], diagnostics: PrdDiagnostic[]) {
  const inCriteria = (i: number) => sections.some((s) => (s.kind === 'criteria' || s.kind === 'anti-criteria') && i > s.line && i < s.end);
  lines.forEach((l, i) => {
    if (!structural[i] || inCriteria(i) || headings.some((h) => h.line === i)) return;
    const parsed = parseCriterionLine(l.text);
    if (parsed.kind === 'criterion') {
      const [start, end] = segmentSpan(parsed.segments, 'id');
      diagnostics.push(diagnostic('warning', 'criterion-outside-section', rangeOn(i, start, end), `${parsed.segments.id} is outside the criteria sections and is not read as a criterion; move it under "## Ideal State Criteria" or "## Anti-Criteria"`));
    }
  });
}
