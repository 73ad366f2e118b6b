import { newId } from './ids';
import { DEFAULT_EFFORT_LEVEL, type EffortLevel, type EffortTable } from './effort';
import { Run } from './run';

export interface NewRunInput {
  readonly request: string;
  readonly effort?: EffortLevel;
  readonly artifactType?: string;
  readonly workspaceFolder?: string;
}

/** A run that has not started yet, with its budget taken from the effort table. */
export function createRun(input: NewRunInput, table: EffortTable, now: Date = new Date()): Run {
  const effort = input.effort ?? DEFAULT_EFFORT_LEVEL;
  const at = now.toISOString();
  return Run.parse({
    id: newId('run', now),
    request: input.request,
    effort,
    state: 'PENDING',
    phase: 'OBSERVE',
    iteration: 0,
    criteriaVersion: 0,
    ...(input.artifactType ? { artifactType: input.artifactType } : {}),
    ...(input.workspaceFolder ? { workspaceFolder: input.workspaceFolder } : {}),
    createdAt: at,
    updatedAt: at,
    budgetSeconds: table.levels[effort].budgetSeconds,
    elapsedMs: 0,
  });
}
