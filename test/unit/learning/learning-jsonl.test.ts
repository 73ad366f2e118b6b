import * as assert from 'node:assert/strict';
import { parseRatingsJsonl, parseReflectionsJsonl, ratingId } from '../../../src/learning/pai-jsonl';
import { LearningService } from '../../../src/learning/service';
import type { Store } from '../../../src/store/store';
import { openTempStore, storeFinishedRun } from './learning-helpers';

const PAI_RATINGS = [
  '{"timestamp":"2026-01-16T10:30:00Z","rating":8,"session_id":"abc123","type":"explicit","comment":"great work on the refactor"}',
  '{"timestamp":"2026-01-16T10:35:00Z","rating":9,"session_id":"abc123","type":"implicit","sentiment_summary":"User expressed strong satisfaction","confidence":0.9,"context":"bug fix completed"}',
  'this is not json',
  '{"timestamp":"2026-01-16T10:40:00Z","rating":3,"session_id":"abc123","type":"implicit","sentiment_summary":"User frustrated with incorrect output","confidence":0.85,"context":"code generation task"}',
  '',
  '{"timestamp":"2026-01-16T10:45:00Z","rating":11,"session_id":"abc123","type":"explicit"}',
  '{"timestamp":"2026-01-16T10:50:00Z","rating":5,"type":"explicit"}',
  '[1,2]',
  '{"timestamp":"2026-01-16T10:55:00-08:00","rating":6,"session_id":"def456","source":"implicit","confidence":0.7}',
].join('\n');

const PAI_REFLECTION =
  '{"timestamp":"2026-02-27T00:49:43Z","effort_level":"Standard","task_description":"Fix authentication bug in login flow","criteria_count":12,"criteria_passed":11,"criteria_failed":1,"prd_id":"PRD-20260227-auth-fix","implied_sentiment":7,"reflection_q1":"Should have invoked security review in THINK phase","reflection_q2":"Should have created test cases before implementation","reflection_q3":"Should have anticipated edge cases with token expiry","within_budget":true}';

describe('learning: PAI JSONL', () => {
  const open: Store[] = [];
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  async function service(): Promise<{ store: Store; learning: LearningService }> {
    const store = await openTempStore();
    open.push(store);
    return { store, learning: new LearningService(store, { version: 'test' }) };
  }

  it('reads seed 004 ratings, reporting each bad line by number and keeping the rest', () => {
    const { entries, problems } = parseRatingsJsonl(PAI_RATINGS);
    assert.deepEqual(
      entries.map((e) => [e.rating, e.type, e.sessionId]),
      [
        [8, 'explicit', 'abc123'],
        [9, 'implicit', 'abc123'],
        [3, 'implicit', 'abc123'],
        [6, 'implicit', 'def456'],
      ],
    );
    assert.deepEqual(
      problems.map((p) => p.line),
      [3, 6, 7, 8],
    );
    assert.match(problems[0]!.message, /not valid JSON/);
    assert.match(problems[1]!.message, /rating.*1 to 10/);
    assert.match(problems[2]!.message, /session_id/);
    assert.match(problems[3]!.message, /not a JSON object/);
    assert.equal(entries[3]!.timestamp, '2026-01-16T18:55:00.000Z', 'an offset timestamp is kept as the same instant in UTC');
    assert.equal(entries[1]!.sentimentSummary, 'User expressed strong satisfaction');
  });

  it('imports into the store, and a re-import adds nothing twice', async () => {
    const { store, learning } = await service();
    const first = learning.importRatings(PAI_RATINGS);
    assert.equal(first.added, 4);
    assert.equal(first.alreadyThere, 0);
    assert.equal(first.problems.length, 4);
    const second = learning.importRatings(PAI_RATINGS);
    assert.equal(second.added, 0);
    assert.equal(second.alreadyThere, 4);
    assert.equal(store.ratings.count(), 4);
  });

  it('exports in PAI field order and its own export re-imports as the same ratings', async () => {
    const { learning } = await service();
    learning.importRatings(PAI_RATINGS);
    const exported = learning.exportRatings();
    const lines = exported.trimEnd().split('\n');
    assert.equal(lines.length, 4);
    assert.deepEqual(Object.keys(JSON.parse(lines[1]!)), ['timestamp', 'rating', 'session_id', 'type', 'sentiment_summary', 'confidence', 'context']);
    assert.deepEqual(JSON.parse(lines[0]!), { timestamp: '2026-01-16T10:30:00.000Z', rating: 8, session_id: 'abc123', type: 'explicit', comment: 'great work on the refactor' });
    const other = await service();
    assert.equal(other.learning.importRatings(exported).added, 4);
    assert.equal(other.learning.exportRatings(), exported);
    assert.equal(other.learning.importRatings(exported).added, 0);
  });

  it('rates a stored run and exports that rating with its run id, which re-imports as the same rating', async () => {
    const { store, learning } = await service();
    const run = storeFinishedRun(store, { request: 'Add a CSV export button', criteria: [{ text: 'Export button downloads a CSV file of the table', outcome: 'PASS' }] });
    const result = await learning.rateRun(run.id, { rating: 8, text: 'nice' });
    assert.equal(result.rating!.id, ratingId(result.rating!.timestamp, run.id, 8));
    const line = JSON.parse(learning.exportRatings().trim());
    assert.equal(line.run_id, run.id);
    assert.equal(line.comment, 'nice');
    assert.equal(learning.importRatings(learning.exportRatings()).alreadyThere, 1);
    assert.equal(store.ratings.count(), 1);
  });

  it("reads PAI's algorithm-reflections.jsonl entry and writes it back in that layout", async () => {
    const { learning } = await service();
    const text = `${PAI_REFLECTION}\n{"timestamp":"2026-02-28T00:00:00Z","effort_level":"Hyper","reflection_q1":"x"}\n{"timestamp":"2026-02-28T00:00:00Z","effort_level":"Thorough","criteria_count":2,"reflection_q1":""}\n`;
    const result = learning.importReflections(text);
    assert.equal(result.added, 1);
    assert.deepEqual(
      result.problems.map((p) => p.line),
      [2, 3],
    );
    assert.match(result.problems[0]!.message, /Hyper.*not an effort level/);
    assert.match(result.problems[1]!.message, /reflection_q1/);
    const [stored] = learning.reflections();
    assert.equal(stored!.effortLevel, 'STANDARD');
    assert.equal(stored!.impliedSentiment, 7);
    assert.equal(stored!.author, 'imported');
    assert.equal(stored!.request, 'Fix authentication bug in login flow');
    const out = JSON.parse(learning.exportReflections().trim());
    const original = JSON.parse(PAI_REFLECTION);
    for (const key of Object.keys(original)) assert.deepEqual(out[key], key === 'timestamp' ? '2026-02-27T00:49:43.000Z' : original[key], key);
    assert.equal(learning.importReflections(text).added, 0, 're-import adds nothing');
    assert.equal(learning.importReflections(learning.exportReflections()).added, 0, 'our own export is the same reflection');
  });

  it('parses reflections with PAI field aliases (q1_self…) and the v0.6 effort aliases', () => {
    const { entries, problems } = parseReflectionsJsonl('{"timestamp":"2026-03-01T00:00:00Z","effort":"THOROUGH","q1_self":"a","q2_workflow":"b","q3_system":"c","criteria_count":3,"criteria_passed":3,"criteria_failed":0}', 'test');
    assert.deepEqual(problems, []);
    assert.equal(entries[0]!.effortLevel, 'EXTENDED');
    assert.equal(entries[0]!.q3System, 'c');
  });
});
