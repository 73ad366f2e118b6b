import { isMap, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { parseYamlBounded } from '../model/yaml-bounded';
import { diagnostic, rangeOn, type PrdDiagnostic } from './diagnostics';
import { PRD_LIMITS, sizeText } from './limits';
import type { SourceLine } from './lines';
import { frontmatterStart } from './frontmatter-start';

export { frontmatterStart };

/** The YAML between the opening and closing `---` of a PRD. */
export interface Frontmatter {
  /** 0-based line of the opening `---`: 0, or after the blank lines and HTML comments that come first. */
  readonly open: number;
  /** 0-based line of the closing `---` (or `...`). */
  readonly close: number;
  readonly document: Document.Parsed;
  readonly lineCounter: LineCounter;
  /** The mapping's plain values; empty when the YAML is broken or not a mapping. */
  readonly data: Record<string, unknown>;
  readonly ok: boolean;
}

const count = z.number().int().nonnegative();
const text = z.union([z.string(), z.number(), z.date()]);

/**
 * The fields a PRD's frontmatter may hold: this product's and PAI v2's. Other keys are kept as
 * they are; a known key with the wrong kind of value is a warning at its line.
 */
export const PrdFrontmatterFields = z.looseObject({
  prd: z.boolean(),
  id: text,
  status: z.string(),
  effort_level: z.string(),
  created: text,
  updated: text,
  iteration: count,
  max_iterations: count,
  run_id: z.string(),
  loop: z.string(),
  criteria_version: count,
  task: z.string(),
  slug: text,
  effort: z.string(),
  phase: z.string(),
  progress: z.string().regex(/^\d+\/\d+$/, 'progress looks like 3/8 (checked/total)'),
  mode: z.string(),
  started: text,
  // LifeOS ISA (ISAFormat v2.8+): the principal's goal, verbatim, and the opt-out from reopening on edit.
  principal_stated_goal: z.string().nullable(),
  frozen: z.boolean(),
}).partial();

const CLOSE = /^(?:---|\.\.\.)[ \t]*$/;

export function readFrontmatter(lines: readonly SourceLine[], diagnostics: PrdDiagnostic[]): Frontmatter | undefined {
  const open = frontmatterStart(lines);
  if (open < 0 || lines.length < open + 2) return undefined;
  let close = -1;
  for (let i = open + 1; i < lines.length; i++) {
    if (CLOSE.test(lines[i]!.text)) {
      close = i;
      break;
    }
  }
  if (close < 0) {
    diagnostics.push(
      diagnostic('error', 'frontmatter-unclosed', rangeOn(open, 0, 3), 'the frontmatter opened here is never closed; add a line "---" after its last field (the file is read as if it had no frontmatter)'),
    );
    return undefined;
  }
  // Joined with LF whatever the file uses: yaml does not take a lone CR as a line break, and
  // positions are reported as line and column, which do not depend on the line ending.
  const yamlText = lines.slice(open + 1, close).map((l) => l.text).join('\n');
  const lineCounter = new LineCounter();
  const limits = PRD_LIMITS.frontmatterYaml;
  if (yamlText.length > limits.maxChars) {
    const message = `the frontmatter is ${sizeText(yamlText.length)}, over the ${sizeText(limits.maxChars)} limit, and is not read; keep it to a few fields`;
    diagnostics.push(diagnostic('error', 'frontmatter-too-large', rangeOn(open, 0, 3), message));
    return { open, close, document: parseDocument(''), lineCounter, data: {}, ok: false };
  }
  const yaml = parseYamlBounded(yamlText, lineCounter, limits);
  const document = yaml.document ?? parseDocument('');
  // linePos is 1-based and counts from the YAML's first line, the line after the opening fence.
  const at = (offset: number) => {
    const p = lineCounter.linePos(offset);
    return { line: open + p.line, character: p.col - 1 };
  };
  for (const e of yaml.errors) {
    const rule = e.limit ? 'yaml-limit' : 'yaml-syntax';
    const advice = e.limit ? 'the frontmatter is not read' : 'fix the YAML (the rest of the PRD is read as usual)';
    diagnostics.push(diagnostic('error', rule, rangeOn(open + e.line, e.col - 1, e.col), `frontmatter YAML: ${e.message}; ${advice}`));
  }
  for (const w of yaml.warnings) diagnostics.push(diagnostic('warning', 'yaml-syntax', rangeOn(open + w.line, w.col - 1, w.col), `frontmatter YAML: ${w.message}`));
  const ok = yaml.errors.length === 0 && yaml.document !== undefined;
  let data: Record<string, unknown> = {};
  if (ok) {
    const js: unknown = yaml.value;
    if (js !== null && typeof js === 'object' && !Array.isArray(js)) data = js as Record<string, unknown>;
    else if (js !== null && js !== undefined) diagnostics.push(diagnostic('error', 'yaml-syntax', rangeOn(open + 1, 0), 'the frontmatter must be a list of "key: value" fields'));
    const checked = PrdFrontmatterFields.safeParse(data);
    if (!checked.success) {
      for (const issue of checked.error.issues) {
        const key = String(issue.path[0] ?? '');
        const p = at(keyOffset(document, key));
        diagnostics.push(diagnostic('warning', 'frontmatter-field', rangeOn(p.line, p.character, p.character + key.length), `frontmatter "${key}": ${issue.message}`));
      }
    }
  }
  return { open, close, document, lineCounter, data, ok };
}

function keyOffset(document: Document.Parsed, key: string): number {
  const pair = findPair(document, key);
  return (isScalar(pair?.key) && pair.key.range?.[0]) || 0;
}

export function findPair(document: Document, key: string) {
  if (!isMap(document.contents)) return undefined;
  return document.contents.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key);
}

/** Where a key of the frontmatter is written, for diagnostics about its value. */
export function keyRange(fm: Frontmatter, key: string) {
  const pair = findPair(fm.document, key);
  if (!pair || !isScalar(pair.key) || !pair.key.range) return undefined;
  const p = fm.lineCounter.linePos(pair.key.range[0]);
  return rangeOn(fm.open + p.line, p.col - 1, p.col - 1 + key.length);
}
