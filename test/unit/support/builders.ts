import type { AnyCriterion, Run } from '../../../src/model';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { createRun } from '../../../src/model/runs';

/** Typed builders for test data: valid by default, overridable field by field. */
export function aRun(overrides: Partial<Run> = {}): Run {
  return { ...createRun({ request: 'Add a dark mode toggle to settings' }, shippedEffortTable(), new Date('2026-11-01T10:00:00.000Z')), ...overrides };
}

let counter = 0;
export function aCriterion(overrides: Partial<AnyCriterion> = {}): AnyCriterion {
  counter += 1;
  return {
    kind: 'criterion',
    id: `ISC-${counter}`,
    text: 'Settings page shows a dark mode toggle switch',
    priority: 'CRITICAL',
    source: 'EXPLICIT',
    status: 'PENDING',
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T10:00:00.000Z',
    verify: { type: 'GREP', pattern: 'dark-mode', expect: 'present' },
    ...overrides,
  } as AnyCriterion;
}
