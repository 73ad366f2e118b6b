import type { AnyCriterion, CriterionResult, EffortLevel, EffortTable } from '../model';
import type { Coverage, VerifyHost, VerifySetResult } from '../verify/types';
import { verifyCriteria } from '../verify/verify-criteria';
import { CRITERION_TIMEOUT_MS } from './defaults';
import { verifyPrepared, type PreparedPrd } from './verify-prd';

/**
 * A verification put together once, the twin of `composeRun`: every surface that verifies
 * criteria (`ideal-state verify`, the stop gate, the MCP server's verify, Verify Criteria, the
 * Testing view, the ISC table's re-verify) is an adapter that fills these ports and calls it.
 *
 * - `source`: where the criteria come from — a PRD read from a file or an open document and
 *   prepared (src/app/verify-prd.ts), or a run's stored criteria;
 * - `host`: the checks' adapters; its approver is who can be asked about commands (a terminal,
 *   a modal dialog, the run's policy, nobody), each through the one rule (decide-commands.ts);
 * - `writeBack`: how outcomes go back into the PRD (an atomic file write, a workspace edit);
 * - `report`: where the report goes (the store, a pending record beside it, a run session);
 * - `progress`: the criteria as they start and each result as it comes.
 */
export type VerificationSource =
  | { readonly kind: 'prd'; readonly prd: PreparedPrd; readonly text: string }
  | { readonly kind: 'criteria'; readonly criteria: readonly AnyCriterion[]; readonly level: EffortLevel; readonly criteriaVersion: number };

/** What a verification wrote back and reported, for the report sink and the write-back to read. */
export interface VerifiedCriteria {
  readonly source: VerificationSource;
  /** The engine's results, under the engine's ids (what the store keeps). */
  readonly set: VerifySetResult;
  /** The same results under the file's own ids (an ISA's C1), as written back and shown; the set itself for stored criteria. */
  readonly shown: VerifySetResult;
  readonly effortTable: EffortTable;
  readonly now: Date;
}

export interface VerificationWriteBack {
  /** Writes the outcomes into the PRD; true when written. */
  write(verified: VerifiedCriteria): Promise<boolean>;
  /** Nothing is written now: the outcome's `writeBack` does it once the caller knows its verdict (the gate). */
  readonly later?: boolean;
}

export interface VerificationPorts<Report = unknown> {
  readonly source: VerificationSource;
  readonly effortTable: EffortTable;
  readonly host: VerifyHost;
  /** Workspace-relative (forward slashes) when the PRD is inside the workspace: its own text is not evidence. */
  readonly prdPath?: string;
  /** Per criterion, unless its method names its own (default CRITERION_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly progress?: {
    readonly onStart?: (criteria: readonly AnyCriterion[]) => void;
    readonly onResult?: (result: CriterionResult, criterion: AnyCriterion, coverage: Coverage) => void;
  };
  /** What the results say as the user reads them (the gate's copy of the workspace named as the workspace). */
  readonly results?: (set: VerifySetResult) => VerifySetResult;
  readonly writeBack?: VerificationWriteBack;
  readonly report?: (verified: VerifiedCriteria) => Promise<Report>;
  readonly now?: Date;
}

export interface Verification<Report> extends VerifiedCriteria {
  readonly written: boolean;
  /** With `writeBack.later`: writes the outcomes when called; true when written. */
  readonly writeBack?: () => Promise<boolean>;
  /** What the report sink answered (absent: no sink). */
  readonly report?: Report;
}

/** With a report sink, what it answered is there. */
export function composeVerification<Report>(ports: VerificationPorts<Report> & { readonly report: (verified: VerifiedCriteria) => Promise<Report> }): Promise<Verification<Report> & { readonly report: Report }>;
export function composeVerification<Report = unknown>(ports: VerificationPorts<Report>): Promise<Verification<Report>>;
export async function composeVerification<Report = unknown>(ports: VerificationPorts<Report>): Promise<Verification<Report>> {
  const { source, effortTable, host } = ports;
  const now = ports.now ?? new Date();
  const criteria = source.kind === 'prd' ? source.prd.criteria : source.criteria;
  ports.progress?.onStart?.(criteria);
  const onResult = ports.progress?.onResult;
  const timeoutMs = ports.timeoutMs ?? CRITERION_TIMEOUT_MS;
  const run = { ...(ports.signal ? { signal: ports.signal } : {}), ...(onResult ? { onResult } : {}) };
  let set =
    source.kind === 'prd'
      ? await verifyPrepared(source.prd, { host, effortTable, timeoutMs, ...run, ...(ports.prdPath ? { prdPath: ports.prdPath } : {}) })
      : await verifyCriteria([...source.criteria], host, {
          parallelism: effortTable.levels[source.level].parallelism,
          timeoutMs,
          criteriaVersion: source.criteriaVersion,
          signal: ports.signal ?? new AbortController().signal,
          // The PRD's own text is not evidence that a criterion holds.
          ...(ports.prdPath ? { excludeFiles: [ports.prdPath] } : {}),
          ...(onResult ? { onResult } : {}),
        });
  if (ports.results) set = ports.results(set);
  const shown = source.kind === 'prd' ? source.prd.shown(set) : set;
  const verified: VerifiedCriteria = { source, set, shown, effortTable, now };
  const write = ports.writeBack;
  const writeBack = write ? () => write.write(verified) : undefined;
  const written = writeBack && !write?.later ? await writeBack() : false;
  const report = ports.report ? await ports.report(verified) : undefined;
  return { ...verified, written, ...(writeBack && write?.later ? { writeBack } : {}), ...(ports.report ? { report: report as Report } : {}) };
}
