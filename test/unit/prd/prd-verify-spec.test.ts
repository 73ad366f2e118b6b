import * as assert from 'node:assert/strict';
import { syncPrdText } from '../../../src/algorithm/prd-sync';
import { emptyMemo, type AlgorithmState } from '../../../src/model/algorithm-state';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { VerificationMethod, type AnyCriterion } from '../../../src/model';
import { applyEdits, formatVerifySpec, parsePrd, parseVerifySpec } from '../../../src/prd';
import { aCriterion, aRun } from '../support/builders';

const TEXT = 'No console logging remains in the sources';
const PRD = (line: string) => ['---', 'prd: true', '---', '# T', '', '## Ideal State Criteria', line, ''].join('\n');

/** The method written into a PRD line by setVerify, and the method read back from that line. */
function roundTrip(method: VerificationMethod): { line: string; back: VerificationMethod | undefined; errors: string[] } {
  const written = applyEdits(PRD(`- [ ] ISC-1: ${TEXT} | Verify: Custom`), [{ kind: 'setVerify', id: 'ISC-1', verify: method }]);
  const doc = parsePrd(written);
  return { line: written.split('\n')[6]!, back: doc.criteria[0]!.verify, errors: doc.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message) };
}

describe('prd: the Verify part keeps every field of a method (issue 15)', () => {
  it('writes a Grep glob and `expect: absent` and reads them back as the same method', () => {
    const method = VerificationMethod.parse({ type: 'GREP', pattern: 'console\\.log', glob: 'src/**/*.ts', expect: 'absent' });
    const r = roundTrip(method);
    assert.equal(r.line, `- [ ] ISC-1: ${TEXT} | Verify: Grep: console\\.log | glob: src/**/*.ts | expect: absent`);
    assert.deepEqual(r.back, method);
    assert.deepEqual(r.errors, []);
  });

  it('round-trips every field a method can carry, and writes the defaults as before', () => {
    const methods = [
      { type: 'GREP', pattern: 'X-Request-Id' },
      { type: 'GREP', pattern: 'TODO', glob: 'src/**' },
      { type: 'GREP', pattern: 'debugger', expect: 'absent' },
      { type: 'READ', path: 'package.json', contains: '"license": "MIT"' },
      { type: 'READ', path: 'CHANGELOG.md', matches: '^## v\\d+\\.\\d+' },
      { type: 'READ', path: 'a.txt', contains: 'x', matches: 'y|z' },
      { type: 'STATIC', check: 'no errors in src/**', command: 'npm run lint' },
      { type: 'STATIC', check: TEXT, command: 'npm run lint' },
      { type: 'CLI', command: 'npm test | tee out.log' },
      { type: 'CUSTOM', description: TEXT },
      // A regex that holds what an option looks like stays one regex (the same one, written as [ ]|).
      { type: 'GREP', pattern: 'a | glob: b', expect: 'absent' },
      { type: 'READ', path: 'x', matches: 'p | contains: q' },
    ].map((m) => VerificationMethod.parse(m));
    for (const m of methods.slice(0, 10)) {
      const r = roundTrip(m);
      assert.deepEqual(r.back, m, r.line);
      assert.deepEqual(r.errors, [], r.line);
    }
    // The guarded regexes come back as the equivalent spelling, which writes the same line again.
    for (const [m, regex] of [[methods[10]!, 'a[ ]| glob: b'], [methods[11]!, 'p[ ]| contains: q']] as const) {
      const r = roundTrip(m);
      assert.deepEqual(r.back, { ...m, ...(m.type === 'GREP' ? { pattern: regex } : { matches: regex }) }, r.line);
      assert.equal(formatVerifySpec(r.back!, TEXT), formatVerifySpec(m, TEXT));
    }
    assert.equal(formatVerifySpec(methods[0]!, TEXT), 'Grep: X-Request-Id', 'present is the default and not written');
    assert.equal(formatVerifySpec(methods[9]!, TEXT), 'Custom');
    assert.equal(formatVerifySpec(methods[10]!, TEXT), 'Grep: a[ ]| glob: b | expect: absent');
    assert.ok(new RegExp('a[ ]| glob: b').test(' glob: b') && new RegExp('a | glob: b').test(' glob: b'), 'the same alternation');
  });

  it('writes a Grep that searches ignored files too as `| ignored: include` and reads it back; `skip` is the default and not written', () => {
    const method = VerificationMethod.parse({ type: 'GREP', pattern: 'console\\.log', glob: 'dist/**', expect: 'absent', ignored: 'include' });
    const r = roundTrip(method);
    assert.equal(r.line, `- [ ] ISC-1: ${TEXT} | Verify: Grep: console\\.log | glob: dist/** | expect: absent | ignored: include`);
    assert.deepEqual(r.back, method);
    assert.deepEqual(r.errors, []);
    const skip = parseVerifySpec('Grep', 'x | ignored: Skip', TEXT);
    assert.deepEqual(skip.ok && skip.method, { type: 'GREP', pattern: 'x', expect: 'present' });
    assert.equal(formatVerifySpec(VerificationMethod.parse({ type: 'GREP', pattern: 'x' }), TEXT), 'Grep: x');
    const bad = parseVerifySpec('Grep', 'x | ignored: yes', TEXT);
    assert.equal(bad.ok ? 'read' : bad.message, 'Verify: Grep\'s ignored is "include" (search ignored files too) or "skip", not "yes"');
    // A regex that holds what the new option looks like stays one regex.
    const guarded = roundTrip(VerificationMethod.parse({ type: 'GREP', pattern: 'a | ignored: include' }));
    assert.equal(guarded.back?.type === 'GREP' && guarded.back.ignored, undefined, guarded.line);
  });

  it('reads patterns that hold pipes as they always were: only a blank, a pipe and a known name make an option', () => {
    const read = (type: string, arg: string) => {
      const r = parseVerifySpec(type, arg, TEXT);
      return r.ok ? r.method : r.message;
    };
    assert.deepEqual(read('Grep', 'a|b'), { type: 'GREP', pattern: 'a|b', expect: 'present' });
    assert.deepEqual(read('Grep', 'foo \\| glob: x'), { type: 'GREP', pattern: 'foo \\| glob: x', expect: 'present' });
    assert.deepEqual(read('Grep', 'a | b: c'), { type: 'GREP', pattern: 'a | b: c', expect: 'present' });
    assert.deepEqual(read('CLI', 'npm test | grep glob: x'), { type: 'CLI', command: 'npm test | grep glob: x' });
    assert.deepEqual(read('grep', 'x | EXPECT: Absent | Glob:  lib/ '), { type: 'GREP', pattern: 'x', glob: 'lib/', expect: 'absent' });
  });

  it('refuses an option it cannot read, as an error on the line, never as its default', () => {
    const doc = parsePrd(PRD(`- [ ] ISC-1: ${TEXT} | Verify: Grep: console\\.log | expect: absnt`));
    assert.equal(doc.criteria[0]!.verify, undefined, 'not read as "present"');
    const d = doc.diagnostics.filter((x) => x.rule === 'verify-option');
    assert.deepEqual(d.map((x) => [x.line, x.severity, x.message]), [[7, 'error', 'Verify: Grep\'s expect is "present" or "absent", not "absnt"']]);
    for (const [arg, message] of [
      ['x | glob: a | glob: b', 'Verify: Grep: "glob" is given twice'],
      ['x | glob:', 'Verify: Grep: "| glob:" needs a value, e.g. "| glob: src/**"'],
      [' | glob: src/**', 'Verify: Grep needs a pattern, e.g. "| Verify: Grep: X-Request-Id"'],
    ]) {
      const r = parseVerifySpec('Grep', arg, TEXT);
      assert.equal(r.ok ? JSON.stringify(r.method) : r.message, message);
    }
  });

  it('keeps a Grep glob and `expect: absent` through the run writing its PRD and a later sync', () => {
    const method = VerificationMethod.parse({ type: 'GREP', pattern: 'console\\.log', glob: 'src/**', expect: 'absent' });
    const c: AnyCriterion = aCriterion({ id: 'ISC-1', text: TEXT, verify: method });
    const state: AlgorithmState = { run: { ...aRun(), state: 'RUNNING', iteration: 1 }, criteria: [c], packets: [], candidates: [], decisions: [], memo: emptyMemo(), stepSeq: 0, eventSeq: 0 };
    const now = new Date('2026-11-02T09:00:00.000Z');
    const text = syncPrdText(undefined, state, shippedEffortTable(), now);
    assert.deepEqual(parsePrd(text).criteria[0]!.verify, method);
    // The method as the model gave it (another key order, `expect` before `glob`) is the same method: nothing to rewrite.
    const reordered = { ...state, criteria: [{ ...c, verify: { type: 'GREP', expect: 'absent', glob: 'src/**', pattern: 'console\\.log' } } as AnyCriterion] };
    assert.equal(syncPrdText(text, reordered, shippedEffortTable(), now), text);
  });
});
