import * as assert from 'node:assert/strict';
import { loadEffortTable, resolveEffortLevel, shippedEffortTable } from '../../../src/model/effort-table';
import { EFFORT_LEVELS, EffortTable } from '../../../src/model';
import { parseYamlDataFile } from '../../../src/model/data-file';
import shippedEffortText from '../../../src/model/data/effort-levels.yaml';

describe('effort table', () => {
  it('the shipped table, parsed when the extension is built, is the file as a workspace override is read, and valid', () => {
    const read = parseYamlDataFile('effort-levels.yaml', shippedEffortText, EffortTable);
    assert.ok(read.ok, read.ok ? '' : read.problems.map((p) => p.message).join('; '));
    assert.deepEqual(shippedEffortTable(), read.value);
    assert.ok(EffortTable.safeParse(shippedEffortTable()).success);
  });

  it('ships the DESIGN §3 numbers for every level', () => {
    const t = shippedEffortTable();
    const row = (l: (typeof EFFORT_LEVELS)[number]) => {
      const s = t.levels[l];
      return [s.budgetSeconds, s.minCriteria, s.maxCriteria, s.maxIterations, s.parallelism, s.planMode, s.constraintExtraction];
    };
    assert.deepEqual(row('INSTANT'), [10, 0, 4, 1, 1, false, false]);
    assert.deepEqual(row('FAST'), [60, 4, 8, 1, 2, false, false]);
    assert.deepEqual(row('STANDARD'), [120, 4, 16, 2, 4, false, true]);
    assert.deepEqual(row('EXTENDED'), [480, 12, 40, 3, 8, true, true]);
    assert.deepEqual(row('ADVANCED'), [960, 24, 64, 5, 8, true, true]);
    assert.deepEqual(row('DEEP'), [1920, 40, 128, 8, 10, true, true]);
    assert.deepEqual(row('COMPREHENSIVE'), [7200, 64, 256, null, 10, true, true]);
    assert.equal(t.compressAtPercent, 150);
  });

  it('resolves TheAlgorithm aliases and names in any case', () => {
    const t = shippedEffortTable();
    const level = (name: string) => {
      const r = resolveEffortLevel(name, t);
      return r.ok ? r.level : r.message;
    };
    assert.equal(level('TRIVIAL'), 'INSTANT');
    assert.equal(level('quick'), 'FAST');
    assert.equal(level('Thorough'), 'EXTENDED');
    assert.equal(level('DETERMINED'), 'DEEP');
    assert.equal(level(' standard '), 'STANDARD');
    assert.match(level('HUGE'), /unknown effort level "HUGE"; use one of INSTANT, .*THOROUGH/);
  });

  it('applies a workspace override field by field', () => {
    const { table, problems } = loadEffortTable({
      file: '/ws/.ideal-state/effort-levels.yaml',
      text: 'version: 1\nlevels:\n  STANDARD:\n    budgetSeconds: 240\naliases:\n  NORMAL: STANDARD\n',
    });
    assert.deepEqual(problems, []);
    assert.equal(table.levels.STANDARD.budgetSeconds, 240);
    assert.equal(table.levels.STANDARD.maxIterations, 2, 'untouched fields keep shipped values');
    assert.equal(resolveEffortLevel('normal', table).ok, true);
  });

  it('reports a bad override with file, line and field, and keeps the shipped table', () => {
    const { table, problems } = loadEffortTable({
      file: '/ws/.ideal-state/effort-levels.yaml',
      text: 'version: 1\nlevels:\n  FAST:\n    budgetSeconds: -5\n',
    });
    assert.equal(table.levels.FAST.budgetSeconds, 60);
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.file, '/ws/.ideal-state/effort-levels.yaml');
    assert.equal(problems[0]!.line, 4);
    assert.equal(problems[0]!.field, 'levels.FAST.budgetSeconds');
  });

  it('reports broken YAML syntax with its line', () => {
    const { problems } = loadEffortTable({ file: 'e.yaml', text: 'version: 1\nlevels:\n  FAST: [unclosed\n' });
    assert.ok(problems.length >= 1);
    assert.ok(problems[0]!.line >= 3, JSON.stringify(problems));
  });

  it('rejects an override that leaves a level with min above max', () => {
    const { table, problems } = loadEffortTable({ file: 'e.yaml', text: 'version: 1\nlevels:\n  FAST:\n    minCriteria: 20\n' });
    assert.equal(table.levels.FAST.minCriteria, 4);
    assert.match(problems[0]!.message, /minCriteria must not exceed maxCriteria/);
  });
});
