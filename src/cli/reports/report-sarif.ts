import type { CriterionResult } from '../../model';
import { firstLine, type ReportInput } from './report-types';

/**
 * SARIF 2.1.0, what GitHub code scanning and other static-analysis views read: one rule per
 * criterion (ruleId is its id), one result per criterion at the file and line where the
 * criterion is written. Level: a CRITICAL criterion that fails is an error, any other
 * failure a warning, UNKNOWN a note, PASS none (kind "pass", so views can hide it).
 */
export function sarifReport(input: ReportInput): string {
  const { set } = input;
  const rules = set.results.map((r) => {
    const c = input.info(r.criterionId);
    return {
      id: r.criterionId,
      shortDescription: { text: c?.text || r.criterionId },
      properties: { priority: c?.priority ?? 'CRITICAL', ...(c?.anti ? { antiCriterion: true } : {}) },
    };
  });
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'ideal-state', ...(input.version ? { version: input.version } : {}), rules } },
        invocations: [{ executionSuccessful: true, endTimeUtc: input.at.toISOString() }],
        results: set.results.map((r, ruleIndex) => result(r, ruleIndex, input)),
        properties: { passed: set.passed, summary: set.summary, counts: set.counts, ...(set.redactions ? { redactions: set.redactions } : {}) },
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function result(r: CriterionResult, ruleIndex: number, input: ReportInput) {
  const c = input.info(r.criterionId);
  const critical = (c?.priority ?? 'CRITICAL') === 'CRITICAL';
  const failed = r.outcome === 'FAIL' || r.outcome === 'PARTIAL';
  const level = r.outcome === 'PASS' ? 'none' : failed ? (critical ? 'error' : 'warning') : 'note';
  const kind = r.outcome === 'PASS' ? 'pass' : failed ? 'fail' : 'review';
  const text = `${r.criterionId} ${r.outcome}: ${firstLine(r.evidence, 1000) || 'no evidence'}${r.repairTarget && r.outcome !== 'PASS' ? ` — needs: ${r.repairTarget}` : ''}`;
  return {
    ruleId: r.criterionId,
    ruleIndex,
    kind,
    level,
    message: { text },
    locations: [{ physicalLocation: { artifactLocation: { uri: input.file }, region: { startLine: c?.line ?? 1 } } }],
    ...(r.locations.length > 0
      ? { relatedLocations: r.locations.map((l, id) => ({ id, physicalLocation: { artifactLocation: { uri: l.file }, region: { startLine: l.line } }, message: { text: `evidence for ${r.criterionId}` } })) }
      : {}),
    properties: { outcome: r.outcome, evidence: r.evidence, durationMs: r.durationMs, ...(r.failureLabel ? { failureLabel: r.failureLabel } : {}) },
  };
}
