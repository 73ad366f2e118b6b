import * as assert from 'node:assert/strict';
import { impliedRating, MIN_CONFIDENCE } from '../../../src/learning/implied-rating';
import { parseRatingText } from '../../../src/learning/rating-text';
import { formatFigures, RollingRatings, ratingFigures, rollingAverage, trend } from '../../../src/learning/stats';
import { scripted } from './learning-helpers';

describe('learning: rating text (PAI rule)', () => {
  const cases: [string, ReturnType<typeof parseRatingText>][] = [
    ['', { kind: 'empty' }],
    ['   ', { kind: 'empty' }],
    ['0', { kind: 'comment', comment: '0' }],
    ['1', { kind: 'explicit', rating: 1 }],
    ['10', { kind: 'explicit', rating: 10 }],
    ['11', { kind: 'comment', comment: '11' }],
    ['100', { kind: 'comment', comment: '100' }],
    ['10/10', { kind: 'explicit', rating: 10 }],
    ['7/10 solid', { kind: 'explicit', rating: 7, comment: 'solid' }],
    ['8 - great', { kind: 'explicit', rating: 8, comment: 'great' }],
    ['6: needs work', { kind: 'explicit', rating: 6, comment: 'needs work' }],
    ['9 nice job', { kind: 'explicit', rating: 9, comment: 'nice job' }],
    ['3-missed the tests', { kind: 'explicit', rating: 3, comment: 'missed the tests' }],
    ['3 files were wrong', { kind: 'comment', comment: '3 files were wrong' }],
    ['5.5', { kind: 'comment', comment: '5.5' }],
    ['great, thanks', { kind: 'comment', comment: 'great, thanks' }],
    ['  4 : meh  ', { kind: 'explicit', rating: 4, comment: 'meh' }],
  ];
  for (const [text, expected] of cases) {
    it(`reads ${JSON.stringify(text)} as ${expected.kind}${'rating' in expected ? ` ${expected.rating}` : ''}`, () => {
      assert.deepEqual(parseRatingText(text), expected);
    });
  }
});

describe('learning: implied rating from a comment', () => {
  it('keeps a comment as a comment when there is no model, and says why', async () => {
    const result = await impliedRating('this broke my build', 'STANDARD run', undefined);
    assert.equal(result.kind, 'comment-only');
    assert.match((result as { reason: string }).reason, /no model/);
  });

  it('takes the scripted model reading at or above 0.5 confidence', async () => {
    const model = scripted({ rating: 3, confidence: 0.8, summary: 'User is frustrated with the broken build' });
    assert.deepEqual(await impliedRating('this broke my build', 'STANDARD run', model), { kind: 'implied', rating: 3, confidence: 0.8, summary: 'User is frustrated with the broken build' });
  });

  it(`ignores a reading under ${MIN_CONFIDENCE} confidence`, async () => {
    const model = scripted({ rating: 9, confidence: 0.49, summary: 'Unclear' });
    const result = await impliedRating('hmm ok', 'run', model);
    assert.equal(result.kind, 'comment-only');
    assert.match((result as { reason: string }).reason, /0\.49/);
  });
});

describe('learning: rolling average and trend (seed 004 test table)', () => {
  it('no ratings: no average, trend →', () => {
    assert.equal(rollingAverage([]), undefined);
    assert.equal(trend([]), '→');
    assert.equal(formatFigures(ratingFigures([])), 'no ratings yet');
  });
  it('10 ratings averaging 7.5 give 7.5', () => {
    assert.equal(rollingAverage([7, 8, 7, 8, 7, 8, 7, 8, 7, 8]), 7.5);
  });
  it('averages only the last 10 and rounds to one decimal', () => {
    assert.equal(rollingAverage([1, 1, 1, 1, 1, 10, 10, 10, 10, 10, 10, 10, 10, 10, 9]), 9.9);
    assert.equal(rollingAverage([7, 8, 8]), 7.7);
  });
  it('improving ratings give ↑', () => assert.equal(trend([3, 4, 4, 5, 7, 8, 8, 9]), '↑'));
  it('declining ratings give ↓', () => assert.equal(trend([9, 9, 8, 8, 5, 4, 3, 3]), '↓'));
  it('stable ratings give →', () => assert.equal(trend([7, 7, 8, 7, 7, 8]), '→'));
  it('fewer than 3 ratings give → however far apart', () => {
    assert.equal(trend([1, 10]), '→');
    assert.equal(trend([10, 1]), '→');
  });
  it('needs more than half a point: exactly 0.5 is →, 0.6 is ↑', () => {
    assert.equal(trend([7, 7, 7.5, 7.5]), '→');
    assert.equal(trend([7, 7, 7.6, 7.6]), '↑');
  });
  it('with an odd count the middle rating belongs to the second half', () => {
    // first half [2], second half [2, 9]: 5.5 − 2 = 3.5 → ↑
    assert.equal(trend([2, 2, 9]), '↑');
  });
  it('formats the status bar figure with its trend', () => {
    assert.equal(formatFigures(ratingFigures([3, 4, 4, 5, 7, 8, 8, 9])), '6.0 ↑');
  });
});

describe('learning: 10,000 ratings', () => {
  it('kept up incrementally, gives the same figures as a full recompute at every step', () => {
    let seed = 42;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), 1 + (seed % 10));
    const all: number[] = [];
    const rolling = new RollingRatings();
    for (let i = 0; i < 10_000; i++) {
      const value = next();
      all.push(value);
      rolling.add(value);
      if (i % 997 === 0 || i === 9_999) assert.deepEqual(rolling.figures, ratingFigures(all.slice(-10), all.length), `after ${i + 1}`);
    }
    assert.equal(rolling.figures.count, 10_000);
    assert.equal(rolling.figures.rollingAverage, rollingAverage(all));
    assert.equal(rolling.figures.trend, trend(all));
  });
});
