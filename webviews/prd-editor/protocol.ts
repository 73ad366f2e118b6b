import type { PrdView, PrdViewCriterion } from '../../src/prd/view';
import type { Priority } from '../../src/model/criterion';
import type { Protocol } from '../shared/protocol';

export type { PrdView, PrdViewCriterion, Priority };

/** The edits the PRD editor can ask for; each becomes a line-local edit of the TextDocument. */
export type PrdEditorEdit =
  | { kind: 'setChecked'; id: string; checked: boolean }
  | { kind: 'setText'; id: string; text: string }
  | { kind: 'setPriority'; id: string; priority: Priority }
  /** A new criterion at the end of the criteria, under the next free id. */
  | { kind: 'addCriterion'; text: string };

/** The PRD editor's messages (see webviews/shared/protocol.ts for the wire format). */
export interface PrdEditorProtocol extends Protocol {
  requests: {
    /** Applies one edit to the document; `applied: false` when the document refused it (it changed meanwhile). */
    edit: { params: PrdEditorEdit; result: { applied: boolean } };
    /** Shows the criterion's line in the plain text editor beside. */
    reveal: { params: { id: string }; result: null };
  };
  events: {
    /** The whole view: on ready, and when more than criteria rows changed. */
    view: PrdView;
    /** Only these rows changed; `order` is every row id in document order. */
    rows: { rows: PrdViewCriterion[]; order: string[] };
  };
}

/** What the webview keeps across hide/show and reloads (getState/setState). */
export interface PrdEditorState {
  view?: PrdView;
  /** The control that had the focus, e.g. `check:ISC-1`. */
  focusedControl?: string;
  scrollY?: number;
}
