import { confineGlob } from '../confine';
import { compileGlob } from '../glob';
import type { DiagnosticEntry } from '../types';
import { fail, pass, unknown, type MethodOf, type VerifierContext, type Verdict } from '../verdict';
import { runShell } from './cli';

/** "diagnostics: no errors in src/**" read as the severities that count and the files they are about. */
export interface StaticCheck {
  severities: DiagnosticEntry['severity'][];
  glob?: string;
  /** How the check is shown in evidence, singular ("error or warning"). */
  label: string;
}

const CHECK = /^\s*(?:diagnostics\s*:?\s*)?no\s+(errors?|warnings?|problems?|diagnostics?)(?:\s+(?:in|under)\s+(\S+))?\s*$/i;

export function parseStaticCheck(check: string): StaticCheck | undefined {
  const m = CHECK.exec(check);
  if (!m) return undefined;
  const kind = m[1]!.toLowerCase();
  const severities: DiagnosticEntry['severity'][] = kind.startsWith('error') ? ['error'] : kind.startsWith('warning') ? ['error', 'warning'] : ['error', 'warning', 'information', 'hint'];
  const label = kind.startsWith('error') ? 'error' : kind.startsWith('warning') ? 'error or warning' : 'diagnostic';
  return { severities, ...(m[2] ? { glob: m[2] } : {}), label };
}

/**
 * STATIC: the editor's diagnostics hold ("no errors in src/**"). Outside the editor there
 * are no diagnostics: with a `command` the command decides (exit 0), otherwise UNKNOWN.
 */
export async function verifyStatic(method: MethodOf<'STATIC'>, ctx: VerifierContext): Promise<Verdict> {
  const check = parseStaticCheck(method.check);
  if (!ctx.host.diagnostics || !check) {
    if (method.command) return runShell(method.command, undefined, ctx.timeoutMs, ctx);
    if (!check) return unknown('AMBIGUITY', `"${method.check}" is not a diagnostics check this verifier reads (e.g. "diagnostics: no errors in src/**")`, `The Static check of ${ctx.criterion.id} reads like "no errors in <glob>" or names a command`);
    return unknown('UNSUPPORTED_CLAIM', `the editor's diagnostics are not available here, and the criterion names no command to run instead`, `"${method.check}" is checked in VS Code, or by a command`);
  }
  if (check.glob) {
    const g = confineGlob(check.glob);
    if (!g.ok) return unknown('SCOPE_ERROR', `not checked: ${g.reason}`, `The Static glob of ${ctx.criterion.id} names files inside the workspace`);
  }
  const rule = check.glob ? compileGlob(check.glob) : undefined;
  const entries = (await ctx.host.diagnostics.collect(check.glob, ctx.signal)).filter((d) => check.severities.includes(d.severity) && (!rule || rule.regex.test(d.file)));
  const where = check.glob ? `files matching ${check.glob}` : 'the workspace';
  const sorted = [...entries].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  const locations = sorted.slice(0, 10).map((d) => ({ file: d.file, line: d.line }));
  const plural = (n: number) => `${n} ${check.label.replace(/(error|warning|diagnostic)/g, n === 1 ? '$1' : '$1s')}`;
  const extra = { actual: plural(entries.length), threshold: plural(0), locations, coverage: { workspace: true } };
  if (entries.length === 0) return pass(`no ${plural(0).slice(2)} in ${where}`, extra);
  const shown = sorted.slice(0, 10).map((d) => `${d.file}:${d.line}: ${d.severity}: ${d.message.split('\n')[0]}${d.source ? ` [${d.source}]` : ''}`);
  return fail('REQUIREMENT_COVERAGE', [`${plural(entries.length)} in ${where}`, ...shown, ...(entries.length > shown.length ? ['…'] : [])].join('\n'), `${where.charAt(0).toUpperCase()}${where.slice(1)} ${check.glob ? 'have' : 'has'} no ${plural(0).slice(2)}`, extra);
}
