import type { VerificationMethod } from '../../model';
import type { PrdDiagnostic } from '../diagnostics';
import type { Frontmatter } from '../frontmatter';
import type { SourceLines } from '../lines';
import type { PrdMeta } from '../model';

/**
 * PAI's Ideal State Artifact (LifeOS `ISAFormat.md` v2.x, Algorithm v8): the successor of its
 * PRD. Claims (`ISC-N`, `ISC-N.M`, `C1`, anti-claims `A3` or `Anti:`) under `## Claims` or
 * `## Criteria`, each proved by a row of `## Test Strategy`. The text is kept line for line in
 * `source`; everything else points into it by 0-based line.
 */

/** The closed probe vocabulary of the Test Strategy's `type` column. */
export const ISA_CHECK_TYPES = ['bash', 'bun-test', 'bun-property', 'curl', 'manual', 'screenshot', 'eval'] as const;
export type IsaCheckType = (typeof ISA_CHECK_TYPES)[number];

export type IsaSectionKind = 'claims' | 'anti-claims' | 'bridge' | 'features' | 'test-strategy' | 'verification' | 'other';

export interface IsaSection {
  kind: IsaSectionKind;
  heading: string;
  /** 0-based line of the `##` heading. */
  line: number;
  /** 0-based line after the section's last line. */
  end: number;
}

export interface IsaClaim {
  /** As written: `ISC-3`, `ISC-2.1`, `C1`, `A3`, `EQ-12`. */
  id: string;
  /** 0-based line. */
  line: number;
  checked: boolean;
  /** Column (0-based) of the checkbox character, for write-back. */
  checkColumn: number;
  /** The claim's statement without its `Anti:` prefix. */
  text: string;
  /** Column where `text` starts. */
  textColumn: number;
  /** An anti-claim: its probe states the good state too, so it holds when the probe passes. */
  anti: boolean;
  /** `[DROPPED — see Decisions]`: kept for id stability, never verified or counted. */
  tombstone: boolean;
  /** `ISC-2` for `ISC-2.1` when the ISA has `ISC-2`. */
  parent?: string;
  section: IsaSectionKind;
}

export interface IsaProbe {
  /** The claim id the row names. */
  isc: string;
  line: number;
  /** As written (lower-cased); see ISA_CHECK_TYPES. */
  type: string;
  check: string;
  threshold: string;
  tool: string;
  anchorsTo?: string;
  severity?: string;
  form: 'table' | 'yaml';
}

/** What a probe becomes for the verifier: a method it runs, or why nothing here can run it. */
export type IsaProbePlan = { kind: 'method'; method: VerificationMethod } | { kind: 'unknown'; reason: string };

export interface IsaDocument {
  readonly format: 'isa';
  readonly source: SourceLines;
  readonly frontmatter?: Frontmatter;
  readonly meta: PrdMeta;
  readonly title?: { text: string; line: number };
  readonly sections: readonly IsaSection[];
  readonly claims: readonly IsaClaim[];
  readonly probes: readonly IsaProbe[];
  /** What the parser found wrong (the linter adds its own findings separately). */
  readonly diagnostics: readonly PrdDiagnostic[];
  readonly structural: readonly boolean[];
}

/** The claims that are verified and counted: not tombstones. */
export function liveClaims(doc: IsaDocument): IsaClaim[] {
  return doc.claims.filter((c) => !c.tombstone);
}

/** A claim with children (`ISC-2` of `ISC-2.1`) passes when they all pass. */
export function isContainer(doc: IsaDocument, id: string): boolean {
  return doc.claims.some((c) => c.parent === id && !c.tombstone);
}
