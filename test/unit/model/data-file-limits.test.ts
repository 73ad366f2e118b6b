import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { formatProblem, parseYamlDataFile } from '../../../src/model/data-file';
import { loadEffortTable } from '../../../src/model/effort-table';
import { DATA_FILE_YAML_LIMITS } from '../../../src/model/yaml-bounded';

// Issue 15: every YAML data file (models, capabilities, roles, effort levels, trust records,
// verify commands, scripts) can come from a cloned repository. An alias bomb crashed the
// command line with one line and exit 1; deep nesting can crash V8 itself. Each is now a
// located problem, as a syntax error is.

const Anything = z.unknown();
const Fields = z.record(z.string(), z.unknown());

let bomb = 'a0: &a0 [x, x, x, x, x, x, x, x, x]';
for (let i = 1; i < 9; i++) bomb += `\na${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]`;

const problems = (text: string) => {
  const r = parseYamlDataFile('.ideal-state/x.yaml', text, Anything);
  assert.equal(r.ok, false, 'a problem, not a value');
  return r.ok ? [] : r.problems.map(formatProblem);
};

describe('data files: bounded YAML (issue 15)', () => {
  it('stops an alias bomb at its first alias', () => {
    assert.deepEqual(problems(bomb), ['.ideal-state/x.yaml:2:10: the aliases here expand to too many values (more than 100); write the values out or use fewer aliases']);
  });

  it('keeps ordinary aliases', () => {
    assert.deepEqual(parseYamlDataFile('x.yaml', 'base: &b { a: 1 }\nother: *b\n', Anything), { ok: true, value: { base: { a: 1 }, other: { a: 1 } } });
  });

  it('stops nesting deeper than 64 levels where it passes them: flow, block and compact sequences', () => {
    assert.deepEqual(problems(`list: ${'['.repeat(100_000)}`), ['.ideal-state/x.yaml:1:70: the YAML nests more than 64 levels deep here; flatten it']);
    const block = Array.from({ length: 300 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n');
    assert.deepEqual(problems(block), ['.ideal-state/x.yaml:65:129: the YAML nests more than 64 levels deep here; flatten it']);
    assert.deepEqual(problems(`${'- '.repeat(20_000)}x`), ['.ideal-state/x.yaml:1:129: the YAML nests more than 64 levels deep here; flatten it']);
  });

  it('reads nesting well within the limit', () => {
    const value = parseYamlDataFile('x.yaml', `a: ${'['.repeat(30)}1${']'.repeat(30)}\n`, Anything);
    assert.equal(value.ok, true);
  });

  it('refuses a file over the size limit at its first line', () => {
    const text = `k: "${'x'.repeat(DATA_FILE_YAML_LIMITS.maxChars)}"\n`;
    assert.deepEqual(problems(text), ['.ideal-state/x.yaml:1:1: the YAML is 2.1 MB, over the 2 MB limit']);
  });

  it('finds a duplicate key among 40,000 in linear time, where it is', () => {
    const text = [...Array.from({ length: 40_000 }, (_, i) => `k${i}: ${i}`), 'k123: again', ''].join('\n');
    const r = parseYamlDataFile('x.yaml', text, Fields);
    assert.deepEqual(r.ok ? [] : r.problems.map(formatProblem), ['x.yaml:40001:1: Map keys must be unique']);
  });

  it('a workspace effort table with an alias bomb is a located warning; the shipped table stays in force', () => {
    const loaded = loadEffortTable({ file: '.ideal-state/effort-levels.yaml', text: bomb });
    assert.ok(loaded.problems.length > 0);
    assert.match(formatProblem(loaded.problems[0]!), /^\.ideal-state\/effort-levels\.yaml:2:10: the aliases here expand/);
    assert.equal(loaded.table.levels.STANDARD.parallelism > 0, true);
  });
});
