import type { AnyCriterion, CriterionResult, EffortLevel, EffortTable } from '../model';
import type { PrdDiagnostic } from '../prd/diagnostics';
import type { AuditorView, Coverage, VerifyHost, VerifySetResult } from '../verify/types';
import { verifyCriteria } from '../verify/verify-criteria';
import { CRITERION_TIMEOUT_MS } from './defaults';
import { preparePrd, type PreparedPrd } from './verify-prd';

/**
 * A verification put together once, the twin of `composeRun`: every surface that verifies
 * criteria (`ideal-state verify`, the stop gate, the MCP server's verify, Verify Criteria, the
 * Testing view, the ISC table's re-verify, a run's own verification and its loop) is an adapter
 * that fills these ports and calls it.
 *
 * - `source`: where the criteria come from — a PRD (read through its `PrdSource`: a file on disk,
 *   the open document in the editor, the copy the gate froze) that is prepared here, or stored
 *   criteria (a run's);
 * - `host`: the checks' adapters; its approver is who can be asked about commands (a terminal,
 *   a modal dialog, the run's policy, nobody), each through the one rule (src/verify/decide-commands.ts).
 *   For a PRD it may be built once the PRD is read (its run, its level and its noted denials say who
 *   is asked about what);
 * - `writeBack`: how outcomes go back into the PRD (an atomic file write, a workspace edit);
 * - `report`: where the report goes (the store, a pending record beside it, a run session);
 * - `progress`: the criteria as they start and each result as it comes.
 */
export type VerificationSource =
  | {
      readonly kind: 'prd';
      readonly from: PrdSource;
      /** The level to verify at (default: the PRD's own, else the table's default). */
      readonly effort?: EffortLevel;
      /**
       * Only these criteria, named as the file names them (an ISA's C1, ISC-2.1). `unknown`: what a
       * name the file does not have does — `refuse` (the command line names it back to the person),
       * or `skip` (the Testing view's items may be older than the document).
       */
      readonly only?: { readonly ids: readonly string[]; readonly unknown: 'refuse' | 'skip' };
    }
  | {
      readonly kind: 'criteria';
      readonly criteria: readonly AnyCriterion[];
      readonly level: EffortLevel;
      readonly criteriaVersion: number;
      /** How many verify at once (default: the level's parallel verifiers). */
      readonly parallelism?: number;
      /** For a CUSTOM criterion's judge: the one candidate whose work is judged, and earlier results. */
      readonly candidate?: AuditorView['candidate'];
      readonly earlierResults?: readonly CriterionResult[];
    };

/** Where a PRD comes from: a file on disk, the open document in the editor, the text the gate froze. */
export interface PrdSource {
  /** The name problems and warnings give it (as the person named the file, or workspace-relative). */
  readonly name: string;
  /** Its text as it is now, or why it cannot be read (with a located problem when the file itself is at fault: too large). */
  read(): Promise<PrdText>;
  /** Where what is said once about it goes (an effort name this workspace does not know); absent: nowhere. */
  warn?(message: string): void;
}

export type PrdText = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: string; readonly diagnostic?: PrdDiagnostic };

const REFUSED = 'verification-refused';

/**
 * A verification that does not start: the PRD cannot be read or has errors (`problems`, each at
 * its line), it names no such criterion, or the host cannot say who may run its commands. Nothing
 * was verified, written or reported; the message says what to do.
 */
export class VerificationRefusedError extends Error {
  override readonly name = 'VerificationRefusedError';
  readonly code = REFUSED;
  constructor(
    message: string,
    readonly problems?: readonly PrdDiagnostic[],
  ) {
    super(message);
  }
}

/** Recognised by its code: the editor loads this module from another bundle. */
export function isVerificationRefused(error: unknown): error is VerificationRefusedError {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === REFUSED;
}

/** What a verification wrote back and reported, for the report sink and the write-back to read. */
export interface VerifiedCriteria {
  readonly source: VerificationSource;
  /** The criteria verified (a PRD's as prepared, at its level; `only` applied). */
  readonly criteria: readonly AnyCriterion[];
  /** The PRD as it was read and prepared, and its text then (absent for stored criteria). */
  readonly prd?: { readonly prepared: PreparedPrd; readonly text: string };
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
  /** The checks' adapters; for a PRD, possibly built from it as read (it may refuse: VerificationRefusedError). */
  readonly host: VerifyHost | ((prd: { readonly prepared: PreparedPrd; readonly text: string }) => Promise<VerifyHost>);
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
  const { source, effortTable } = ports;
  const now = ports.now ?? new Date();
  const prd = source.kind === 'prd' ? await readAndPrepare(source, effortTable, now) : undefined;
  const host = typeof ports.host !== 'function' ? ports.host : prd ? await ports.host(prd) : undefined;
  if (!host) throw new Error('a host built from the PRD needs a PRD to verify');
  // A PRD verifies at its level's parallelism and its own criteria version; stored criteria at what their run says.
  const plan =
    source.kind === 'prd'
      ? { criteria: prd!.prepared.criteria, parallelism: effortTable.levels[prd!.prepared.level].parallelism, criteriaVersion: prd!.prepared.criteriaVersion }
      : {
          criteria: source.criteria,
          parallelism: source.parallelism ?? effortTable.levels[source.level].parallelism,
          criteriaVersion: source.criteriaVersion,
          ...(source.candidate ? { candidate: source.candidate } : {}),
          ...(source.earlierResults ? { earlierResults: [...source.earlierResults] } : {}),
        };
  const { criteria, ...how } = plan;
  ports.progress?.onStart?.(criteria);
  const onResult = ports.progress?.onResult;
  let set = await verifyCriteria([...criteria], host, {
    ...how,
    timeoutMs: ports.timeoutMs ?? CRITERION_TIMEOUT_MS,
    ...(ports.signal ? { signal: ports.signal } : {}),
    // The PRD's own text is not evidence that a criterion holds.
    ...(ports.prdPath ? { excludeFiles: [ports.prdPath] } : {}),
    ...(onResult ? { onResult } : {}),
  });
  if (ports.results) set = ports.results(set);
  const shown = prd ? prd.prepared.shown(set) : set;
  const verified: VerifiedCriteria = { source, criteria, ...(prd ? { prd } : {}), set, shown, effortTable, now };
  const write = ports.writeBack;
  const writeBack = write ? () => write.write(verified) : undefined;
  const written = writeBack && !write?.later ? await writeBack() : false;
  const report = ports.report ? await ports.report(verified) : undefined;
  return { ...verified, written, ...(writeBack && write?.later ? { writeBack } : {}), ...(ports.report ? { report: report as Report } : {}) };
}

/** The PRD read from its source and prepared: the one reading of a PRD for verification (src/app/verify-prd.ts). */
async function readAndPrepare(source: Extract<VerificationSource, { kind: 'prd' }>, effortTable: EffortTable, now: Date): Promise<{ prepared: PreparedPrd; text: string }> {
  const { from, only } = source;
  const read = await from.read();
  if (!read.ok) {
    if (read.diagnostic) throw new VerificationRefusedError(`${from.name} is not read`, [read.diagnostic]);
    throw new VerificationRefusedError(`cannot read ${from.name}: ${read.reason}`);
  }
  const skipping = only?.unknown === 'skip' ? { only: only.ids } : {};
  const prepared = preparePrd(read.text, { name: from.name, effortTable, now, ...(source.effort ? { effort: source.effort } : {}), ...skipping });
  if (!prepared.ok) throw new VerificationRefusedError(prepared.summary, prepared.problems);
  for (const w of prepared.warnings) from.warn?.(w);
  if (only?.unknown !== 'refuse') return { prepared, text: read.text };
  // Named as the file names them (an ISA's C1, ISC-2.1); the engine verifies its own ids.
  const { ids, unknown } = prepared.engineIds(only.ids);
  if (unknown.length > 0) throw new VerificationRefusedError(`${from.name} has no criterion ${unknown.join(', ')}; its criteria are ${prepared.ids.join(', ')}`);
  const wanted = new Set(ids);
  return { prepared: { ...prepared, criteria: prepared.criteria.filter((c) => wanted.has(c.id)) }, text: read.text };
}
