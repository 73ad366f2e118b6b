import { isScalar, stringify } from 'yaml';
import type { CriterionSource, Priority, VerificationMethod } from '../model';
import { renderCriterionLine, renderSegments, renderTags, renderVerify, type CriterionSegments } from './criterion-line';
import { findPair } from './frontmatter';
import { nextFreeId } from './ids';
import { dominantEol, joinLines, type SourceLine } from './lines';
import type { PrdCriterion, PrdDocument } from './model';
import { parsePrd } from './parse';

export interface NewCriterion {
  /** Left out: the next free id after the group's last one. */
  id?: string;
  text: string;
  checked?: boolean;
  source?: CriterionSource;
  priority?: Priority;
  verify?: VerificationMethod;
}

export interface LogEntryInput {
  iteration: number;
  date: string;
  /** e.g. `VERIFY → COMPLETE` */
  phase: string;
  /** e.g. `4/4 passing` */
  criteria: string;
  work: string;
  /** FAIL and PARTIAL only: an UNKNOWN did not fail, it was not shown either way (`unknown`). */
  failing: readonly string[];
  /** UNKNOWN: no verdict (not approved, no judging model, …); listed apart, never under Failing. */
  unknown?: readonly string[];
  context?: string;
}

/** A change to a PRD; each one rewrites only the lines that show it. */
export type PrdEdit =
  | { kind: 'setChecked'; id: string; checked: boolean }
  | { kind: 'setText'; id: string; text: string }
  | { kind: 'setVerify'; id: string; verify: VerificationMethod | undefined }
  | { kind: 'setPriority'; id: string; priority: Priority | undefined }
  | { kind: 'setSource'; id: string; source: CriterionSource | undefined }
  | { kind: 'addCriterion'; criterion: NewCriterion; anti?: boolean; domain?: string }
  /** Several criteria at once, in order, where addCriterion would put the first: one parse for all of them. */
  | { kind: 'addCriteria'; criteria: readonly NewCriterion[]; anti?: boolean }
  | { kind: 'removeCriterion'; id: string }
  | { kind: 'appendLog'; entry: LogEntryInput }
  | { kind: 'setFrontmatter'; key: string; value: unknown };

/** An edit that cannot be made (unknown id, broken frontmatter); the text is left as it was. */
export class PrdEditError extends Error {
  override readonly name = 'PrdEditError';
  readonly code = 'prd-edit';
}

/** Applies edits in order and returns the new text. Lines no edit is about keep their bytes. */
export function applyEdits(doc: PrdDocument | string, edits: readonly PrdEdit[]): string {
  let current = typeof doc === 'string' ? parsePrd(doc) : doc;
  let lines = current.source.lines.map((l) => ({ ...l }));
  // Criteria whose line an edit rewrote since the last parse: what `current` says of them is old.
  const rewritten = new Set<string>();
  for (const [i, edit] of edits.entries()) {
    applyOne(current, lines, edit);
    const next = edits[i + 1];
    if (!next) break;
    // A rewritten criterion line moves no line, so the next edit can work from the same parse,
    // unless it is about a criterion already rewritten (a verification writes back one outcome
    // per criterion: one parse for all of them, not one each).
    if (IN_PLACE.has(edit.kind)) rewritten.add((edit as { id: string }).id);
    const reparse = !IN_PLACE.has(edit.kind) || (IN_PLACE.has(next.kind) && rewritten.has((next as { id: string }).id));
    if (reparse) {
      current = parsePrd(joinLines({ bom: current.source.bom, lines }));
      lines = current.source.lines.map((l) => ({ ...l }));
      rewritten.clear();
    }
  }
  return joinLines({ bom: current.source.bom, lines });
}

/** Edits that rewrite one criterion's line where it is, and nothing else. */
const IN_PLACE = new Set<PrdEdit['kind']>(['setChecked', 'setText', 'setVerify', 'setPriority', 'setSource']);

function applyOne(doc: PrdDocument, lines: SourceLine[], edit: PrdEdit): void {
  switch (edit.kind) {
    case 'setChecked':
      return rewrite(doc, lines, edit.id, (s) => (s.check !== ' ' === edit.checked ? {} : { check: edit.checked ? 'x' : ' ' }));
    case 'setText':
      // The verify part stays as written: a bare `Custom` keeps meaning "check this text".
      return rewrite(doc, lines, edit.id, () => ({ text: oneLine(edit.text) }));
    case 'setVerify':
      return rewrite(doc, lines, edit.id, (_, c) => ({ verify: renderVerify(edit.verify, c.text) }));
    case 'setPriority':
      return rewrite(doc, lines, edit.id, (_, c) => ({ tags: renderTags({ ...c.tags, priority: edit.priority }) }));
    case 'setSource':
      return rewrite(doc, lines, edit.id, (_, c) => ({ tags: renderTags({ ...c.tags, source: edit.source }) }));
    case 'removeCriterion': {
      const c = find(doc, edit.id);
      const removed = lines.splice(c.line, 1)[0]!;
      if (c.line === lines.length && lines.length > 0) lines[lines.length - 1]!.eol = removed.eol;
      return;
    }
    case 'addCriterion':
      return addCriterion(doc, lines, edit);
    case 'addCriteria':
      return addCriteria(doc, lines, edit);
    case 'appendLog':
      return appendLog(doc, lines, edit.entry);
    case 'setFrontmatter':
      return setFrontmatter(doc, lines, edit.key, edit.value);
  }
}

function find(doc: PrdDocument, id: string): PrdCriterion {
  const c = doc.criteria.find((x) => x.id === id);
  if (!c) throw new PrdEditError(`no criterion ${id} in this PRD`);
  return c;
}

function rewrite(doc: PrdDocument, lines: SourceLine[], id: string, change: (s: CriterionSegments, c: PrdCriterion) => Partial<CriterionSegments>): void {
  const c = find(doc, id);
  const patch = change(c.segments, c);
  if (Object.keys(patch).length === 0) return;
  lines[c.line]!.text = renderSegments({ ...c.segments, ...patch });
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** Inserts new lines before `index`; at the end of the file the last line keeps having no line ending. */
function insertLines(lines: SourceLine[], index: number, texts: readonly string[]): void {
  const eol = dominantEol(lines) || '\n';
  const last = lines.length - 1;
  if (index > last) {
    if (lines[last]!.text === '' && lines[last]!.eol === '') index = last;
    else {
      lines[last]!.eol = eol;
      lines.push(...texts.map((text, i) => ({ text, eol: i === texts.length - 1 ? ('' as const) : eol })));
      return;
    }
  }
  lines.splice(index, 0, ...texts.map((text) => ({ text, eol })));
}

/** The index after a section's last non-blank line. */
function afterContent(lines: readonly SourceLine[], from: number, end: number): number {
  let i = end;
  while (i > from + 1 && lines[i - 1]!.text.trim() === '') i--;
  return i;
}

function addCriterion(doc: PrdDocument, lines: SourceLine[], edit: Extract<PrdEdit, { kind: 'addCriterion' }>): void {
  const anti = edit.anti === true;
  const kind = anti ? 'anti-criterion' : 'criterion';
  const antiSection = doc.sections.find((s) => s.kind === 'anti-criteria');
  const section = anti && antiSection ? antiSection : doc.sections.find((s) => s.kind === 'criteria');
  const domain = !anti && edit.domain && section ? doc.domains.find((d) => d.name.toLowerCase() === edit.domain!.toLowerCase() && d.line > section.line && d.line < section.end) : undefined;
  const group = doc.criteria.filter((c) => c.kind === kind && (!section || (c.line > section.line && c.line < section.end)) && (!domain || (c.line > domain.line && c.line < domain.end)));
  const id = edit.criterion.id ?? nextFreeId(doc.criteria.map((c) => c.id), anti, group.at(-1)?.id ?? doc.criteria.filter((c) => c.kind === kind).at(-1)?.id);
  const line = renderCriterionLine({ ...edit.criterion, id });
  if (!section) {
    const heading = anti ? '## Anti-Criteria' : doc.dialect === 'pai-v2' ? '## Criteria' : '## Ideal State Criteria';
    const before = doc.sections.find((s) => (anti ? s.kind === 'log' : s.kind === 'anti-criteria' || s.kind === 'log' || s.kind === 'verification'));
    if (before) insertLines(lines, before.line, [heading, line, '']);
    else insertLines(lines, lines.length, [...blankBefore(lines), heading, line]);
    return;
  }
  if (edit.domain && !anti && !domain) {
    const at = afterContent(lines, section.line, section.end);
    return insertLines(lines, at, [...(at > section.line + 1 ? [''] : []), `### ${edit.domain}`, line]);
  }
  if (group.length > 0) return insertLines(lines, group.at(-1)!.line + 1, [line]);
  if (domain) return insertLines(lines, afterContent(lines, domain.line, domain.end), [line]);
  insertLines(lines, afterContent(lines, section.line, section.end), [line]);
}

/**
 * The criteria one after another where the first would go on its own, each with the next free
 * id after the one before (the group's numbering, as addCriterion gives it): the ids are found
 * once and counted on, so the cost does not grow with criteria × PRD size.
 */
function addCriteria(doc: PrdDocument, lines: SourceLine[], edit: Extract<PrdEdit, { kind: 'addCriteria' }>): void {
  if (edit.criteria.length === 0) return;
  const anti = edit.anti === true;
  const taken = new Set(doc.criteria.map((c) => c.id));
  const rendered: string[] = [];
  let previous: string | undefined;
  for (const c of edit.criteria) {
    const id = c.id ?? (previous === undefined ? undefined : followingId(previous, taken));
    if (id === undefined) {
      // The first one: where and under which id addCriterion puts it, and its line.
      const probe = lines.map((l) => ({ ...l }));
      const before = probe.length;
      addCriterion(doc, probe, { kind: 'addCriterion', criterion: c, anti });
      const first = parsePrd(joinLines({ bom: doc.source.bom, lines: probe })).criteria.filter((x) => !taken.has(x.id));
      previous = first[0]?.id;
      if (previous === undefined || probe.length < before) throw new PrdEditError('the first proposed criterion could not be placed');
      taken.add(previous);
      rendered.push(renderCriterionLine({ ...c, id: previous }));
      continue;
    }
    taken.add(id);
    previous = id;
    rendered.push(renderCriterionLine({ ...c, id }));
  }
  // Place the first as addCriterion does, then the rest right after it.
  addCriterion(doc, lines, { kind: 'addCriterion', criterion: { ...edit.criteria[0]!, id: idOf(rendered[0]!) }, anti });
  const at = lines.findIndex((l) => l.text === rendered[0]);
  lines.splice(at + 1, 0, ...rendered.slice(1).map((text) => ({ text, eol: lines[at]!.eol || dominantEol(lines) || '\n' })));
  if (at + 1 + rendered.length - 1 === lines.length && lines[at]!.eol === '') {
    // The first was the file's last line (no line ending): the new last line keeps having none.
    lines[at]!.eol = dominantEol(lines) || '\n';
    lines[lines.length - 1]!.eol = '';
  }
}

const ID_AT_START = /^- \[[ xX]\] (ISC-[A-Za-z0-9.-]+):/;
function idOf(line: string): string {
  return ID_AT_START.exec(line)?.[1] ?? '';
}

/** The id after `previous` in its numbering (ISC-COMP-009 → ISC-COMP-010), skipping ids in use. */
function followingId(previous: string, taken: ReadonlySet<string>): string {
  const m = /^(.*?)(\d+)$/.exec(previous);
  if (!m) return nextFreeId(taken, previous.startsWith('ISC-A-'), previous);
  for (let n = Number(m[2]) + 1; ; n++) {
    const id = `${m[1]}${String(n).padStart(m[2]!.length, '0')}`;
    if (!taken.has(id)) return id;
  }
}

/** A blank line to separate what is appended from the text above it, when there is text above it. */
function blankBefore(lines: readonly SourceLine[]): string[] {
  const last = lines.at(-1)!;
  const above = last.text === '' && last.eol === '' ? lines.at(-2) : last;
  return above && above.text.trim() !== '' ? [''] : [];
}

/** "none" alone beside criteria with no verdict would read as all clear: it says they are not known yet. */
function failingWords(e: LogEntryInput): string {
  if (e.failing.length > 0) return e.failing.join(', ');
  const unknown = e.unknown?.length ?? 0;
  return unknown === 0 ? 'none' : `none, but ${unknown === 1 ? '1 criterion has' : `${unknown} criteria have`} no verdict (under Unknown)`;
}

function appendLog(doc: PrdDocument, lines: SourceLine[], e: LogEntryInput): void {
  const entry = [
    `### Iteration ${e.iteration} — ${e.date}`,
    `- Phase: ${oneLine(e.phase)}`,
    `- Criteria: ${oneLine(e.criteria)}`,
    `- Work: ${oneLine(e.work)}`,
    `- Failing: ${failingWords(e)}`,
    ...(e.unknown && e.unknown.length > 0 ? [`- Unknown: ${e.unknown.join(', ')}`] : []),
    ...(e.context ? [`- Context: ${oneLine(e.context)}`] : []),
  ];
  const log = doc.sections.find((s) => s.kind === 'log');
  if (!log) return insertLines(lines, lines.length, [...blankBefore(lines), '## LOG', '', ...entry]);
  const at = afterContent(lines, log.line, log.end);
  insertLines(lines, at, ['', ...entry]);
}

function setFrontmatter(doc: PrdDocument, lines: SourceLine[], key: string, value: unknown): void {
  const rendered = stringify(value, { flowCollectionPadding: false, collectionStyle: 'flow' }).trimEnd();
  const fm = doc.frontmatter;
  if (!fm) {
    if (rendered.includes('\n')) throw new PrdEditError(`the value of "${key}" does not fit on one line`);
    return insertLines(lines, 0, ['---', `${key}: ${rendered}`, '---']);
  }
  if (!fm.ok) throw new PrdEditError('the frontmatter has YAML errors; fix them before it can be edited');
  const pair = findPair(fm.document, key);
  const node = pair?.value;
  if (!pair) {
    if (rendered.includes('\n')) throw new PrdEditError(`the value of "${key}" does not fit on one line`);
    return insertLines(lines, fm.close, [`${key}: ${rendered}`]);
  }
  if (isScalar(node) && node.range && !rendered.includes('\n')) {
    const start = fm.lineCounter.linePos(node.range[0]);
    const end = fm.lineCounter.linePos(node.range[1]);
    if (start.line === end.line) {
      // linePos is 1-based and counts from the YAML's first line (the line after the opening fence).
      const line = lines[fm.open + start.line]!;
      line.text = line.text.slice(0, start.col - 1) + rendered + line.text.slice(end.col - 1);
      return;
    }
  }
  // A block value or one spread over lines: let yaml rewrite the frontmatter, keeping comments and order.
  fm.document.set(key, value);
  const yamlLines = fm.document.toString().replace(/\r?\n$/, '').split(/\r?\n/);
  const eol = dominantEol(lines) || '\n';
  lines.splice(fm.open + 1, fm.close - fm.open - 1, ...yamlLines.map((text) => ({ text, eol })));
}
