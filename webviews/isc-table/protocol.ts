import type { Protocol } from '../shared/protocol';
import type { ApprovalAnswer } from '../../src/agent/approvals';
import type { PendingApproval } from '../../src/agent/pending-approvals';

/** The phases in order, for the stepper (the same list as src/model/run.ts). */
export const TABLE_PHASES = ['OBSERVE', 'THINK', 'PLAN', 'BUILD', 'EXECUTE', 'VERIFY', 'LEARN'] as const;
export type TableOutcome = 'PASS' | 'FAIL' | 'PARTIAL' | 'UNKNOWN';
export type TablePriority = 'CRITICAL' | 'IMPORTANT' | 'NICE';

/** A `file:line` the evidence names; the host opens it only inside the workspace. */
export interface EvidenceLocation {
  file: string;
  line: number;
}

/** One criterion or anti-criterion as the table shows it. Every string is untrusted text. */
export interface TableRow {
  id: string;
  kind: 'criterion' | 'anti-criterion';
  text: string;
  priority: TablePriority;
  source: string;
  domain?: string;
  /** "Grep: Hello", "CLI: npm test", … */
  verify?: string;
  status: string;
  outcome?: TableOutcome;
  /** Verified before the criterion (or the workspace) last changed: the outcome may no longer hold. */
  stale: boolean;
  evidence?: string;
  locations: EvidenceLocation[];
  durationMs?: number;
  claimedBy?: string;
  /**
   * Its check passed on the workspace as it was before any work (a "Probe" note in the PRD,
   * issue 28 §5): the row says "passes before any work — can this check fail?".
   */
  probed?: boolean;
}

export interface BudgetFigure {
  used: number;
  /** No limit when left out. */
  limit?: number;
}

/** What the stepper, the header and the budget bar show. */
export interface TableHeader {
  runId: string;
  request: string;
  effort: string;
  state: string;
  phase: string;
  iteration: number;
  criteriaVersion: number;
  exitReason?: string;
  prdPath?: string;
  /** Finished: COMPLETE, BUDGET_EXHAUSTED, BLOCKED, CANCELLED or FAILED. */
  finished: boolean;
  budget: { seconds: BudgetFigure; tokens: BudgetFigure; usd: BudgetFigure };
  /** What the run's model calls spent: tokens in (cached and written apart), out, and dollars; absent before the first call. */
  spent?: string;
  /** The run's time beyond the budget figure: whether it is going and what it spent waiting for a person. */
  time: TableTime;
}

/**
 * Time a run spends waiting for a person (a pending approval) is shown as waiting and is not
 * counted against its budget. Figures are as of the message; while the run goes in this
 * window the view counts on from them itself, so the time bar stays live between messages.
 */
export interface TableTime {
  /** Going in this window: `budget.seconds.used` grows (unless waiting) until the next message. */
  going: boolean;
  /** Waiting for a person now, this long (ms) as of the message: the budget stands still meanwhile. */
  waitingMs?: number;
  /** What the person is asked while `waitingMs` runs ("approval", "your answer: …"). */
  waitingFor?: string;
  /** Every wait for a person so far (ms, the current one included), kept out of the budget. */
  waitedMs: number;
}

/**
 * A pending approval (src/agent/pending-approvals.ts) as the table shows it: without its run and
 * its whole proposed text, its line summary or exact command line(s) as `detail`. Every string is
 * untrusted text.
 */
export type TableApproval = Omit<PendingApproval, 'runId' | 'proposed' | 'summary'> & { readonly detail: string };

/** Approve once, deny, approve every further request of this kind in the run, or (a verification command) deny always. */
export type { ApprovalAnswer } from '../../src/agent/approvals';

/** What the host can do for this run right now (buttons are shown only when they work). */
export interface TableAbilities {
  verify: boolean;
  edit: boolean;
  cancel: boolean;
  resume: boolean;
  rate: boolean;
}

export interface TableSnapshot {
  header: TableHeader;
  rows: TableRow[];
  approvals: TableApproval[];
  abilities: TableAbilities;
  /** The criteria lock of the run's PRD (issue 23); absent when the run has no PRD. */
  lock?: TableLock;
}

/** One change since the lock, as the gate shows it (src/app/gate/lock-changes.ts). Every string is text. */
export interface TableLockChange {
  /** A criterion's id, the PRD's path, or an input's name. */
  id: string;
  what: 'criterion' | 'prd' | 'input';
  summary: string;
  /** `- ` what was locked, `+ ` what is there now. */
  diff: string[];
  /** Revert can put this criterion's locked line back into the PRD. */
  revertible: boolean;
}

/**
 * The lock badge: `locked` (as a person locked it), `tampered` (changed since: the done gate
 * blocks until approved or put back), `not-locked`, `baseline` (only the session baseline
 * holds it) or `damaged` (the lock record cannot be read).
 */
export interface TableLock {
  prdPath: string;
  state: 'locked' | 'tampered' | 'not-locked' | 'baseline' | 'damaged';
  version?: number;
  by?: string;
  at?: string;
  changes: TableLockChange[];
  /** Lock, Approve and Revert work here (a trusted workspace, a folder open). */
  canAct: boolean;
  error?: string;
  /** Criteria an agent proposed through the MCP server for this PRD, waiting for a person (Add / Drop in a modal). */
  proposals?: TableProposal[];
  /** Whether the done gate holds an agent to this PRD, and why (or which PRD it holds instead), in one sentence. */
  held?: string;
  /**
   * The agent stopped without done through the honest exit (the PRD's status is BLOCKED): it said
   * it cannot finish and needs a person; `reason` is its words where the PRD keeps them. Text.
   */
  agentBlocked?: { reason?: string };
}

/** A pending proposal: exactly the lines that would be written, or why it cannot be added. Every string is text. */
export interface TableProposal {
  id: string;
  header: string;
  lines: string[];
  commands: string[];
  problem?: string;
}

/**
 * The smallest message that brings the view up to date (see `tableDeltas`): a whole
 * snapshot only on ready, otherwise one row, the header, or the approvals.
 */
export type TableDelta =
  | { type: 'row'; row: TableRow }
  | { type: 'rowRemoved'; id: string }
  /** Rows in display order when the set changed (a new criteria version). */
  | { type: 'order'; ids: string[] }
  | { type: 'header'; header: TableHeader }
  | { type: 'approvals'; approvals: TableApproval[] }
  | { type: 'abilities'; abilities: TableAbilities }
  | { type: 'lock'; lock: TableLock | undefined };

/** What the view shows, read back from its DOM (for the editor's tests and `api.iscTables`). */
export interface ShownTable {
  runId: string;
  phase: string;
  rows: { id: string; text: string; outcome: string; status: string; stale: boolean; probe?: { text: string; title: string } }[];
  /** The rows left after the filter, in display order. */
  visibleIds: string[];
  /** The header as shown: the state badge's word, the line beside it, the score, and the time bar (text and seconds counted). */
  header?: { state: string; reason: string; score: string; time: string; timeUsed: number; spent: string };
  /** The pending approvals the view shows: id, kind, and the path or command it names. */
  approvals?: { id: string; kind: string; what: string; buttons: string[] }[];
  /** The text of "How did this go?" when it is shown (the run has ended). */
  rating?: string;
  /** The lock badge as shown: its state, its words, its buttons, and the TAMPERED rows with their buttons. */
  lock?: { state: string; text: string; blocked?: string; buttons: string[]; tampered: { id: string; buttons: string[] }[]; proposals: { id: string; text: string; buttons: string[] }[] };
}

/** "How did this go?" at the end of the table (see rating.ts); every string is text. */
export interface TableRating {
  /** The run has ended, so it can be rated. */
  open: boolean;
  /** The run's one rating, from the table, the Ratings view or Rate Last Run. */
  rating?: { value: number; type: 'explicit' | 'implicit'; comment?: string };
  /** A comment kept without a rating, and why no rating was read from it. */
  kept?: { comment: string; why: string };
  /** A model is chosen, so a comment alone may become a rating. */
  modelAvailable: boolean;
  /** When no model reads comments, why (e.g. the selected model is a scripted demo). */
  noModel?: string;
}

export interface RequestResult {
  ok: boolean;
  message: string;
}

export interface IscTableProtocol extends Protocol {
  requests: {
    reverify: { params: { ids?: string[] }; result: RequestResult };
    editCriterion: { params: { id: string; text: string }; result: RequestResult };
    openLocation: { params: EvidenceLocation; result: RequestResult };
    openPrd: { params: Record<string, never>; result: RequestResult };
    decide: { params: { approvalId: string; answer: ApprovalAnswer }; result: RequestResult };
    /** Opens the real diff editor of a pending edit: the file beside the proposal. */
    showDiff: { params: { approvalId: string }; result: RequestResult };
    control: { params: { action: 'cancel' | 'resume' | 'rate' }; result: RequestResult };
    /** The inline rating: a number 1–10 and/or a comment. */
    rateRun: { params: { rating?: number; comment: string }; result: RequestResult };
    /** The criteria lock of the run's PRD: Lock (modal), Approve the changes (modal with the diff), Revert one criterion. */
    lockCriteria: { params: Record<string, never>; result: RequestResult };
    approveCriteria: { params: Record<string, never>; result: RequestResult };
    revertCriterion: { params: { id: string }; result: RequestResult };
    /** A pending criteria proposal: the modal shows its lines, then adds or drops it. */
    acceptProposal: { params: { id: string }; result: RequestResult };
    /** The answer to a `probe` event. */
    shown: { params: ShownTable; result: null };
  };
  events: {
    snapshot: TableSnapshot;
    delta: TableDelta;
    /** The run's rating, after ready and whenever it changes. */
    rating: TableRating;
    /** Sent only when the editor asks what the view shows (tests). */
    probe: Record<string, never>;
  };
}

export type SortKey = 'id' | 'priority' | 'outcome' | 'status' | 'duration' | 'domain';

export interface TableFilter {
  outcome: TableOutcome | 'NONE' | 'ALL';
  priority: TablePriority | 'ALL';
  domain: string | 'ALL';
  text: string;
}

/** What the view keeps across hide/show and reloads; `runId` is what the serializer restores. */
export interface IscTableState {
  runId: string;
  filter: TableFilter;
  sort: { key: SortKey; descending: boolean };
  expanded: string[];
  focusedId?: string;
}
