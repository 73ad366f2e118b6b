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

/** The known probe types, for messages. */
export const ISA_CHECK_TYPE_LIST = ISA_CHECK_TYPES.join(', ');

export type IsaSectionKind = 'claims' | 'anti-claims' | 'bridge' | 'features' | 'test-strategy' | 'verification' | 'fog' | 'language' | 'other';

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
  /** The feature block (`### F1 · Billing`) the claim is written under: its id, `F1`. */
  feature?: string;
}

/** A feature block of `## Features` (ISAFormat v2.16): `### F<n> · <name>`, a `Why:` line, its claims. */
export interface IsaFeature {
  /** `F0` (cross-cutting), `F1`, … */
  id: string;
  name: string;
  why?: string;
  /** 0-based line of the `###` heading. */
  line: number;
  /** The ids of the claims written under it, in order. */
  claims: string[];
}

/** One unresolved line of `## Not yet specified` (fog, ISAFormat v2.14): a question too dim to be a claim yet. */
export interface IsaFog {
  line: number;
  text: string;
}

/** One term of `## Language` (ISAFormat v2.18): `**Term**: what it means`. */
export interface IsaTerm {
  term: string;
  line: number;
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
  /** `critical` (v2.17: a failing probe means the thing is down) or `normal`, lower-cased as written. */
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
  readonly features: readonly IsaFeature[];
  /** Unresolved lines of `## Not yet specified`; empty when there is no such section or it is empty. */
  readonly fog: readonly IsaFog[];
  readonly language: readonly IsaTerm[];
  /**
   * The frontmatter's `principal_stated_goal` as written (null when it says `null`): the
   * principal's words, immutable unless a `refined:` decision changes them.
   */
  readonly principalStatedGoal?: string | null;
  /** The frontmatter's `frozen: true`: edits do not reopen a completed ISA. */
  readonly frozen?: boolean;
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
