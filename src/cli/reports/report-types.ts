import type { VerifySetResult } from '../../verify/types';
import type { CriterionInfo } from '../../app/verify-source';

/** What every CI report is made from: one verification of one requirements file. */
export interface ReportInput {
  /** The file as CI knows it: workspace-relative with forward slashes when it is inside the workspace. */
  file: string;
  set: VerifySetResult;
  info(id: string): CriterionInfo | undefined;
  /** The tool's version, when it is known. */
  version?: string;
  /** When the verification ran. */
  at: Date;
}

export const REPORT_FORMATS = ['junit', 'sarif', 'markdown'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export function firstLine(text: string, max = 200): string {
  const l = (text.split(/\r\n|\n|\r/)[0] ?? '').trim();
  return l.length > max ? `${l.slice(0, max - 1)}…` : l;
}
