import type { VerificationMethod } from '../core/model';

/**
 * The `Verify: Type: argument` part of a criterion line, both ways. Types are read in any
 * case; they are written as the seed spells them (`CLI`, `Grep`, `Custom`, …).
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

export type VerifySpecResult =
  | { ok: true; method: VerificationMethod }
  | { ok: false; reason: 'unknown-type' | 'missing-argument'; message: string };

/** `type` and `argument` as written after `Verify:`; `criterionText` fills in what may default to it. */
export function parseVerifySpec(type: string, argument: string | undefined, criterionText: string): VerifySpecResult {
  const key = type.trim().toUpperCase() as VerificationMethod['type'];
  const arg = argument?.trim() || undefined;
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
    case 'GREP':
      return arg ? { ok: true, method: { type: 'GREP', pattern: arg, expect: 'present' } } : needs('a pattern', 'X-Request-Id');
    case 'READ':
      return arg ? { ok: true, method: { type: 'READ', path: arg } } : needs('a file path', 'README.md');
    case 'STATIC':
      return { ok: true, method: { type: 'STATIC', check: arg ?? criterionText } };
    case 'CUSTOM':
      return { ok: true, method: { type: 'CUSTOM', description: arg ?? criterionText } };
    case 'BROWSER':
      return { ok: true, method: { type: 'BROWSER', scenario: arg ?? criterionText } };
    default:
      return {
        ok: false,
        reason: 'unknown-type',
        message: `unknown verification type "${type.trim()}"; use one of ${VERIFY_TYPE_NAMES.join(', ')}`,
      };
  }
}

/** `Type: argument` for a method; `Custom` alone when its description is the criterion's text. */
export function formatVerifySpec(method: VerificationMethod, criterionText: string): string {
  const name = SPELLING[method.type];
  const arg = argumentOf(method);
  if ((method.type === 'CUSTOM' || method.type === 'BROWSER' || method.type === 'STATIC') && arg === criterionText) return name;
  return `${name}: ${arg}`;
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
