import { z } from 'zod';

/**
 * How a criterion is proven. A discriminated union on `type`, so every
 * verifier receives exactly the fields it needs.
 */
export const CliMethod = z
  .object({
    type: z.literal('CLI'),
    command: z.string().min(1),
    cwd: z.string().min(1).optional(),
    timeoutMs: z.number().int().positive().optional(),
  })
  .strict();

export const TaskMethod = z
  .object({
    type: z.literal('TASK'),
    task: z.string().min(1),
    timeoutMs: z.number().int().positive().optional(),
  })
  .strict();

export const TestMethod = z
  .object({
    type: z.literal('TEST'),
    /** A workspace task name or a test command. */
    test: z.string().min(1),
    timeoutMs: z.number().int().positive().optional(),
  })
  .strict();

export const GrepMethod = z
  .object({
    type: z.literal('GREP'),
    pattern: z.string().min(1),
    glob: z.string().min(1).optional(),
    expect: z.enum(['present', 'absent']).default('present'),
    /** `include`: the search reads ignored files too (no `.gitignore` applies), for the rare check that means to. */
    ignored: z.literal('include').optional(),
  })
  .strict();

export const ReadMethod = z
  .object({
    type: z.literal('READ'),
    path: z.string().min(1),
    contains: z.string().min(1).optional(),
    matches: z.string().min(1).optional(),
  })
  .strict();

export const StaticMethod = z
  .object({
    type: z.literal('STATIC'),
    /** e.g. "diagnostics: no errors in src/**" */
    check: z.string().min(1),
    command: z.string().min(1).optional(),
  })
  .strict();

export const CustomMethod = z
  .object({
    type: z.literal('CUSTOM'),
    description: z.string().min(1),
  })
  .strict();

export const BrowserMethod = z
  .object({
    type: z.literal('BROWSER'),
    scenario: z.string().min(1),
  })
  .strict();

export const VerificationMethod = z.discriminatedUnion('type', [
  CliMethod,
  TaskMethod,
  TestMethod,
  GrepMethod,
  ReadMethod,
  StaticMethod,
  CustomMethod,
  BrowserMethod,
]);
export type VerificationMethod = z.infer<typeof VerificationMethod>;
export type VerificationMethodType = VerificationMethod['type'];
export const VERIFICATION_METHOD_TYPES = VerificationMethod.options.map((o) => o.shape.type.value);

/**
 * The command a method runs wherever it is verified (a STATIC command runs where there are no
 * diagnostics, e.g. in CI), spelled as the approval prompt shows it; undefined when it runs none.
 * What a run may write into a PRD is decided on this (only approved commands).
 */
export function methodCommand(m: VerificationMethod): string | undefined {
  switch (m.type) {
    case 'CLI':
      return m.command;
    case 'TEST':
      return m.test;
    case 'TASK':
      return `task: ${m.task}`;
    case 'STATIC':
      return m.command;
    default:
      return undefined;
  }
}
