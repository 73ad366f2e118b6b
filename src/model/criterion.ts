import { z } from 'zod';
import { VerificationMethod } from './verification-method';
import { Outcome } from './outcome';

export const Priority = z.enum(['CRITICAL', 'IMPORTANT', 'NICE']);
export type Priority = z.infer<typeof Priority>;

/** Where a criterion came from: said by the user, inferred from the request, or implied by the domain. */
export const CriterionSource = z.enum(['EXPLICIT', 'INFERRED', 'IMPLICIT']);
export type CriterionSource = z.infer<typeof CriterionSource>;

/** The work state of a row. The verified result lives in `outcome`. */
export const CriterionStatus = z.enum(['PENDING', 'ACTIVE', 'DONE', 'BLOCKED', 'ADJUSTED']);
export type CriterionStatus = z.infer<typeof CriterionStatus>;

/** ISC-… ids, anti-criteria as ISC-A-… (PAI's spelling). */
export const CRITERION_ID = /^ISC-(?:[A-Z0-9]+-)*[0-9]+$/;
export const ANTI_CRITERION_ID = /^ISC-A-(?:[A-Z0-9]+-)*[0-9]+$/;

export const Claim = z
  .object({
    by: z.string().min(1),
    at: z.iso.datetime(),
  })
  .strict();
export type Claim = z.infer<typeof Claim>;

const criterionFields = {
  text: z.string().trim().min(1, 'a criterion needs text'),
  priority: Priority.default('CRITICAL'),
  source: CriterionSource.default('EXPLICIT'),
  domain: z.string().min(1).optional(),
  verify: VerificationMethod.optional(),
  status: CriterionStatus.default('PENDING'),
  outcome: Outcome.optional(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  completedAt: z.iso.datetime().optional(),
  verifiedAt: z.iso.datetime().optional(),
  claim: Claim.optional(),
  notes: z.string().optional(),
};

/** A statement of the finished state that must be true. */
export const Criterion = z
  .object({
    kind: z.literal('criterion'),
    id: z.string().regex(CRITERION_ID, 'criterion ids look like ISC-1 or ISC-API-001').refine((id) => !ANTI_CRITERION_ID.test(id), {
      message: 'ISC-A-… ids are for anti-criteria',
    }),
    ...criterionFields,
  })
  .strict();
export type Criterion = z.infer<typeof Criterion>;

/** A statement of what must NOT be true at the end; it holds when the bad thing is absent. */
export const AntiCriterion = z
  .object({
    kind: z.literal('anti-criterion'),
    id: z.string().regex(ANTI_CRITERION_ID, 'anti-criterion ids look like ISC-A-1 or ISC-A-SEC-001'),
    ...criterionFields,
  })
  .strict();
export type AntiCriterion = z.infer<typeof AntiCriterion>;

export const AnyCriterion = z.discriminatedUnion('kind', [Criterion, AntiCriterion]);
export type AnyCriterion = z.infer<typeof AnyCriterion>;
