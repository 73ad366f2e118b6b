import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PathEscapeError } from '../../../src/agent/workspace';
import { NodeBudgetCutError } from '../../../src/algorithm/node-budget';
import { CancelledError, describeError, errorCode, isBudgetExceeded, isCancellation, isNodeBudgetCut } from '../../../src/model/errors';
import { BudgetExceededError, callCancelled, LlmConfigError, LlmProviderError, LlmTimeoutError, ScriptError, StructuredOutputError } from '../../../src/llm/errors';
import { PrdEditError } from '../../../src/prd/edit';
import { ReadOnlyStoreError, StoreDataError } from '../../../src/store/errors';
import { verificationCancelled } from '../../../src/verify/errors';
import { cancelled } from '../../../src/verify/verifiers/cancelled';
import { REPO_ROOT } from '../support/repo-root';

const ROOT = REPO_ROOT;

/** A platform abort as Node's own APIs raise it (timers/promises with an aborted signal). */
async function nodeAbortError(): Promise<unknown> {
  const controller = new AbortController();
  controller.abort();
  return sleep(10, undefined, { signal: controller.signal }).then(
    () => assert.fail('the aborted timer resolved'),
    (error: unknown) => error,
  );
}

describe('errors by code (src/model/errors.ts)', () => {
  it('recognises every cancellation, the product’s by code and the platform’s AbortError, and nothing else', async () => {
    const cancellations: unknown[] = [
      callCancelled('m'),
      verificationCancelled(1, 3),
      cancelled(),
      new CancelledError('the command was cancelled'),
      new DOMException('aborted', 'AbortError'),
      AbortSignal.abort().reason,
      await nodeAbortError(),
    ];
    for (const e of cancellations) assert.equal(isCancellation(e), true, describeError(e));
    // One cancellation error: every cancellation the product raises is a CancelledError.
    for (const e of cancellations.slice(0, 4)) assert.ok(e instanceof CancelledError, describeError(e));
    assert.deepEqual((verificationCancelled(1, 3) as CancelledError).progress, { finished: 1, total: 3 });
    const others: unknown[] = [
      new BudgetExceededError('m', 'run', 'tokens', 100, 90, 20),
      new NodeBudgetCutError('PLAN', 15_000),
      new LlmTimeoutError('m', 1000),
      new LlmProviderError('m', 'server', 'HTTP 500'),
      new TypeError('x'),
      // A name alone is not a cancellation: names do not survive a production bundle, so none is trusted.
      Object.assign(new Error('x'), { name: 'LlmCancelledError' }),
      Object.assign(new Error('x'), { name: 'VerifyCancelledError' }),
      undefined,
      'cancelled',
    ];
    for (const e of others) assert.equal(isCancellation(e), false, String(e));
  });

  it('tells a spent token or money cap and a phase’s wall-time cut apart from each other and from failures', () => {
    const budget = new BudgetExceededError('m', 'phase', 'usd', 1, 0.9, 0.2, 'EXECUTE');
    const cut = new NodeBudgetCutError('THINK', 20_000);
    assert.deepEqual([isBudgetExceeded(budget), isNodeBudgetCut(budget), isCancellation(budget)], [true, false, false]);
    assert.deepEqual([isBudgetExceeded(cut), isNodeBudgetCut(cut), isCancellation(cut)], [false, true, false]);
    for (const e of [new LlmProviderError('m', 'rate-limit', 'HTTP 429'), Object.assign(new Error('x'), { name: 'BudgetExceededError' }), Object.assign(new Error('x'), { name: 'NodeBudgetCutError' })]) {
      assert.deepEqual([isBudgetExceeded(e), isNodeBudgetCut(e)], [false, false], e.name);
    }
  });

  it('gives every error class of the product its own code', () => {
    const errors = [
      callCancelled('m'),
      new LlmTimeoutError('m', 1),
      new LlmProviderError('m', 'auth', 'HTTP 401'),
      new StructuredOutputError('m', 'plan', 2, []),
      new ScriptError('s.yaml', 3, 'used up'),
      new LlmConfigError('no model'),
      new BudgetExceededError('m', 'call', 'tokens', 1, 0, 2),
      new NodeBudgetCutError('PLAN', 1),
      new PathEscapeError('../x', 'outside'),
      new ReadOnlyStoreError('/s.sqlite', 'pid 1'),
      new StoreDataError('runs', 'run-1', 'bad'),
      new PrdEditError('no criterion'),
    ];
    const codes = errors.map((e) => errorCode(e));
    assert.deepEqual(codes, ['cancelled', 'timeout', 'provider', 'invalid-output', 'script', 'config', 'budget', 'node-budget-cut', 'path-escape', 'store-read-only', 'store-data', 'prd-edit']);
    // The names a person reads in a stack are literal strings, so a bundler cannot rename them either.
    assert.deepEqual(errors.map((e) => e.name), ['CancelledError', 'LlmTimeoutError', 'LlmProviderError', 'StructuredOutputError', 'ScriptError', 'LlmConfigError', 'BudgetExceededError', 'NodeBudgetCutError', 'PathEscapeError', 'ReadOnlyStoreError', 'StoreDataError', 'PrdEditError']);
  });

  it('describes an error by its code and first line, bounded, never by its class name', () => {
    assert.equal(describeError(new ScriptError('demo.yaml', 7, 'the script is used up')), 'script: demo.yaml step 7: the script is used up');
    assert.equal(describeError(new TypeError('memory store unreadable\nat line 2')), 'memory store unreadable');
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, open 'x'"), { code: 'ENOENT' });
    assert.equal(describeError(enoent), "ENOENT: no such file or directory, open 'x'");
    assert.equal(describeError({ code: 'cancelled' }), 'cancelled');
    assert.equal(describeError('plain text'), 'plain text');
    assert.equal(describeError(undefined), 'unknown error');
    const long = describeError(new Error('x'.repeat(5000)));
    assert.equal(long.length, 300);
    assert.ok(long.endsWith('…'));
  });

  it('keeps the source free of error matching by name: every error class has a code, no class name is compared or printed', () => {
    const files = (function walk(dir: string): string[] {
      return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
    })(path.join(ROOT, 'src'));
    const problems: string[] = [];
    for (const file of files) {
      const rel = path.relative(ROOT, file);
      const text = fs.readFileSync(file, 'utf8');
      text.split('\n').forEach((line, i) => {
        const at = `${rel}:${i + 1}`;
        if (/new\.target\.name|constructor\.name/.test(line)) problems.push(`${at}: a class name read at run time`);
        if (rel === path.join('src', 'model', 'errors.ts')) return;
        if (/name\s*[!=]==?\s*'\w*(Error|Cancel\w*)'|'\w*(Error|Cancel\w*)'\s*[!=]==?\s*\w+\.name|\.name\.(endsWith|startsWith)\('\w*(Error|Cancel)|\b(error|err)\.name\b|name:\s*'AbortError'/.test(line)) {
          problems.push(`${at}: an error recognised or described by its name (use src/model/errors.ts)`);
        }
        if (/\be\.name\b/.test(line) && /\$\{|log|message/.test(line)) problems.push(`${at}: an error's name in a message (use describeError)`);
      });
      // Every class derived from Error declares a code (a field, or a constructor parameter), or inherits LlmError's.
      for (const m of text.matchAll(/class (\w+) extends Error \{\s*\}/g)) problems.push(`${rel}: ${m[1]} has no code`);
      for (const m of text.matchAll(/class (\w+) extends (\w+) \{([\s\S]*?)\n\}/g)) {
        const [, name, base, body] = m as unknown as [string, string, string, string];
        if (base !== 'Error') continue;
        if (!/readonly code\b/.test(body!)) problems.push(`${rel}: ${name} has no code`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
