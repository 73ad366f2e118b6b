import type { TableSnapshot } from '../../../webviews/isc-table/protocol';
import { engine } from '../engine';
import type { StoreHost } from '../store-host';
import type { TableInputCache } from './table-inputs';
import type { RunStaleness } from '../verify/run-staleness';
import { isFinished, tableSnapshot } from './snapshot';
import type { TableLocks } from './table-lock';
import type { TableSteering } from './table-steering';
import { probedOf } from './table-probes';

/** A run's table from its inputs (the store, kept up to date by the run's deltas), with a re-verification in progress laid over it. */
export async function loadTableSnapshot(stores: StoreHost, inputs: TableInputCache, steering: TableSteering, runId: string, staleness?: Pick<RunStaleness, 'staleIds'>, locks?: TableLocks): Promise<TableSnapshot | undefined> {
  const held = await inputs.get(runId);
  if (!held) return undefined;
  const store = await stores.get();
  const { run, events } = held;
  const live = steering.liveVerification(runId);
  const reports = [...held.reports];
  if (live && live.results.length > 0) {
    reports.unshift({ id: 'live', runId, iteration: run.iteration, criteriaVersion: run.criteriaVersion, results: live.results, passed: false, summary: '', createdAt: new Date().toISOString() });
  }
  const criteria = held.criteria.map((c) => (live?.active.has(c.id) ? { ...c, status: 'ACTIVE' as const } : c));
  const caps = engine().budgetFor(run.effort).run;
  const control = steering.control;
  // A going run's time as of now (the store has it as of its last step), waiting for a person apart.
  const time = control.time?.(runId);
  // The lock badge of the run's PRD (and, its criteria shown unlocked for the first time, the offer to lock them).
  const lock = locks ? await locks.state(run, criteria.length) : undefined;
  // Criteria whose check passed before any work (the PRD's "Probe" notes).
  const probed = await probedOf(run);
  return tableSnapshot({
    run,
    criteria,
    reports,
    events,
    caps,
    // PASSes whose evidence files changed since (fed by file saves and the watcher).
    ...(staleness ? { staleIds: staleness.staleIds(runId, criteria, reports.filter((r) => r.id !== 'live'), store.staleMarks.list(runId)) } : {}),
    approvals: control.approvals(runId),
    ...(time ? { live: time } : {}),
    ...(lock ? { lock } : {}),
    ...(probed.size > 0 ? { probedIds: probed } : {}),
    abilities: {
      verify: steering.canVerify() && !live && !store.readOnly,
      edit: !store.readOnly,
      cancel: control.canCancel(run),
      // A verification or a PRD saved outside a run never ran a step: nothing to resume.
      resume: control.canResume(run) && store.steps.count('run_id = ?', [runId]) > 0,
      rate: isFinished(run.state) && store.ratings.count('run_id = ?', [runId]) === 0,
    },
  });
}
