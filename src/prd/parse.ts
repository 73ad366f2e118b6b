import { parseCriterionLine, segmentSpan, type CriterionLineParse } from './criterion-line';
import { byPosition, diagnostic, rangeOn, type PrdDiagnostic } from './diagnostics';
import { readFrontmatter } from './frontmatter';
import { isWellFormedId, nextFreeId } from './ids';
import { PRD_LIMITS, sizeText } from './limits';
import { splitLines, type SourceLine, type SourceLines } from './lines';
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
  if (text.length > PRD_LIMITS.maxChars) return tooLarge(source, text.length);
  const diagnostics: PrdDiagnostic[] = [];
  const lines = readableLines(source.lines, diagnostics);
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
  // A loop's PRD (`loop:`) has no criteria section: each artifact's criteria are in its sub-run's PRD.
  const loop = readMeta(frontmatter?.data ?? {}).loopId !== undefined;
  const required = dialect === 'pai-v2' ? (['criteria'] as const) : loop ? (['problem-space'] as const) : (['problem-space', 'criteria'] as const);
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

/** A PRD over the size limit: its lines are kept (so it is written back as it was) and nothing else is read. */
function tooLarge(source: SourceLines, chars: number): PrdDocument {
  const message = `this file is ${sizeText(chars)}, over the ${sizeText(PRD_LIMITS.maxChars)} a PRD may have, and is not read; split it or move long content out of it`;
  return {
    source,
    dialect: 'ideal-state',
    meta: {},
    sections: [],
    domains: [],
    criteria: [],
    keyFiles: [],
    constraints: [],
    decisions: [],
    log: [],
    evidence: {},
    diagnostics: [diagnostic('error', 'prd-too-large', rangeOn(0, 0), message)],
    structural: source.lines.map(() => false),
  };
}

/** The lines as the parser reads them: one longer than the limit is reported and read as blank. */
function readableLines(lines: readonly SourceLine[], diagnostics: PrdDiagnostic[]): SourceLine[] {
  return lines.map((l, i) => {
    if (l.text.length <= PRD_LIMITS.maxLineChars) return l;
    const message = `this line is ${sizeText(l.text.length)}, over the ${sizeText(PRD_LIMITS.maxLineChars)} a PRD line may have, and is not read; break it up`;
    diagnostics.push(diagnostic('error', 'line-too-long', rangeOn(i, 0, 1), message));
    return { text: '', eol: l.eol };
  });
}

/** For each heading, the line of the next heading at `level` or above (by index into `headings`), else `end`. */
function nextHeadingLines(headings: readonly Heading[], level: number, end: number): number[] {
  const out = new Array<number>(headings.length);
  let next = end;
  for (let k = headings.length - 1; k >= 0; k--) {
    out[k] = next;
    if (headings[k]!.level <= level) next = headings[k]!.line;
  }
  return out;
}

function sectionsOf(headings: readonly Heading[], lineCount: number): PrdSection[] {
  const ends = nextHeadingLines(headings, 2, lineCount);
  return headings.flatMap((h, k) => (h.level === 2 ? [{ kind: sectionKind(h.text), heading: h.text, line: h.line, end: ends[k]! }] : []));
}

function readCriteria(lines: readonly SourceLine[], structural: readonly boolean[], headings: readonly Heading[], sections: readonly PrdSection[], diagnostics: PrdDiagnostic[]) {
  const criteria: PrdCriterion[] = [];
  const domains: PrdDomain[] = [];
  const malformed: { line: number; parse: Extract<CriterionLineParse, { kind: 'malformed' }> }[] = [];
  const headingAt = new Map(headings.map((h, k) => [h.line, k]));
  const domainEnds = nextHeadingLines(headings, 3, lines.length);
  for (const section of sections.filter((s) => s.kind === 'criteria' || s.kind === 'anti-criteria')) {
    let domain: PrdDomain | undefined;
    for (let i = section.line + 1; i < section.end; i++) {
      if (!structural[i]) continue;
      const k = headingAt.get(i);
      const heading = k === undefined ? undefined : headings[k];
      if (heading) {
        if (heading.level === 3) {
          const kind = sectionKind(heading.text);
          domain = { name: heading.text, line: i, end: Math.min(domainEnds[k!]!, section.end), anti: kind === 'anti-criteria' || section.kind === 'anti-criteria' };
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
        } else if (result.reason === 'bad-option') {
          // An option that cannot be read (e.g. `expect: absnt`) must not quietly mean its default.
          diagnostics.push(diagnostic('error', 'verify-option', rangeOn(i, v.argumentColumn ?? v.typeColumn, lines[i]!.text.trimEnd().length), result.message));
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

/** Each suggested id looks at every id; past this many, problems come without one, so thousands of bad lines stay quick. */
const MAX_ID_SUGGESTIONS = 200;

/** Malformed and duplicate ids, and malformed criterion lines, each with the next free id as a fix. */
function checkIds(criteria: readonly PrdCriterion[], malformed: { line: number; parse: Extract<CriterionLineParse, { kind: 'malformed' }> }[], diagnostics: PrdDiagnostic[]) {
  const taken = new Set(criteria.map((c) => c.id));
  let suggestions = MAX_ID_SUGGESTIONS;
  const suggest = (anti: boolean, like: string | undefined): string | undefined => {
    if (suggestions <= 0) return undefined;
    suggestions--;
    const id = nextFreeId(taken, anti, like);
    taken.add(id);
    return id;
  };
  const seen = new Set<string>();
  const lastGood: Record<PrdCriterion['kind'], string | undefined> = { criterion: undefined, 'anti-criterion': undefined };
  for (const c of criteria) {
    const anti = c.kind === 'anti-criterion';
    const [start, end] = segmentSpan(c.segments, 'id');
    const range = rangeOn(c.line, start, end);
    const replace = (like: string | undefined) => {
      const id = suggest(anti, like);
      return id === undefined ? undefined : { description: `use ${id}`, edits: [{ range, newText: id }] };
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
      const id = suggest(false, lastGood.criterion);
      const fix = id === undefined ? undefined : { description: `use ${id}`, edits: [{ range: rangeOn(line, parse.column), newText: `${id}: ` }] };
      diagnostics.push(diagnostic('error', 'malformed-criterion', range, `a checkbox in a criteria section needs an id ("- [ ] ISC-1: text"); this line is not read as a criterion`, fix));
    }
  }
}

function warnOutsideCriteria(lines: readonly SourceLine[], structural: readonly boolean[], headings: readonly Heading[], sections: readonly PrdSection[], diagnostics: PrdDiagnostic[]) {
  const skip = lines.map(() => false);
  for (const s of sections) if (s.kind === 'criteria' || s.kind === 'anti-criteria') for (let i = s.line + 1; i < s.end; i++) skip[i] = true;
  for (const h of headings) skip[h.line] = true;
  lines.forEach((l, i) => {
    if (!structural[i] || skip[i]) return;
    const parsed = parseCriterionLine(l.text);
    if (parsed.kind === 'criterion') {
      const [start, end] = segmentSpan(parsed.segments, 'id');
      diagnostics.push(diagnostic('warning', 'criterion-outside-section', rangeOn(i, start, end), `${parsed.segments.id} is outside the criteria sections and is not read as a criterion; move it under "## Ideal State Criteria" or "## Anti-Criteria"`));
    }
  });
}
