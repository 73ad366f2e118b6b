/**
 * Cron expressions as GitHub Actions' `on.schedule` and a user crontab read them: five fields
 * (minute, hour, day of month, month, day of week), each `*`, a number, a range `a-b`, a step
 * `*\/n` or `a-b/n`, or a comma list of those; months and weekdays also by their three-letter
 * names (POSIX crontab, https://pubs.opengroup.org/onlinepubs/9699919799/utilities/crontab.html;
 * GitHub: https://docs.github.com/en/actions/writing-workflows/choosing-when-your-workflow-runs/events-that-trigger-workflows#schedule).
 * `@daily`-style shorthands are refused: GitHub does not take them.
 */

export interface CronField {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

export const CRON_FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] },
  // 7 is Sunday too, as in most crons.
  { name: 'day of week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

/** A cron expression read: each field's values (sorted, day of week 7 folded to 0) and whether it was `*`. */
export interface Cron {
  readonly text: string;
  readonly fields: readonly { readonly values: readonly number[]; readonly any: boolean }[];
}

export type CronResult = { ok: true; cron: Cron } | { ok: false; message: string };

const EXAMPLE = 'e.g. "0 3 * * 1" (03:00 UTC every Monday)';

/** Reads a five-field cron expression; a bad one comes back with which field and why. */
export function parseCron(text: string): CronResult {
  const trimmed = text.trim();
  if (trimmed.startsWith('@')) return { ok: false, message: `cron "${text}": shorthands such as ${trimmed.split(/\s/)[0]} are not taken (GitHub Actions needs five fields); ${EXAMPLE}` };
  const parts = trimmed.split(/\s+/).filter(Boolean);
  if (parts.length !== 5) return { ok: false, message: `cron "${text}" has ${parts.length} field${parts.length === 1 ? '' : 's'}; it needs 5 (minute hour day-of-month month day-of-week), ${EXAMPLE}` };
  const fields: { values: number[]; any: boolean }[] = [];
  for (let i = 0; i < 5; i++) {
    const field = CRON_FIELDS[i]!;
    const read = parseField(parts[i]!, field);
    if (typeof read === 'string') return { ok: false, message: `cron "${text}": the ${field.name} field "${parts[i]}" ${read}` };
    fields.push(read);
  }
  return { ok: true, cron: { text: parts.join(' '), fields } };
}

function parseField(text: string, field: CronField): { values: number[]; any: boolean } | string {
  const values = new Set<number>();
  const range = `${field.min}-${field.max}${field.names ? ` or ${field.names[0]}-${field.names[field.names.length - 1]}` : ''}`;
  for (const item of text.split(',')) {
    if (item === '') return 'has an empty list item';
    const [base, stepText, extra] = item.split('/');
    if (extra !== undefined) return `has more than one "/" in "${item}"`;
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) < 1) return `has a step "${stepText}" that is not a whole number of 1 or more`;
      step = Number(stepText);
    }
    let lo: number;
    let hi: number;
    if (base === '*') [lo, hi] = [field.min, field.name === 'day of week' ? 6 : field.max];
    else {
      const ends = base!.split('-');
      if (ends.length > 2) return `has a bad range "${base}"`;
      const nums = ends.map((e) => valueOf(e, field));
      if (nums.some((n) => n === undefined)) return `has "${base}", which is not a number in ${range}`;
      lo = nums[0]!;
      hi = nums.length === 2 ? nums[1]! : stepText !== undefined ? field.max : lo;
      if (lo > hi) return `has a range "${base}" that runs backwards`;
    }
    for (let v = lo; v <= hi; v += step) values.add(field.name === 'day of week' && v === 7 ? 0 : v);
  }
  return { values: [...values].sort((a, b) => a - b), any: text === '*' };
}

function valueOf(text: string, field: CronField): number | undefined {
  const byName = field.names?.indexOf(text.toUpperCase()) ?? -1;
  if (byName >= 0) return field.name === 'month' ? byName + 1 : byName;
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= field.min && n <= field.max ? n : undefined;
}
