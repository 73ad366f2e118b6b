import * as path from 'node:path';
import type { GateOutcomeRecord, GateVerdictKind } from '../../model/gate-outcome';
import { newId } from '../../model/ids';
import { writePending } from '../../store/pending';
import { defaultCliStoreFile } from '../../store/store-paths';
import type { PrdCheck } from './verdict';

/** The store kind the gate's verdict is left under (folded by src/store/gate-outcomes.ts). */
const PENDING_GATE_OUTCOME = 'gate-outcome';

export interface GateOutcomeInput {
  workspace: string;
  /** `--store FILE`; undefined: the workspace's default store. */
  store?: string;
  host: string;
  event: string;
  session: string;
  verdict: GateVerdictKind;
  before: number;
  checks: readonly PrdCheck[];
  timedOut?: boolean;
  now: Date;
}

/**
 * Leaves the gate's verdict for the store's next writer (one small file, as the verification
 * report is left): the dashboard counts blocks and let-gos per host and TAMPERED criteria from
 * these. Never fails the stop: a record not written is a warning.
 */
export function leaveGateOutcome(input: GateOutcomeInput, warn: (line: string) => void): void {
  const record: GateOutcomeRecord = {
    id: newId('gate', input.now),
    at: input.now.toISOString(),
    host: input.host.slice(0, 64),
    event: input.event.slice(0, 64),
    session: input.session.slice(0, 64),
    verdict: input.verdict,
    before: input.before,
    prds: input.checks.slice(0, 100).map((c) => ({
      path: c.shown,
      tampered: [...new Set(c.changes.map((change) => change.id.slice(0, 256)))].slice(0, 1000),
    })),
    ...(input.timedOut ? { timedOut: true } : {}),
  };
  const storeFile = input.store ? path.resolve(input.store) : defaultCliStoreFile(input.workspace);
  try {
    writePending(storeFile, PENDING_GATE_OUTCOME, record, input.now);
  } catch (error) {
    warn(`warning: the gate's verdict was not left for ${storeFile}: ${(error as Error).message}`);
  }
}
