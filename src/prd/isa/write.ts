import type { CriterionResult } from '../../model';
import { dominantEol, joinLines, trimBlanksEnd, type SourceLine } from '../lines';
import { isaProgress } from './lint';
import type { IsaDocument } from './model';
import { parseIsa } from './parse';

export interface IsaWriteOptions {
  /** `YYYY-MM-DD`, for the Verification lines. */
  date: string;
  /** Where the verification ran, e.g. "ideal-state verify". */
  by?: string;
}

const PROGRESS_KEY = /^progress[ \t]*:[ \t]*/;

/** `progress: 3/8   # note` with a new count: quotes, spacing and the comment kept (no regex over the value: blanks would make it quadratic). */
function withProgress(text: string, progress: string): string {
  const key = PROGRESS_KEY.exec(text)![0];
  const rest = text.slice(key.length);
  const hash = rest.search(/[ \t]#/);
  const value = hash >= 0 ? rest.slice(0, hash) : rest;
  const bare = trimBlanksEnd(value);
  const quote = /^["']/.exec(bare)?.[0] ?? '';
  return `${key}${quote}${progress}${quote}${value.slice(bare.length)}${hash >= 0 ? rest.slice(hash) : ''}`;
}

/**
 * Writes verification outcomes into an ISA the way the format keeps them: each verified
 * claim's checkbox (checked on PASS, cleared otherwise), the frontmatter's `progress: M/N`,
 * and one line per claim in `## Verification` (or `## Log`), replaced when the claim has
 * one, else added at the section's end (the section is added at the end of the file when
 * there is none). No other line changes, and each line keeps its own line ending.
 * `results` carry the ISA's ids (see isaResults); ids the ISA does not have are left out.
 */
export function writeIsaOutcomes(isa: IsaDocument | string, results: readonly Pick<CriterionResult, 'criterionId' | 'outcome' | 'evidence'>[], options: IsaWriteOptions): string {
  const doc = typeof isa === 'string' ? parseIsa(isa) : isa;
  const lines: SourceLine[] = doc.source.lines.map((l) => ({ ...l }));
  const eol = dominantEol(lines) || '\n';
  const claims = new Map(doc.claims.filter((c) => !c.tombstone).map((c) => [c.id, c]));
  const known = results.filter((r) => claims.has(r.criterionId));
  const outcome = new Map(known.map((r) => [r.criterionId, r.outcome]));
  for (const r of known) {
    const c = claims.get(r.criterionId)!;
    const line = lines[c.line]!;
    const was = line.text[c.checkColumn]!;
    const now = r.outcome === 'PASS' ? (was === ' ' ? 'x' : was) : ' ';
    line.text = line.text.slice(0, c.checkColumn) + now + line.text.slice(c.checkColumn + 1);
  }
  // Progress and Verification lines are replaced in place first; lines are added last, from the bottom, so indexes stay valid.
  const progress = isaProgress(doc, (c) => (outcome.has(c.id) ? outcome.get(c.id) === 'PASS' : c.checked));
  const additions: { at: number; texts: string[] }[] = [];
  const fm = doc.frontmatter;
  if (fm) {
    const k = lines.slice(fm.open + 1, fm.close).findIndex((l) => /^progress[ \t]*:/.test(l.text));
    if (k >= 0) {
      const line = lines[fm.open + 1 + k]!;
      line.text = withProgress(line.text, progress);
    } else additions.push({ at: fm.close, texts: [`progress: ${progress}`] });
  }
  const stub = (r: (typeof known)[number]) => `${r.outcome} — ${firstLine(r.evidence)} (${options.by ?? 'Ideal State'}, ${options.date})`;
  const section = doc.sections.find((s) => s.kind === 'verification');
  const missing: string[] = [];
  const done = new Set<string>();
  for (const r of known) {
    let replaced = false;
    if (section) {
      for (let i = section.line + 1; i < section.end && !replaced; i++) {
        if (!doc.structural[i]) continue;
        const m = /^([ \t]*[-*+][ \t]+)(?:\*\*)?([A-Za-z][A-Za-z0-9.-]*)(?:\*\*)?[ \t]*(?::|—|–)/.exec(lines[i]!.text);
        if (m && m[2] === r.criterionId && !done.has(`${i}`)) {
          lines[i]!.text = `${m[1]}${r.criterionId}: ${stub(r)}`;
          done.add(`${i}`);
          replaced = true;
        }
      }
    }
    if (!replaced) missing.push(`- ${r.criterionId}: ${stub(r)}`);
  }
  if (missing.length > 0) {
    if (section) {
      let last = section.line;
      for (let i = section.line + 1; i < section.end; i++) if (lines[i]!.text.trim() !== '') last = i;
      additions.push({ at: last + 1, texts: last === section.line ? ['', ...missing] : missing });
    } else {
      let end = lines.length;
      if (lines[end - 1]!.text === '' && end > 1) end--; // before the empty line a final newline leaves
      const blankBefore = end > 0 && lines[end - 1]!.text.trim() !== '';
      additions.push({ at: end, texts: [...(blankBefore ? [''] : []), '## Verification', '', ...missing] });
    }
  }
  for (const a of additions.sort((x, y) => y.at - x.at)) insertLines(lines, a.at, a.texts, eol);
  return joinLines({ bom: doc.source.bom, lines });
}

/** Inserts whole lines before index `at`; a line that had no ending (the last one) gets one, and the new last line none. */
function insertLines(lines: SourceLine[], at: number, texts: string[], eol: SourceLine['eol']): void {
  const added: SourceLine[] = texts.map((text) => ({ text, eol }));
  if (at >= lines.length) {
    const last = lines[lines.length - 1]!;
    if (last.eol === '') {
      last.eol = eol;
      added[added.length - 1]!.eol = '';
    }
    lines.push(...added);
    return;
  }
  if (at > 0 && lines[at - 1]!.eol === '') lines[at - 1]!.eol = eol;
  lines.splice(at, 0, ...added);
}

function firstLine(text: string): string {
  const l = (text.split(/\r\n|\n|\r/)[0] ?? '').trim();
  return l.length > 160 ? `${l.slice(0, 159)}…` : l;
}
