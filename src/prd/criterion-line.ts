import type { CriterionSource, Priority, VerificationMethod } from '../model';
import { formatVerifySpec } from './verify-spec';

/**
 * A criterion line cut into consecutive pieces whose concatenation is the line, byte for
 * byte. An edit replaces one piece, so the rest of the line (spacing, case, trailing
 * blanks) is written back as it was.
 */
export interface CriterionSegments {
  /** `- [` with its indentation and bullet spacing. */
  lead: string;
  /** ` `, `x` or `X`. */
  check: string;
  /** `] ` */
  close: string;
  id: string;
  /** `: ` with whatever blanks surround the colon. */
  sep: string;
  /** `[I] [NICE] ` — confidence and priority tags with their spacing. */
  tags: string;
  /** `Anti: ` as PAI v2 writes before an anti-criterion's text. */
  anti: string;
  text: string;
  /** ` | Verify: Grep: pattern`, or empty. */
  verify: string;
  trailing: string;
}

export const SEGMENT_ORDER = ['lead', 'check', 'close', 'id', 'sep', 'tags', 'anti', 'text', 'verify', 'trailing'] as const;
export type SegmentName = (typeof SEGMENT_ORDER)[number];

export function renderSegments(s: CriterionSegments): string {
  return SEGMENT_ORDER.map((k) => s[k]).join('');
}

/** Start and end column (0-based) of a segment in the line. */
export function segmentSpan(s: CriterionSegments, name: SegmentName): [number, number] {
  let start = 0;
  for (const k of SEGMENT_ORDER) {
    if (k === name) return [start, start + s[k].length];
    start += s[k].length;
  }
  throw new Error(`no segment ${name}`);
}

export interface ParsedTags {
  source?: CriterionSource;
  priority?: Priority;
}

export interface VerifyParts {
  /** The type word as written, e.g. `grep`; empty when `Verify:` has nothing after it. */
  type: string;
  argument?: string;
  /** Columns of the type word and of the argument in the line. */
  typeColumn: number;
  argumentColumn?: number;
}

export type CriterionLineParse =
  | { kind: 'criterion'; segments: CriterionSegments; tags: ParsedTags; verify?: VerifyParts }
  | { kind: 'malformed'; problem: 'no-checkbox' | 'no-id' | 'no-colon'; column: number; endColumn: number; idEnd?: number }
  | { kind: 'none' };

const CHECKBOX = /^([ \t]{0,3}[-*+][ \t]+\[)([ xX])(\][ \t]*)(.*)$/;
const BARE_ID_ITEM = /^([ \t]{0,3}[-*+][ \t]+)(ISC-\S*)/i;
const ID_WITH_COLON = /^(ISC-[^\s:]*)([ \t]*:[ \t]*)/i;
const ID_ONLY = /^ISC-[^\s:]*/i;
const TAG = /^\[(E|I|R|CRITICAL|IMPORTANT|NICE)\][ \t]*/i;
const ANTI = /^Anti[ \t]*:[ \t]*/i;
const VERIFY_AT = /\|[ \t]*Verify[ \t]*:/iy;

/**
 * Where ` | Verify:` starts (with the blanks before the bar) and how long it is. Tried at
 * each `|` only: the unanchored `/[ \t]*\|[ \t]*Verify[ \t]*:/i` rescans a run of blanks
 * from each of its positions, which is quadratic on a long line of blanks.
 */
function findVerify(content: string): { index: number; length: number } | undefined {
  for (let bar = content.indexOf('|'); bar !== -1; bar = content.indexOf('|', bar + 1)) {
    VERIFY_AT.lastIndex = bar;
    const m = VERIFY_AT.exec(content);
    if (!m) continue;
    let start = bar;
    while (start > 0 && (content[start - 1] === ' ' || content[start - 1] === '\t')) start--;
    return { index: start, length: bar - start + m[0].length };
  }
  return undefined;
}

const SOURCE_TAGS: Record<string, CriterionSource> = { E: 'EXPLICIT', I: 'INFERRED', R: 'IMPLICIT' };
const SOURCE_LETTER: Record<CriterionSource, string> = { EXPLICIT: 'E', INFERRED: 'I', IMPLICIT: 'R' };

/** Reads one line of a criteria section. Lines that are not list items are `none` (prose). */
export function parseCriterionLine(line: string): CriterionLineParse {
  const box = CHECKBOX.exec(line);
  if (!box) {
    const bare = BARE_ID_ITEM.exec(line);
    if (bare) return { kind: 'malformed', problem: 'no-checkbox', column: bare[1]!.length, endColumn: bare[1]!.length + bare[2]!.length };
    return { kind: 'none' };
  }
  const [, lead, check, close, rest] = box as unknown as [string, string, string, string, string];
  const restStart = lead.length + check.length + close.length;
  const idMatch = ID_WITH_COLON.exec(rest);
  if (!idMatch) {
    const bareId = ID_ONLY.exec(rest);
    if (bareId) return { kind: 'malformed', problem: 'no-colon', column: restStart, endColumn: restStart + bareId[0].length, idEnd: restStart + bareId[0].length };
    return { kind: 'malformed', problem: 'no-id', column: restStart, endColumn: line.trimEnd().length };
  }
  const [, id, sep] = idMatch as unknown as [string, string, string];
  let body = rest.slice(idMatch[0].length);
  let tags = '';
  const parsed: ParsedTags = {};
  for (let t = TAG.exec(body); t; t = TAG.exec(body)) {
    const name = t[1]!.toUpperCase();
    if (name in SOURCE_TAGS) parsed.source = SOURCE_TAGS[name];
    else parsed.priority = name as Priority;
    tags += t[0];
    body = body.slice(t[0].length);
  }
  const antiMatch = ANTI.exec(body);
  const anti = antiMatch ? antiMatch[0] : '';
  body = body.slice(anti.length);
  const content = body.trimEnd();
  const trailing = body.slice(content.length);
  const v = findVerify(content);
  const text = v ? content.slice(0, v.index) : content;
  const verify = v ? content.slice(v.index) : '';
  const segments: CriterionSegments = { lead, check, close, id, sep, tags, anti, text, verify, trailing };
  return { kind: 'criterion', segments, tags: parsed, verify: v ? verifyParts(segments, v.length) : undefined };
}

function verifyParts(s: CriterionSegments, keywordLength: number): VerifyParts {
  const base = segmentSpan(s, 'verify')[0] + keywordLength;
  const after = s.verify.slice(keywordLength);
  const lead = /^[ \t]*/.exec(after)![0].length;
  const m = /^([^\s:]*)[ \t]*:?[ \t]*(.*)$/.exec(after.slice(lead))!;
  const type = m[1]!;
  const argument = m[2] ? m[2] : undefined;
  const typeColumn = base + lead;
  return { type, argument, typeColumn, argumentColumn: argument ? base + after.length - argument.length : undefined };
}

export function renderTags(tags: ParsedTags): string {
  const parts = [tags.source && `[${SOURCE_LETTER[tags.source]}]`, tags.priority && `[${tags.priority}]`].filter(Boolean);
  return parts.length > 0 ? `${parts.join(' ')} ` : '';
}

export function renderVerify(method: VerificationMethod | undefined, text: string): string {
  return method ? ` | Verify: ${formatVerifySpec(method, text)}` : '';
}

export interface NewCriterionLine {
  id: string;
  text: string;
  checked?: boolean;
  source?: CriterionSource;
  priority?: Priority;
  verify?: VerificationMethod;
}

/** A criterion line in this product's format; tags appear only for what differs from the defaults. */
export function renderCriterionLine(c: NewCriterionLine): string {
  return renderSegments({
    lead: '- [',
    check: c.checked ? 'x' : ' ',
    close: '] ',
    id: c.id,
    sep: ': ',
    tags: renderTags({ source: c.source && c.source !== 'EXPLICIT' ? c.source : undefined, priority: c.priority && c.priority !== 'CRITICAL' ? c.priority : undefined }),
    anti: '',
    text: c.text,
    verify: renderVerify(c.verify, c.text),
    trailing: '',
  });
}
