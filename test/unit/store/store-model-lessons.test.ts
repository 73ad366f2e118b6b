import * as assert from 'node:assert/strict';
import { profileFor, shippedCatalogue, type ModelLesson } from '../../../src/llm/catalogue';
import { DurableDatabase } from '../../../src/store/durable-database';
import { StoreDataError } from '../../../src/store/errors';
import { MIGRATIONS } from '../../../src/store/migrations';
import { tempStoreFile, useStores } from './store-helpers';

const tempFile = () => tempStoreFile('lessons');

const temperature: ModelLesson = { model: 'gpt-5-mini', providerId: 'openai', param: 'temperature', message: "HTTP 400: Unsupported value: 'temperature'", at: '2026-05-01T10:00:00.000Z' };
const tools: ModelLesson = { model: 'gemma:2b', providerId: 'ollama', param: 'tools', message: 'HTTP 400: gemma:2b does not support tools', at: '2026-05-01T11:00:00.000Z' };

describe('model lessons in the store', () => {
  const openStore = useStores();

  it('keeps a lesson across reopening, and the next profile starts from it', async () => {
    const file = tempFile();
    const first = await openStore(file);
    first.modelLessons.add(temperature);
    first.modelLessons.add(tools);
    first.close();

    const again = await openStore(file);
    const lessons = again.modelLessons.list();
    assert.deepEqual(lessons, [temperature, tools]);
    const profile = profileFor(shippedCatalogue(), 'openai', 'gemma:2b', 'ollama', { local: true, lessons });
    assert.equal(profile.capabilities.tools, false, "the local server's refusal of tools holds in the next run");
    assert.equal(profile.knows('temperature'), false, "OpenAI's lesson about another model is not this one's");
  });

  it('keeps one row per provider, model and parameter', async () => {
    const store = await openStore(tempFile());
    store.modelLessons.add(temperature);
    store.modelLessons.add({ ...temperature, message: 'said again', at: '2026-05-02T00:00:00.000Z' });
    store.modelLessons.add({ ...temperature, providerId: 'azure' });
    assert.deepEqual(store.modelLessons.list().map((l) => [l.providerId, l.message]), [['azure', temperature.message], ['openai', 'said again']]);
  });

  it('validates a lesson before writing it, and when reading it back', async () => {
    const file = tempFile();
    const store = await openStore(file);
    assert.throws(() => store.modelLessons.add({ ...temperature, param: 'seed' as ModelLesson['param'] }));
    assert.deepEqual(store.modelLessons.list(), []);
    store.close();
    const raw = await DurableDatabase.open({ file, migrations: MIGRATIONS });
    raw.transact([{ sql: 'INSERT INTO model_lessons (provider_id, model, param, at, data) VALUES (?, ?, ?, ?, ?)', params: ['openai', 'm', 'top_p', 'x', '{"model":"m"}'] }]);
    raw.close();
    const reopened = await openStore(file);
    assert.throws(() => reopened.modelLessons.list(), (e: unknown) => e instanceof StoreDataError && /model_lessons/.test(e.message));
  });
});
