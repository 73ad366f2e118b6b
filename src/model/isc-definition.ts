import { z } from 'zod';
import { ANTI_CRITERION_ID, CRITERION_ID, CriterionSource, Priority } from './criterion';
import { VerificationMethod } from './verification-method';

/** Artifact types are dotted lower-case words, e.g. `code.feature` or `summary.note.v1`. */
export const ARTIFACT_TYPE = /^[a-z][a-z0-9-]*(?:\.[a-z0-9][a-z0-9-]*)+$/;

const templateFields = {
  text: z.string().trim().min(1),
  priority: Priority.default('CRITICAL'),
  source: CriterionSource.default('EXPLICIT'),
  domain: z.string().min(1).optional(),
  verify: VerificationMethod,
};

export const TemplateCriterion = z
  .object({ id: z.string().regex(CRITERION_ID, 'criterion ids look like ISC-FEAT-001').refine((id) => !ANTI_CRITERION_ID.test(id), 'ISC-A-… ids belong under antiCriteria'), ...templateFields })
  .strict();
export type TemplateCriterion = z.infer<typeof TemplateCriterion>;

export const TemplateAntiCriterion = z
  .object({ id: z.string().regex(ANTI_CRITERION_ID, 'anti-criterion ids look like ISC-A-FEAT-001'), ...templateFields })
  .strict();
export type TemplateAntiCriterion = z.infer<typeof TemplateAntiCriterion>;

export const ScaleTier = z.enum(['SIMPLE', 'MEDIUM', 'LARGE', 'MASSIVE']);
export type ScaleTier = z.infer<typeof ScaleTier>;

/** An ISC template for one artifact type. */
export const IscDefinition = z
  .object({
    artifactType: z.string().regex(ARTIFACT_TYPE, 'artifact types look like code.feature'),
    version: z.string().regex(/^\d+\.\d+\.\d+$/, 'versions look like 1.0.0'),
    description: z.string().min(1),
    minCriteria: z.number().int().nonnegative(),
    scaleTier: ScaleTier,
    idealCriteria: z.array(TemplateCriterion).min(1, 'a definition needs at least one ideal criterion'),
    antiCriteria: z.array(TemplateAntiCriterion).min(1, 'a definition needs at least one anti-criterion'),
  })
  .strict()
  .superRefine((d, ctx) => {
    const seen = new Set<string>();
    const all = [...d.idealCriteria.map((c, i) => ['idealCriteria', i, c.id] as const), ...d.antiCriteria.map((c, i) => ['antiCriteria', i, c.id] as const)];
    for (const [list, index, id] of all) {
      if (seen.has(id)) ctx.addIssue({ code: 'custom', path: [list, index, 'id'], message: `duplicate id ${id}` });
      seen.add(id);
    }
    if (d.minCriteria > d.idealCriteria.length) {
      ctx.addIssue({ code: 'custom', path: ['minCriteria'], message: `minCriteria ${d.minCriteria} is more than the ${d.idealCriteria.length} ideal criteria listed` });
    }
  });
export type IscDefinition = z.infer<typeof IscDefinition>;
