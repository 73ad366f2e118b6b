import * as path from 'node:path';
import type { Loop, LoopArtifact, LoopNotice, Outcome } from '../../model';
import { compareFiles } from './artifacts';

type PrdArtifact = Pick<LoopArtifact, 'file' | 'status' | 'outcomes'> & Partial<Pick<LoopArtifact, 'runId' | 'notices'>>;

export interface LoopPrdInput {
  readonly loop: Pick<Loop, 'id' | 'spec' | 'state' | 'iteration' | 'effort' | 'criterionIds' | 'log' | 'createdAt' | 'updatedAt'> & { readonly reason?: string; readonly startedBy?: Loop['startedBy'] };
  readonly artifacts: readonly PrdArtifact[];
  /** Each worked artifact's sub-run PRD (workspace-relative), for the links. */
  readonly subRunPrds?: ReadonlyMap<string, string>;
  /** Where this PRD is written (workspace-relative), so its links are relative to it. */
  readonly prdPath: string;
}

const CELL: Record<Outcome, string> = { PASS: 'PASS', FAIL: 'FAIL', PARTIAL: 'PARTIAL', UNKNOWN: 'UNKNOWN' };

/**
 * The loop's PRD: frontmatter like every PRD (`prd: true`, id, status, effort) plus `loop:`
 * (the loop's id), the artifacts × criteria summary, rejection notices, a LOG entry per
 * iteration in the PRD format, and a link to each artifact's sub-run PRD. It has no
 * criterion lines of its own — each artifact's criteria live in its sub-run — so the PRD
 * parser reads it as a PRD with no criteria.
 */
export function renderLoopPrd(input: LoopPrdInput): string {
  const { loop } = input;
  const day = (iso: string) => iso.slice(0, 10);
  const artifacts = [...input.artifacts].sort((a, b) => compareFiles(a.file, b.file));
  const passing = artifacts.filter((a) => a.status === 'PASSING').length;
  const dir = path.posix.dirname(input.prdPath);
  const link = (target: string) => path.posix.relative(dir, target);
  // One line of text in a table cell or a heading: no line break, separator or control character
  // (each would start a line the PRD parser reads), backslashes before pipes escaped.
  // eslint-disable-next-line no-control-regex
  const esc = (s: string) => s.replace(/[\r\n\u2028\u2029\u0085]+/g, ' ').replace(/[\u0000-\u001F\u007F-\u009F]/g, '?').replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
  const lines = [
    '---',
    'prd: true',
    `id: PRD-${day(loop.createdAt).replace(/-/g, '')}-${loop.id}`,
    `loop: ${loop.id}`,
    `status: ${loop.state}`,
    `effort_level: ${loop.effort}`,
    `created: ${day(loop.createdAt)}`,
    `updated: ${day(loop.updatedAt)}`,
    `iteration: ${loop.iteration}`,
    `max_iterations: ${loop.spec.maxIterations}`,
    ...(loop.startedBy?.who === 'schedule' ? [`started_by: schedule:${esc(loop.startedBy.schedule ?? '')}`] : []),
    '---',
    '',
    `# Loop over ${esc(loop.spec.glob)} against ${esc(loop.spec.isc)}`,
    '',
    '## Problem Space',
    `Every file matching \`${esc(loop.spec.glob)}\`${loop.spec.shard ? ` (shard ${loop.spec.shard.index}/${loop.spec.shard.count})` : ''} meets the ISC template ${esc(loop.spec.isc)}. ${passing}/${artifacts.length} artifacts pass${loop.reason ? `; ${esc(loop.reason)}` : ''}.`,
    '',
    '## Artifacts',
    '',
    `| Artifact | Status | ${loop.criterionIds.map(esc).join(' | ')} | Run |`,
    `|---|---|${loop.criterionIds.map(() => '---|').join('')}---|`,
    ...artifacts.map((a) => {
      const prd = input.subRunPrds?.get(a.file);
      const run = prd ? `[${a.runId ?? 'PRD'}](${encodeURI(link(prd))})` : a.runId ?? '';
      return `| ${esc(a.file)} | ${a.status} | ${loop.criterionIds.map((id) => (a.outcomes[id] ? CELL[a.outcomes[id]!] : 'UNKNOWN')).join(' | ')} | ${run} |`;
    }),
    '',
    '## Rejection Notices',
    '',
    ...notices(artifacts).flatMap((n) => [
      `### ${esc(n.file)} — iteration ${n.iteration}${n.runId ? ` (run ${n.runId})` : ''}`,
      `- Verdict: ${n.verdict === 'not-consulted' ? 'not kept: the validator was not consulted, and only an edit it approves is kept' : n.verdict}${n.reverted ? ' (the edit was put back)' : n.unchanged ? ' (the sub-run changed no file)' : ''}`,
      `- By: ${esc(n.by)}`,
      ...n.failures.map((f) => `- ${f.criterionId} ${f.outcome}: ${esc(f.evidence) || 'no evidence'}${f.repairTarget ? ` — repair: ${esc(f.repairTarget)}` : ''}`),
      '',
    ]),
    '## LOG',
    '',
    ...(loop.startedBy?.who === 'schedule' ? [`Started by schedule ${esc(loop.startedBy.schedule ?? '')} on ${day(loop.createdAt)}.`, ''] : []),
    ...loop.log.flatMap((e) => [`### Iteration ${e.iteration} — ${day(e.at)}`, `- Work: ${esc(e.message)}`, `- Effort: ${e.effort}`, `- Passing: ${e.passing}/${e.total}`, '']),
  ];
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

function notices(artifacts: readonly PrdArtifact[]): LoopNotice[] {
  return artifacts.flatMap((a) => a.notices ?? []).filter((n) => n.verdict !== 'approved');
}
