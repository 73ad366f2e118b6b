import type { EffortLevel, IscDefinition, TemplateAntiCriterion, TemplateCriterion } from '../model';
import { renderCriterionLine } from './criterion-line';

export interface NewPrdInput {
  title: string;
  effort: EffortLevel;
  /** From the effort table in force; null means "until the budget runs out". */
  maxIterations: number | null;
  /** When the PRD is created; its date goes into the id, `created` and `updated`. */
  now: Date;
  /** The ISC template whose criteria the PRD starts with. */
  template?: IscDefinition;
  /** The request in full (a run's), when the title is only its first line; the Problem Space states it. */
  request?: string;
}

/**
 * The Problem Space of a new PRD: the request as the person wrote it, on one
 * line so nothing in it becomes a heading or a criterion; a template's description follows
 * as where the starting criteria came from.
 */
function problemSpace(input: NewPrdInput, title: string): string[] {
  const request = (input.request ?? title).replace(/\s*[\r\n]+\s*/g, ' ').trim().replace(/^(#|- \[|\d+\.\s)/, '\\$1');
  const t = input.template;
  return [request || title, ...(t ? ['', `Starting criteria from the ISC template ${t.artifactType}: ${t.description}`] : [])];
}

/** `Add dark mode!` → `add-dark-mode`; at most 48 characters, `prd` when nothing is left. */
export function prdSlug(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return slug || 'prd';
}

/** `YYYYMMDD` and `YYYY-MM-DD` of a date, in UTC so the id does not depend on the machine. */
function day(now: Date): { compact: string; iso: string } {
  const iso = now.toISOString().slice(0, 10);
  return { compact: iso.replace(/-/g, ''), iso };
}

/** `PRD-20261121-add-dark-mode`: the PRD's id and, with `.md`, its file name. */
export function newPrdId(title: string, now: Date): string {
  return `PRD-${day(now).compact}-${prdSlug(title)}`;
}

/** A new PRD in this product's format, ready for the user to fill in. */
export function newPrdText(input: NewPrdInput, id = newPrdId(input.title, input.now)): string {
  const { iso } = day(input.now);
  const title = input.title.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  const t = input.template;
  return [
    '---',
    'prd: true',
    `id: ${id}`,
    'status: DRAFT',
    `effort_level: ${input.effort}`,
    `created: ${iso}`,
    `updated: ${iso}`,
    'iteration: 0',
    input.maxIterations === null ? '# max_iterations: none, the run goes on until its budget is spent' : `max_iterations: ${input.maxIterations}`,
    '---',
    '',
    `# ${title}`,
    '',
    '## Problem Space',
    ...problemSpace(input, title),
    '',
    '## Key Files',
    '',
    '## Constraints',
    '',
    '## Decisions',
    '',
    '## Ideal State Criteria',
    ...(t ? byDomain(t.idealCriteria) : []),
    '',
    '## Anti-Criteria',
    ...(t ? t.antiCriteria.map(line) : []),
    '',
    '## LOG',
    '',
  ].join('\n');
}

function line(c: TemplateCriterion | TemplateAntiCriterion): string {
  return renderCriterionLine({ id: c.id, text: c.text, source: c.source, priority: c.priority, verify: c.verify });
}

/** Criteria under `### Domain` headings in the template's order; those without a domain first. */
function byDomain(criteria: readonly TemplateCriterion[]): string[] {
  const groups = new Map<string, TemplateCriterion[]>();
  for (const c of criteria) groups.set(c.domain ?? '', [...(groups.get(c.domain ?? '') ?? []), c]);
  const out = (groups.get('') ?? []).map(line);
  for (const [domain, list] of groups) {
    if (domain === '') continue;
    out.push('', `### ${domain.charAt(0).toUpperCase()}${domain.slice(1)}`, ...list.map(line));
  }
  return out;
}
