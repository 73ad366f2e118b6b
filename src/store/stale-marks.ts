import { z } from 'zod';
import { JsonTable, type RowReader, type StatementSink } from './json-table';

/**
 * A criterion's PASS that a change made stale: which verdict (its report and time) and why.
 * Kept so the mark outlives the window (a reload, a restart): it holds as long as that
 * verdict is the criterion's newest; a newer verdict (re-verify, the next iteration) is
 * fresh and the mark no longer applies.
 */
export const StaleMark = z
  .object({
    runId: z.string().min(1),
    criterionId: z.string().min(1),
    /** The verdict the change made stale. */
    reportId: z.string().min(1),
    verdictAt: z.iso.datetime(),
    /** e.g. "src/greet.js changed". */
    why: z.string().min(1),
    at: z.iso.datetime(),
  })
  .strict();
export type StaleMark = z.infer<typeof StaleMark>;

/** Stale marks by run and criterion; one mark per criterion (a later mark replaces it). */
export class StaleMarkRepository {
  readonly table: JsonTable<StaleMark>;

  constructor(reader: RowReader, sink: StatementSink) {
    this.table = new JsonTable<StaleMark>(
      { table: 'stale_marks', schema: StaleMark, key: ['run_id', 'criterion_id'], columns: { run_id: (m) => m.runId, criterion_id: (m) => m.criterionId, at: (m) => m.at } },
      reader,
      sink,
    );
  }

  /** Keeps marks (validated, one durable commit). */
  mark(...marks: StaleMark[]): void {
    if (marks.length > 0) this.table.save(...marks);
  }

  list(runId: string): StaleMark[] {
    return this.table.where('run_id = ?', [runId], 'criterion_id');
  }

  /** Drops a criterion's mark (its verdict was given again). */
  clear(runId: string, criterionId: string): void {
    this.table.deleteWhere('run_id = ? AND criterion_id = ?', [runId, criterionId]);
  }
}
