import { z } from 'zod';
import { CriterionSource, Priority } from '../model/criterion';
import { VerificationMethod } from '../model/verification-method';
import type { CriterionSegments, ParsedTags } from './criterion-line';
import type { PrdDiagnostic } from './diagnostics';
import type { Frontmatter } from './frontmatter';
import type { SourceLines } from './lines';

/** A criterion as a PRD states it: what the store and the CLI's `--json` receive. */
export const PrdCriterionData = z
  .object({
    id: z.string(),
    kind: z.enum(['criterion', 'anti-criterion']),
    checked: z.boolean(),
    text: z.string(),
    /** CRITICAL unless a tag says otherwise. */
    priority: Priority,
    /** EXPLICIT unless a tag says otherwise. */
    source: CriterionSource,
    domain: z.string().optional(),
    verify: VerificationMethod.optional(),
  })
  .strict();
export type PrdCriterionData = z.infer<typeof PrdCriterionData>;

/** A criterion with where it sits in the file, so an edit can rewrite just its line. */
export interface PrdCriterion extends PrdCriterionData {
  /** 0-based line index. */
  readonly line: number;
  readonly segments: CriterionSegments;
  /** The tags as written; absent ones take the defaults above. */
  readonly tags: ParsedTags;
  /** Which section it is in: `anti-criteria` for this product's own section. */
  readonly section: 'criteria' | 'anti-criteria';
}

export type SectionKind = 'problem-space' | 'key-files' | 'constraints' | 'decisions' | 'criteria' | 'anti-criteria' | 'log' | 'context' | 'verification' | 'unknown';

export interface PrdSection {
  kind: SectionKind;
  heading: string;
  /** 0-based line of the `##` heading. */
  line: number;
  /** 0-based line after the section's last line. */
  end: number;
}

/** A `###` group inside the criteria section, e.g. `### Completeness`. */
export interface PrdDomain {
  name: string;
  line: number;
  end: number;
  anti: boolean;
}

export interface PrdDecision {
  line: number;
  date?: string;
  title: string;
  decision?: string;
  rationale?: string;
  alternatives: string[];
}

export interface PrdLogEntry {
  line: number;
  title: string;
  /** `- Phase: VERIFY → COMPLETE` becomes `{ phase: 'VERIFY → COMPLETE' }`. */
  fields: Record<string, string>;
}

/** The frontmatter read the same way whichever dialect wrote it (this product's or PAI v2). */
export interface PrdMeta {
  id?: string;
  title?: string;
  status?: string;
  /** As written; resolve it with resolveEffortLevel. */
  effort?: string;
  phase?: string;
  progress?: string;
  mode?: string;
  created?: string;
  updated?: string;
  iteration?: number;
  maxIterations?: number;
  runId?: string;
  /** A loop's PRD (`loop: <id>`): the loop's record, whose artifacts' runs the loop stores itself. */
  loopId?: string;
  criteriaVersion?: number;
}

export type PrdDialect = 'ideal-state' | 'pai-v2';

export interface PrdDocument {
  readonly source: SourceLines;
  readonly dialect: PrdDialect;
  readonly frontmatter?: Frontmatter;
  readonly meta: PrdMeta;
  readonly title?: { text: string; line: number };
  readonly sections: readonly PrdSection[];
  readonly domains: readonly PrdDomain[];
  readonly criteria: readonly PrdCriterion[];
  readonly problemSpace?: string;
  readonly context?: string;
  readonly keyFiles: readonly string[];
  readonly constraints: readonly string[];
  readonly decisions: readonly PrdDecision[];
  readonly log: readonly PrdLogEntry[];
  /** PAI v2's `## Verification`: evidence by criterion id. */
  readonly evidence: Readonly<Record<string, string>>;
  /** What the parser found wrong; the linter adds its own findings separately. */
  readonly diagnostics: readonly PrdDiagnostic[];
  /** Per line: false inside code blocks and comments. */
  readonly structural: readonly boolean[];
}

export function criterionData(c: PrdCriterion): PrdCriterionData {
  return { id: c.id, kind: c.kind, checked: c.checked, text: c.text, priority: c.priority, source: c.source, ...(c.domain ? { domain: c.domain } : {}), ...(c.verify ? { verify: c.verify } : {}) };
}
