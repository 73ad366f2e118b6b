import { isCancellation } from '../model/errors';
import type { AnyCriterion } from '../model/criterion';
import type { Outcome } from '../model/outcome';
import type { Redacted } from '../model/redaction';
import { CriterionResult } from '../model/report';
import { monotonicMs } from './clock';
import { commandOf, commandsOf } from './commands';
import { evidenceRedactor } from './secret-env';
import { verificationCancelled } from './errors';
import type { CommandApproval, CommandDecisions, VerifyHost, VerifyOptions, VerifySetResult } from './types';
import { unknown, WHOLE_WORKSPACE, type Coverage, type VerifierContext, type Verdict } from './verdict';
import { verifyCli } from './verifiers/cli';
import { verifyGrep } from './verifiers/grep';
import { verifyBrowser, verifyCustom, type AuditorContext } from './verifiers/judged';
import { verifyRead } from './verifiers/read';
import { verifyStatic } from './verifiers/static';
import { verifyTask, verifyTest } from './verifiers/task';

/**
 * Verifies a set of criteria: at most `parallelism` at once, each within its timeout.
 *
 * - Commands: the host's approver is asked once, with every command of the set, before
 *   any runs; the criteria whose command it refuses (all, or those outside its `only`) are
 *   UNKNOWN with its reason (the others still run), and the result says which commands ran
 *   and which did not. Without an approver the host has already decided (e.g. `--yes`).
 * - Cancellation: when `signal` aborts, running commands are killed, criteria not yet
 *   started are not started, and a CancelledError is thrown (results that finished
 *   were already given to `onResult`). It is never reported as a FAIL.
 * - A criterion without a verification method is UNKNOWN; a verifier that throws gives
 *   UNKNOWN (EXECUTION_ERROR), never an exception out of here.
 * - Fail-closed: `passed` is false when any CRITICAL criterion is not PASS.
 */
export async function verifyCriteria(criteria: AnyCriterion[], host: VerifyHost, options: VerifyOptions): Promise<VerifySetResult> {
  const parent = options.signal ?? new AbortController().signal;
  const total = criteria.length;
  const cancel = () => verificationCancelled(finished, total);
  let finished = 0;
  if (parent.aborted) throw cancel();

  const approval = await approve(criteria, host, parent);
  if (parent.aborted) throw cancel();
  const refusedBy = new Map(approval.refused.map((r) => [r.command, r.reason]));

  const results: (CriterionResult | undefined)[] = new Array(total);
  const coverage: Record<string, Coverage> = {};
  const auditor: AuditorContext = { criteriaVersion: options.criteriaVersion ?? 0, ...(options.candidate ? { candidate: options.candidate } : {}), earlierResults: options.earlierResults ?? [] };
  const parallelism = Number.isFinite(options.parallelism) && options.parallelism >= 1 ? Math.floor(options.parallelism) : 1;
  const order = startOrder(criteria, host, parallelism);
  const concurrent = Math.max(1, Math.min(parallelism, total));
  // The set's evidence is redacted against the environment as it was when the set began.
  const redact = evidenceRedactor();
  let next = 0;
  const worker = async () => {
    while (next < total && !parent.aborted) {
      const i = order[next++]!;
      const criterion = criteria[i]!;
      const command = commandOf(criterion, host);
      const reason = command === undefined ? undefined : refusedBy.get(command);
      const { result, covered } = await verifyOne(criterion, host, options, parent, reason === undefined ? { approved: true } : { approved: false, reason }, { auditor, concurrent, redact });
      if (parent.aborted) return;
      results[i] = result;
      coverage[criterion.id] = covered;
      finished++;
      options.onResult?.(result, criterion, covered);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelism, Math.max(total, 1)) }, worker));
  if (parent.aborted) throw cancel();
  return { ...summarize(criteria, results as CriterionResult[], coverage), ...(approval.approved.length + approval.refused.length > 0 ? { commands: approval } : {}) };
}

/**
 * The order criteria start in, when they cannot all start at once: those that run a command
 * (a process, usually the slowest checks) first, then the rest, each group in set order. The
 * longest jobs first keep the set's wall time near its slowest check (a Grep or Read started
 * last still ends before a command started first). Results keep the set's order.
 */
export function startOrder(criteria: readonly AnyCriterion[], host: Pick<VerifyHost, 'diagnostics'>, parallelism: number): number[] {
  const all = criteria.map((_, i) => i);
  if (parallelism <= 1 || criteria.length <= parallelism) return all;
  const runs = (i: number) => commandOf(criteria[i]!, host) !== undefined;
  return [...all.filter(runs), ...all.filter((i) => !runs(i))];
}

/** Each command of the set, approved or refused with why; `only` approves just the commands it names. */
async function approve(criteria: readonly AnyCriterion[], host: VerifyHost, signal: AbortSignal): Promise<CommandDecisions> {
  const commands = commandsOf(criteria, host);
  if (commands.length === 0 || !host.approver) return { approved: commands, refused: [] };
  let answer: CommandApproval;
  try {
    answer = await host.approver.approve(commands, signal);
  } catch (error) {
    answer = { approved: false, reason: `approval could not be asked (${error instanceof Error ? error.message : String(error)})` };
  }
  const reason = answer.reason ?? 'the commands of this PRD were not approved';
  const ok = (c: string) => answer.approved && (answer.only === undefined || answer.only.includes(c));
  return { approved: commands.filter(ok), refused: commands.filter((c) => !ok(c)).map((command) => ({ command, reason: answer.reasons?.[command] ?? reason })) };
}

/** Extra time the engine gives a verifier past its own timeout before it gives up on it. */
const ENGINE_GRACE_MS = 5000;
/** The longest a method may ask for by its own `timeoutMs` (a model wrote 3068515762312072 ms, which Node turns into 1 ms). */
export const MAX_METHOD_TIMEOUT_MS = 60 * 60_000;
/** setTimeout's largest delay; anything above it fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1 - ENGINE_GRACE_MS;

/** A method's own timeout within the product's bound (the run's own, when that is longer), else the run's; always a delay a timer can hold. */
export function boundedTimeout(own: number | undefined, run: number): number {
  const runs = Number.isFinite(run) && run > 0 ? Math.min(run, MAX_TIMER_MS) : MAX_METHOD_TIMEOUT_MS;
  if (own === undefined || !Number.isFinite(own) || own <= 0) return runs;
  return Math.min(own, Math.max(runs, MAX_METHOD_TIMEOUT_MS), MAX_TIMER_MS);
}

async function verifyOne(
  criterion: AnyCriterion,
  host: VerifyHost,
  options: VerifyOptions,
  parent: AbortSignal,
  commandsApproved: VerifierContext['commandsApproved'],
  set: { auditor: AuditorContext; concurrent: number; redact: (text: string) => Redacted },
): Promise<{ result: CriterionResult; covered: Coverage }> {
  const started = monotonicMs();
  const method = criterion.verify;
  const timeoutMs = boundedTimeout(method && 'timeoutMs' in method ? method.timeoutMs : undefined, options.timeoutMs);
  // The verifiers read the method's own timeout; they get the bounded one (a model may write any number there).
  if (method && 'timeoutMs' in method && method.timeoutMs !== undefined && method.timeoutMs !== timeoutMs) criterion = { ...criterion, verify: { ...method, timeoutMs } } as AnyCriterion;
  const own = new AbortController();
  const onParentAbort = () => own.abort(parent.reason);
  parent.addEventListener('abort', onParentAbort, { once: true });
  // A judge or browser runner has no timeout of its own: the engine's is the only one.
  const grace = method?.type === 'CUSTOM' || method?.type === 'BROWSER' ? 0 : ENGINE_GRACE_MS;
  let timer: NodeJS.Timeout | undefined;
  const ctx: VerifierContext = { host, criterion, signal: own.signal, timeoutMs, excludeFiles: options.excludeFiles ?? [], commandsApproved, concurrent: set.concurrent };
  let verdict: Verdict;
  try {
    const limit = new Promise<Verdict>((resolve) => {
      timer = setTimeout(() => {
        own.abort();
        resolve(unknown('EXECUTION_ERROR', `the verifier did not finish within ${((timeoutMs + grace) / 1000).toFixed(1)} s`, `${criterion.id} can be verified within ${(timeoutMs / 1000).toFixed(0)} s`));
      }, timeoutMs + grace);
    });
    verdict = await Promise.race([dispatch(ctx, set.auditor), limit]);
  } catch (error) {
    if (isCancellation(error) || parent.aborted) {
      verdict = unknown('EXECUTION_ERROR', 'cancelled', 'verification runs to the end');
    } else {
      verdict = unknown('EXECUTION_ERROR', `the ${method?.type ?? ''} verifier failed: ${error instanceof Error ? error.message : String(error)}`, `${criterion.id} can be verified`);
    }
  } finally {
    clearTimeout(timer);
    parent.removeEventListener('abort', onParentAbort);
  }
  return { result: toResult(criterion.id, verdict, monotonicMs() - started, set.redact), covered: verdict.coverage };
}

function dispatch(ctx: VerifierContext, auditor: AuditorContext): Promise<Verdict> {
  const m = ctx.criterion.verify;
  switch (m?.type) {
    case undefined:
      return Promise.resolve(unknown('AMBIGUITY', 'this criterion names no verification method', `${ctx.criterion.id} names how it is verified ("| Verify: Type: argument")`));
    case 'CLI':
      return verifyCli(m, ctx);
    case 'TASK':
      return verifyTask(m, ctx);
    case 'TEST':
      return verifyTest(m, ctx);
    case 'GREP':
      return verifyGrep(m, ctx);
    case 'READ':
      return verifyRead(m, ctx);
    case 'STATIC':
      return verifyStatic(m, ctx);
    case 'CUSTOM':
      return verifyCustom(m, ctx, auditor);
    case 'BROWSER':
      return verifyBrowser(m, ctx);
  }
}

function toResult(criterionId: string, verdict: Verdict, durationMs: number, redact: (text: string) => Redacted): CriterionResult {
  const { coverage: _coverage, locations, ...raw } = verdict;
  // The one place every result's texts pass: whatever consumes it (store, PRD, reports, the
  // gate's reason, MCP answers) gets them without the credentials this process holds.
  const { rest, count } = redactVerdict(raw, redact);
  const parsed = CriterionResult.safeParse({ criterionId, ...rest, durationMs: Math.round(durationMs), locations: locations ?? [], ...(count > 0 ? { redactions: count } : {}) });
  if (parsed.success) return parsed.data;
  // A verifier bug must still give an honest answer, not an exception.
  return CriterionResult.parse({
    criterionId,
    outcome: 'UNKNOWN',
    evidence: `the verifier gave a result that does not fit the report schema: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    durationMs: Math.round(durationMs),
    failureLabel: 'EXECUTION_ERROR',
    repairTarget: `${criterionId} can be verified`,
    locations: [],
  });
}

/** The verdict's free texts, redacted (secret-env.ts), with how many credentials were taken out. */
function redactVerdict<T extends Omit<Verdict, 'coverage' | 'locations'>>(verdict: T, redact: (text: string) => Redacted): { rest: T; count: number } {
  let count = (verdict as { redactions?: number }).redactions ?? 0;
  const { redactions: _r, ...rest } = verdict as T & { redactions?: number };
  const out = { ...rest } as T;
  for (const key of ['evidence', 'actual', 'threshold', 'repairTarget'] as const) {
    const value = out[key];
    if (typeof value !== 'string') continue;
    const r = redact(value);
    count += r.count;
    (out as Record<string, unknown>)[key] = r.text;
  }
  return { rest: out, count };
}

const OUTCOMES: readonly Outcome[] = ['PASS', 'FAIL', 'PARTIAL', 'UNKNOWN'];

/** Counts, the fail-closed verdict and a one-line summary of a finished set. */
export function summarize(criteria: readonly AnyCriterion[], results: CriterionResult[], coverage: Record<string, Coverage> = {}): VerifySetResult {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const r of results) counts[r.outcome]++;
  const byId = new Map(results.map((r) => [r.criterionId, r]));
  const blocking = criteria.filter((c) => c.priority === 'CRITICAL' && byId.get(c.id)?.outcome !== 'PASS').map((c) => c.id);
  const others = OUTCOMES.filter((o) => o !== 'PASS' && counts[o] > 0).map((o) => `${counts[o]} ${o}`);
  // An empty set proves nothing: never "PASSED: 0 of 0" (the one rule, src/model/verdict.ts: at least one criterion).
  const summary =
    criteria.length === 0 && results.length === 0
      ? 'no criteria to verify'
      : `${counts.PASS} of ${results.length} criteria pass${others.length > 0 ? ` (${others.join(', ')})` : ''}` +
    (blocking.length > 0 ? `; not passing CRITICAL: ${blocking.join(', ')}` : results.length > 0 && counts.PASS < results.length ? '; every CRITICAL criterion passes' : '');
  for (const c of criteria) coverage[c.id] ??= WHOLE_WORKSPACE;
  const redactions = results.reduce((n, r) => n + (r.redactions ?? 0), 0);
  return { results, passed: criteria.length > 0 && blocking.length === 0, summary, counts, coverage, ...(redactions > 0 ? { redactions } : {}) };
}
