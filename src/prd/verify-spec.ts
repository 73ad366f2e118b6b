import type { VerificationMethod } from '../model';

/**
 * The `Verify: Type: argument` part of a criterion line, both ways. Types are read in any
 * case; they are written as the PRD format spells them (`CLI`, `Grep`, `Custom`, …).
 *
 * The fields a method has beyond its argument follow it as ` | name: value` options, named
 * as in the method's schema, so what a run writes into a PRD reads back as the same method
 * (a Grep that lost `expect: absent` would mean the opposite in CI):
 *
 *   Grep: console\.log | glob: src/** | expect: absent
 *   Grep: console\.log | glob: dist/** | ignored: include
 *   Read: package.json | contains: "license": "MIT"
 *   Static: no errors in src/** | command: npm run lint
 *
 * Only the names a type knows are options, and only after a blank: `a|glob:b` and
 * `a \| glob: b` stay one pattern.
 */
const SPELLING = {
  CLI: 'CLI',
  TEST: 'Test',
  TASK: 'Task',
  GREP: 'Grep',
  READ: 'Read',
  STATIC: 'Static',
  CUSTOM: 'Custom',
  BROWSER: 'Browser',
} as const satisfies Record<VerificationMethod['type'], string>;

export const VERIFY_TYPE_NAMES = Object.values(SPELLING);

/** The options each type reads after its argument; the rest of the types take none. */
const OPTIONS: Partial<Record<VerificationMethod['type'], readonly string[]>> = {
  GREP: ['glob', 'expect', 'ignored'],
  READ: ['contains', 'matches'],
  STATIC: ['command'],
};

export type VerifySpecResult =
  | { ok: true; method: VerificationMethod }
  | { ok: false; reason: 'unknown-type' | 'missing-argument' | 'bad-option'; message: string };

/** `type` and `argument` as written after `Verify:`; `criterionText` fills in what may default to it. */
export function parseVerifySpec(type: string, argument: string | undefined, criterionText: string): VerifySpecResult {
  const key = type.trim().toUpperCase() as VerificationMethod['type'];
  if (!(key in SPELLING)) {
    return {
      ok: false,
      reason: 'unknown-type',
      message: `unknown verification type "${type.trim()}"; use one of ${VERIFY_TYPE_NAMES.join(', ')}`,
    };
  }
  const split = splitOptions(key, argument ?? '');
  if (!split.ok) return split;
  const arg = split.main || undefined;
  const o = split.options;
  const needs = (what: string, example: string): VerifySpecResult => ({
    ok: false,
    reason: 'missing-argument',
    message: `Verify: ${SPELLING[key]} needs ${what}, e.g. "| Verify: ${SPELLING[key]}: ${example}"`,
  });
  switch (key) {
    case 'CLI':
      return arg ? { ok: true, method: { type: 'CLI', command: arg } } : needs('a command', 'npm test');
    case 'TEST':
      return arg ? { ok: true, method: { type: 'TEST', test: arg } } : needs('a test command or task name', 'npm test');
    case 'TASK':
      return arg ? { ok: true, method: { type: 'TASK', task: arg } } : needs('a workspace task name', 'build');
    case 'GREP': {
      if (!arg) return needs('a pattern', 'X-Request-Id');
      const expect = o.expect?.toLowerCase() ?? 'present';
      if (expect !== 'present' && expect !== 'absent') return { ok: false, reason: 'bad-option', message: `Verify: Grep's expect is "present" or "absent", not "${o.expect}"` };
      // Ignored files are skipped unless the Grep says otherwise; `skip` may be written for clarity.
      const ignored = o.ignored?.toLowerCase() ?? 'skip';
      if (ignored !== 'include' && ignored !== 'skip') return { ok: false, reason: 'bad-option', message: `Verify: Grep's ignored is "include" (search ignored files too) or "skip", not "${o.ignored}"` };
      return { ok: true, method: { type: 'GREP', pattern: arg, ...(o.glob ? { glob: o.glob } : {}), expect, ...(ignored === 'include' ? { ignored } : {}) } };
    }
    case 'READ':
      return arg ? { ok: true, method: { type: 'READ', path: arg, ...(o.contains ? { contains: o.contains } : {}), ...(o.matches ? { matches: o.matches } : {}) } } : needs('a file path', 'README.md');
    case 'STATIC':
      return { ok: true, method: { type: 'STATIC', check: arg ?? criterionText, ...(o.command ? { command: o.command } : {}) } };
    case 'CUSTOM':
      return { ok: true, method: { type: 'CUSTOM', description: arg ?? criterionText } };
    case 'BROWSER':
      return { ok: true, method: { type: 'BROWSER', scenario: arg ?? criterionText } };
  }
}

/** `Type: argument` and its options for a method; `Custom` alone when its description is the criterion's text. */
export function formatVerifySpec(method: VerificationMethod, criterionText: string): string {
  const name = SPELLING[method.type];
  const arg = argumentOf(method);
  const options = optionsOf(method);
  if ((method.type === 'CUSTOM' || method.type === 'BROWSER' || method.type === 'STATIC') && arg === criterionText && options.length === 0) return name;
  // A regex that happens to hold " | glob:" is written so it reads back as one regex.
  return `${name}: ${method.type === 'GREP' ? guardRegex(method.type, arg) : arg}${options.map(([k, v]) => ` | ${k}: ${k === 'matches' ? guardRegex(method.type, v) : v}`).join('')}`;
}

function argumentOf(method: VerificationMethod): string {
  switch (method.type) {
    case 'CLI':
      return method.command;
    case 'TEST':
      return method.test;
    case 'TASK':
      return method.task;
    case 'GREP':
      return method.pattern;
    case 'READ':
      return method.path;
    case 'STATIC':
      return method.check;
    case 'CUSTOM':
      return method.description;
    case 'BROWSER':
      return method.scenario;
  }
}

/** The options a method carries, in a fixed order; `expect: present` and `ignored: skip` are the defaults and not written. */
function optionsOf(method: VerificationMethod): [string, string][] {
  switch (method.type) {
    case 'GREP':
      return [
        ...(method.glob ? [['glob', method.glob] as [string, string]] : []),
        ...(method.expect === 'absent' ? [['expect', 'absent'] as [string, string]] : []),
        ...(method.ignored === 'include' ? [['ignored', 'include'] as [string, string]] : []),
      ];
    case 'READ':
      return [...(method.contains ? [['contains', method.contains] as [string, string]] : []), ...(method.matches ? [['matches', method.matches] as [string, string]] : [])];
    case 'STATIC':
      return method.command ? [['command', method.command]] : [];
    default:
      return [];
  }
}

const separator = (names: readonly string[], flags: string) => new RegExp(`([ \\t])\\|[ \\t]*(${names.join('|')})[ \\t]*:[ \\t]*`, flags);

/** The argument and the ` | name: value` options after it; a name given twice or with no value is a problem. */
function splitOptions(type: VerificationMethod['type'], argument: string): { ok: true; main: string; options: Record<string, string> } | { ok: false; reason: 'bad-option'; message: string } {
  const names = OPTIONS[type];
  if (!names) return { ok: true, main: argument.trim(), options: {} };
  const re = separator(names, 'gi');
  const found = [...argument.matchAll(re)];
  const options: Record<string, string> = {};
  for (let i = 0; i < found.length; i++) {
    const m = found[i]!;
    const name = m[2]!.toLowerCase();
    const value = argument.slice(m.index! + m[0].length, i + 1 < found.length ? found[i + 1]!.index : argument.length).trim();
    const bad = (message: string) => ({ ok: false as const, reason: 'bad-option' as const, message: `Verify: ${SPELLING[type]}: ${message}` });
    if (name in options) return bad(`"${name}" is given twice`);
    if (!value) return bad(`"| ${name}:" needs a value, e.g. ${example(name)}`);
    options[name] = value;
  }
  return { ok: true, main: (found.length > 0 ? argument.slice(0, found[0]!.index) : argument).trim(), options };
}

function example(name: string): string {
  return { glob: '"| glob: src/**"', expect: '"| expect: absent"', contains: '"| contains: MIT"', matches: '"| matches: ^v\\d+"', command: '"| command: npm run lint"', ignored: '"| ignored: include"' }[name] ?? `"| ${name}: …"`;
}

/** A blank before the `|` is what makes an option, so `[ ]|` keeps the same regex from reading as one. */
function guardRegex(type: VerificationMethod['type'], regex: string): string {
  const names = OPTIONS[type];
  return names ? regex.replace(separator(names, 'gi'), (all, blank: string) => `[${blank === '\t' ? '\\t' : ' '}]${all.slice(1)}`) : regex;
}
