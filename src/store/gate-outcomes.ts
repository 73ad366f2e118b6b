import { GateOutcomeRecord } from '../model/gate-outcome';
import { JsonTable, type RowReader, type StatementSink } from './json-table';
import { registerPendingKind } from './pending';

/**
 * The done gate's verdicts, one row per agent stop. The gate answers its host from a one-shot
 * process and never opens the store: it leaves a pending record (src/store/pending.ts) that the
 * store's next writer folds in here.
 */
export function gateOutcomeTable(reader: RowReader, sink: StatementSink): JsonTable<GateOutcomeRecord> {
  return new JsonTable<GateOutcomeRecord>(
    { table: 'gate_outcomes', schema: GateOutcomeRecord, key: ['id'], columns: { id: (g) => g.id, at: (g) => g.at, host: (g) => g.host, verdict: (g) => g.verdict } },
    reader,
    sink,
  );
}

/** The kind of a gate verdict left for the store's next writer. */
export const PENDING_GATE_OUTCOME = 'gate-outcome';

registerPendingKind<{ gateOutcomes: JsonTable<GateOutcomeRecord> }>(PENDING_GATE_OUTCOME, (store, raw) => {
  // Validated by save: a record that is not one the gate wrote is reported, never stored.
  store.gateOutcomes.save(raw as GateOutcomeRecord);
});
