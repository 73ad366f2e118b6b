import type { Outcome, Priority, CriterionSource } from '../model';
import { NOTE_LABELS } from '../model/labels';
import type { PrdDocument } from './model';
import { notesOf, type CriterionNoteKind } from './notes';
import { isPrdDocument } from './recognise';
import { formatVerifySpec } from './verify-spec';

/** One row of the PRD editor's criteria table: what the file says, plus the store's outcome. */
export interface PrdViewCriterion {
  id: string;
  anti: boolean;
  checked: boolean;
  text: string;
  priority: Priority;
  source: CriterionSource;
  domain?: string;
  /** `Grep: pattern` as the file spells it; absent when the line has no method. */
  verify?: string;
  outcome?: Outcome;
  /** The notes the file holds under the criterion ("Not approved …", "Probe: …"), in file order. */
  notes?: PrdViewNote[];
}

/** A note under a criterion, as the PRD writes it: its label and what follows the colon. */
export interface PrdViewNote {
  kind: CriterionNoteKind;
  label: string;
  text: string;
  /** A "Not approved" note's command digest, for a tooltip. */
  digest?: string;
}

export interface PrdViewMeta {
  id?: string;
  status?: string;
  effort?: string;
  iteration?: number;
  maxIterations?: number;
  phase?: string;
  updated?: string;
  runId?: string;
}

export interface PrdViewDecision {
  title: string;
  date?: string;
  decision?: string;
  rationale?: string;
}

export interface PrdViewLogEntry {
  title: string;
  fields: [string, string][];
}

/** What the PRD editor shows: plain data, no markup; the webview renders every string as text. */
export interface PrdView {
  isPrd: boolean;
  title: string;
  meta: PrdViewMeta;
  criteria: PrdViewCriterion[];
  decisions: PrdViewDecision[];
  log: PrdViewLogEntry[];
  errors: number;
  warnings: number;
}

/** The editor's view of a parsed PRD; `outcomes` are the store's latest verdicts by criterion id. */
export function prdView(doc: PrdDocument, outcomes: ReadonlyMap<string, Outcome> = new Map()): PrdView {
  const m = doc.meta;
  const meta: PrdViewMeta = { id: m.id, status: m.status, effort: m.effort, iteration: m.iteration, maxIterations: m.maxIterations, phase: m.phase, updated: m.updated, runId: m.runId };
  return {
    isPrd: isPrdDocument(doc),
    title: doc.title?.text ?? m.title ?? m.id ?? 'Untitled PRD',
    meta: Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== undefined)) as PrdViewMeta,
    criteria: doc.criteria.map((c) => {
      const outcome = outcomes.get(c.id);
      const notes = notesOf(doc, c.id).map((n): PrdViewNote => ({ kind: n.kind, label: NOTE_LABELS[n.kind], text: n.text, ...(n.digest ? { digest: n.digest } : {}) }));
      return {
        id: c.id,
        anti: c.kind === 'anti-criterion',
        checked: c.checked,
        text: c.text,
        priority: c.priority,
        source: c.source,
        ...(c.domain ? { domain: c.domain } : {}),
        ...(c.verify ? { verify: formatVerifySpec(c.verify, c.text) } : {}),
        ...(outcome ? { outcome } : {}),
        ...(notes.length > 0 ? { notes } : {}),
      };
    }),
    decisions: doc.decisions.map((d) => ({ title: d.title, ...(d.date ? { date: d.date } : {}), ...(d.decision ? { decision: d.decision } : {}), ...(d.rationale ? { rationale: d.rationale } : {}) })),
    log: doc.log.map((e) => ({ title: e.title, fields: Object.entries(e.fields) })),
    errors: doc.diagnostics.filter((d) => d.severity === 'error').length,
    warnings: doc.diagnostics.filter((d) => d.severity === 'warning').length,
  };
}

/** The change from one view to the next: only the rows that differ when nothing else did. */
export type PrdViewChange =
  | { kind: 'none' }
  | { kind: 'rows'; rows: PrdViewCriterion[]; order: string[] }
  | { kind: 'all'; view: PrdView };

export function diffPrdView(before: PrdView | undefined, after: PrdView): PrdViewChange {
  // Rows are keyed by id; with a duplicate id (an error the file shows) only a full render is right.
  if (!before || new Set(after.criteria.map((c) => c.id)).size !== after.criteria.length) return { kind: 'all', view: after };
  const { criteria: a, ...restA } = before;
  const { criteria: b, ...restB } = after;
  if (JSON.stringify(restA) !== JSON.stringify(restB)) return { kind: 'all', view: after };
  const old = new Map(a.map((c) => [c.id, JSON.stringify(c)]));
  const rows = b.filter((c) => old.get(c.id) !== JSON.stringify(c));
  const order = b.map((c) => c.id);
  const sameOrder = order.length === a.length && order.every((id, i) => a[i]!.id === id);
  if (rows.length === 0 && sameOrder) return { kind: 'none' };
  return { kind: 'rows', rows, order };
}
