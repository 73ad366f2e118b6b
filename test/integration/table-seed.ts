// A stored run for the ISC table suites, written through the store API (not a suite).
import type { AnyCriterion, Run } from '../../src/model';
import type { Store } from '../../src/store/store';

export const HOSTILE_TEXT = '<img src=x onerror=alert(1)>';
export const HOSTILE_EVIDENCE = 'src/greet.js:3: <script>alert("evidence")</script>';

export function storeTableRun(store: Store, id: string, request: string): { run: Run; criteria: AnyCriterion[] } {
  const at = new Date().toISOString();
  const run: Run = {
    id,
    request,
    effort: 'STANDARD',
    state: 'RUNNING',
    phase: 'BUILD',
    iteration: 1,
    criteriaVersion: 1,
    createdAt: at,
    updatedAt: at,
    startedAt: at,
    budgetSeconds: 300,
    elapsedMs: 42_000,
  };
  const criterion = (n: number, text: string, extra: Partial<AnyCriterion> = {}): AnyCriterion =>
    ({ kind: 'criterion', id: `ISC-${n}`, text, priority: 'CRITICAL', source: 'EXPLICIT', status: 'PENDING', createdAt: at, updatedAt: at, verify: { type: 'GREP', pattern: 'Hello', expect: 'present' }, ...extra }) as AnyCriterion;
  const criteria: AnyCriterion[] = [
    criterion(1, 'Greeting template reads Hello with the name', { outcome: 'PASS', status: 'DONE', verifiedAt: at, domain: 'source' }),
    criterion(2, HOSTILE_TEXT, { outcome: 'FAIL', domain: 'security' }),
    criterion(3, 'The workspace ships a CHANGELOG describing releases', { priority: 'IMPORTANT', verify: { type: 'READ', path: 'CHANGELOG.md' } }),
  ];
  store.batch((tx) => {
    tx.runs.save(run);
    tx.criteria.saveVersion(id, 1, criteria);
    tx.reports.save({
      id: `report-${id}`,
      runId: id,
      iteration: 1,
      criteriaVersion: 1,
      results: [
        { criterionId: 'ISC-1', outcome: 'PASS', evidence: 'src/greet.js:3: return `Hello, ${name}!`', durationMs: 12, locations: [{ file: 'src/greet.js', line: 3 }] },
        { criterionId: 'ISC-2', outcome: 'FAIL', evidence: HOSTILE_EVIDENCE, durationMs: 8, failureLabel: 'REQUIREMENT_COVERAGE', locations: [] },
      ],
      passed: false,
      summary: '1 passed, 1 failed',
      createdAt: at,
    });
  });
  return { run, criteria };
}
