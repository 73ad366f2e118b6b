import type { RunDelta } from '../../app/run-sessions';
import type { AnyCriterion, Run, RunEvent, VerificationReport } from '../../model';
import type { StoreHost } from '../store-host';

/** What a run's table is computed from: the run, its current criteria, its latest reports, its events. */
export interface TableInputs {
  run: Run;
  criteria: AnyCriterion[];
  /** Newest first, at most REPORTS_SHOWN. */
  reports: VerificationReport[];
  events: RunEvent[];
}

const REPORTS_SHOWN = 20;

/**
 * The inputs of each open table, read from the store once and then kept up to date from the
 * run's deltas: a step of a going run costs the table no store read. Any other write (an
 * edit, a re-verification, another process) makes the next refresh read the store again.
 */
export class TableInputCache {
  private readonly held = new Map<string, TableInputs>();

  constructor(private readonly stores: StoreHost) {}

  apply(delta: RunDelta): void {
    if (delta.kind === 'approvals') return; // read live from the pending approvals
    if (delta.kind === 'outside' && delta.runId === undefined) return this.held.clear();
    const inputs = this.held.get(delta.runId!);
    if (!inputs) return;
    if (delta.kind !== 'step') return void this.held.delete(delta.runId!);
    inputs.run = delta.run;
    if (delta.criteria) inputs.criteria = [...delta.criteria];
    if (delta.report) {
      const report = delta.report;
      inputs.reports = [report, ...inputs.reports.filter((r) => r.id !== report.id)].slice(0, REPORTS_SHOWN);
    }
    inputs.events.push(...delta.events);
  }

  forget(runId?: string): void {
    if (runId === undefined) this.held.clear();
    else this.held.delete(runId);
  }

  async get(runId: string): Promise<TableInputs | undefined> {
    const held = this.held.get(runId);
    if (held) return held;
    const store = await this.stores.get();
    const run = store.runs.get(runId);
    if (!run) return undefined;
    const inputs: TableInputs = {
      run,
      criteria: store.criteria.list(runId),
      reports: store.reports.where('run_id = ?', [runId], 'created_at DESC', REPORTS_SHOWN),
      events: store.events.where('run_id = ?', [runId]),
    };
    this.held.set(runId, inputs);
    return inputs;
  }
}
