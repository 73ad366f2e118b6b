import { newId } from '../model/ids';
import { VerificationReport } from '../model/report';
import type { VerifySetResult } from './types';

export interface ReportInput {
  runId: string;
  iteration: number;
  criteriaVersion: number;
  candidateId?: string;
  now?: Date;
  /** The report's id, when chosen before (a pending write folded in twice stays one report). */
  id?: string;
}

/** A verified set as the store's verification report (validated by its schema). */
export function buildVerificationReport(set: VerifySetResult, input: ReportInput): VerificationReport {
  const now = input.now ?? new Date();
  return VerificationReport.parse({
    id: input.id ?? newId('report', now),
    runId: input.runId,
    iteration: input.iteration,
    criteriaVersion: input.criteriaVersion,
    ...(input.candidateId ? { candidateId: input.candidateId } : {}),
    results: set.results,
    passed: set.passed,
    summary: set.summary,
    createdAt: now.toISOString(),
  });
}
