import type { Protocol } from '../shared/protocol';

/** A cell of the matrix: the artifact's latest outcome on one criterion (UNKNOWN until it is verified). */
export type MatrixOutcome = 'PASS' | 'FAIL' | 'PARTIAL' | 'UNKNOWN';
export const MATRIX_OUTCOMES: readonly MatrixOutcome[] = ['PASS', 'FAIL', 'PARTIAL', 'UNKNOWN'];

/** One artifact (a file) of the loop: a row. Every string is untrusted text. */
export interface MatrixArtifact {
  file: string;
  /** The loop's word for where the artifact is (PENDING, WORKING, PASS, FAIL, REJECTED, …). */
  status: string;
  /** Its sub-run, once it has one: "Open run" opens that run's own ISC table. */
  runId?: string;
  /** Outcome by criterion id; a criterion left out is UNKNOWN. */
  outcomes: Record<string, MatrixOutcome>;
  passing: boolean;
}

/** The line over the matrix: "N/M artifacts passing · iteration k · budget". */
export interface MatrixHeader {
  loopId: string;
  /** The ISC template and glob the loop was started with, when known. */
  title: string;
  state: string;
  finished: boolean;
  passing: number;
  total: number;
  iteration: number;
  maxIterations?: number;
  /** Share of the loop's budget used, 0–100 (more when it ran over). */
  budgetPercent: number;
  canCancel: boolean;
  canResume: boolean;
}

export interface MatrixSnapshot {
  header: MatrixHeader;
  /** The columns: criterion ids in natural order. */
  criteria: string[];
  artifacts: MatrixArtifact[];
}

/** What the view shows, read back from its DOM for the editor's tests. */
export interface ShownMatrix {
  header: string;
  columns: string[];
  rows: { file: string; cells: string[] }[];
  failingOnly: boolean;
}

export interface LoopMatrixProtocol extends Protocol {
  requests: {
    openRun: { params: { runId: string }; result: { ok: boolean; message?: string } };
    openFile: { params: { file: string }; result: { ok: boolean; message?: string } };
    control: { params: { action: 'cancel' | 'resume' }; result: { ok: boolean; message?: string } };
    /** The answer to a `probe` event. */
    shown: { params: ShownMatrix; result: null };
  };
  events: {
    snapshot: MatrixSnapshot;
    /** One artifact's row changed (or is new). */
    artifact: MatrixArtifact;
    header: MatrixHeader;
    /** New criterion columns. */
    columns: { criteria: string[] };
    probe: Record<string, never>;
  };
}

/** What the view keeps across a reload (the serializer reopens the loop from it). */
export interface LoopMatrixState {
  loopId: string;
  failingOnly: boolean;
}
