import { ModelLesson } from '../llm/lesson';
import { JsonTable, type RowReader, type StatementSink } from './json-table';

/**
 * What model servers refused (llm/adapt.ts), one row per provider, model and parameter, so
 * the next run does not send it again. A lesson of a local server is not one of OpenAI's:
 * the provider id is part of the key.
 */
export class ModelLessonRepository {
  readonly table: JsonTable<ModelLesson>;

  constructor(reader: RowReader, sink: StatementSink) {
    this.table = new JsonTable<ModelLesson>(
      {
        table: 'model_lessons',
        schema: ModelLesson,
        key: ['provider_id', 'model', 'param'],
        columns: { provider_id: (l) => l.providerId, model: (l) => l.model, param: (l) => l.param, at: (l) => l.at },
      },
      reader,
      sink,
    );
  }

  /** Every lesson, oldest first (the order they were learned in). */
  list(): ModelLesson[] {
    return this.table.where('', [], 'at, provider_id, model, param');
  }

  /** Keeps a lesson (validated, one durable commit); the same refusal learned again replaces the row. */
  add(lesson: ModelLesson): void {
    this.table.save(lesson);
  }
}
