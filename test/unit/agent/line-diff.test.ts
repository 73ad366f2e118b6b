import * as assert from 'node:assert/strict';
import { diffSummary } from '../../../src/agent/tools';
import { diffTotals, lineDiff } from '../../../src/agent/line-diff';
import { applyTextChanges, lineHunks, textChanges } from '../../../src/prd/text-changes';

const GREET = "export function greet(name) {\n  return `Hello, ${name}!`;\n}\n";
const WITH_FAREWELL = `${GREET}\nexport function farewell(name) {\n  if (!name) throw new Error('name is required');\n  return \`Goodbye, \${name}!\`;\n}\n`;

describe('the line diff an approval shows', () => {
  it('counts every added line, also the ones the file already has elsewhere (a set diff hid the `}` and blank lines)', () => {
    const d = lineDiff('src/greet.js', GREET, WITH_FAREWELL);
    assert.equal(d.added, 5);
    assert.equal(d.removed, 0);
    const plus = d.text.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++'));
    assert.deepEqual(plus, ['+', '+export function farewell(name) {', "+  if (!name) throw new Error('name is required');", '+  return `Goodbye, ${name}!`;', '+}']);
    assert.match(d.text, /^--- src\/greet\.js\n\+\+\+ src\/greet\.js \(\+5 −0\)\n/);
    assert.deepEqual(diffTotals(d.text), { added: 5, removed: 0 });
  });

  it('shows a changed line as removed then added, in place, with context', () => {
    const d = lineDiff('a.txt', 'one\ntwo\nthree\nfour\nfive\nsix\n', 'one\ntwo\nTHREE\nfour\nfive\nsix\n');
    assert.equal(d.text.split('\n').slice(2).join('\n'), ' one\n two\n-three\n+THREE\n four\n five');
    assert.deepEqual([d.added, d.removed], [1, 1]);
  });

  it('a new file is all additions against /dev/null', () => {
    const d = lineDiff('hello.txt', undefined, 'Hello\nworld\n');
    assert.match(d.text, /^--- \/dev\/null\n\+\+\+ hello\.txt \(\+2 −0\)\n\+Hello\n\+world$/);
  });

  it('cut to fit, the totals still hold: the header carries them and the cut is said', () => {
    const after = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
    const d = lineDiff('big.txt', '', after);
    assert.equal(d.added, 200);
    assert.match(d.text, /… 120 more lines$/);
    assert.deepEqual(diffTotals(d.text), { added: 200, removed: 0 });
    assert.equal(diffSummary('big.txt', '', after), d.text, 'the agent\'s approval request uses it');
  });

  it('counts from the lines of a summary without totals (an older stored approval)', () => {
    assert.deepEqual(diffTotals('--- a\n+++ a\n-x\n+y\n+z'), { added: 2, removed: 1 });
  });
});

describe('one line diff: an approval\'s diff and a PRD\'s minimal edits align lines the same way', () => {
  const cases: [string, string][] = [
    ['a\nb\nc\nd\n', 'a\nB\nc\nD\ne\n'],
    ['keep\nx\ny\nkeep2\n', 'keep\ny\nx\nkeep2\n'],
    ['', 'new\nfile\n'],
    ['gone\nall\n', ''],
    [GREET, WITH_FAREWELL],
  ];
  for (const [before, after] of cases) {
    it(`${JSON.stringify(before).slice(0, 24)} → ${JSON.stringify(after).slice(0, 24)}`, () => {
      const lines = (t: string) => (t === '' ? [] : t.replace(/\n$/, '').split('\n'));
      const hunks = lineHunks(lines(before), lines(after));
      const d = lineDiff('f', before, after);
      assert.equal(d.removed, hunks.reduce((n, h) => n + h.a1 - h.a0, 0), 'removed lines are the hunks\' old lines');
      assert.equal(d.added, hunks.reduce((n, h) => n + h.b1 - h.b0, 0), 'added lines are the hunks\' new lines');
      const changes = textChanges(before, after);
      assert.equal(changes.length, hunks.length, 'one text change per hunk');
      assert.equal(applyTextChanges(before, changes), after);
    });
  }
});
