import type { RunState } from '../../model';
import { defineCommand } from '../shared/command';
import { MODEL_OPTIONS, WORKSPACE_OPTIONS } from '../shared/options';
import { RUN_USAGE } from '../shared/usage';

/** The exit code of each exit state (README "Runs from the command line"). 2 is a usage error. */
export const EXIT_CODES: Record<RunState, number> = {
  COMPLETE: 0,
  FAILED: 1,
  BUDGET_EXHAUSTED: 3,
  BLOCKED: 4,
  CANCELLED: 130,
  PENDING: 1,
  RUNNING: 1,
  NEEDS_APPROVAL: 4,
};

/** The options of `run`, `bundle` and `undo`. */
export const RUN_OPTIONS = {
  ...WORKSPACE_OPTIONS,
  ...MODEL_OPTIONS,
  prd: { type: 'string' },
  effort: { type: 'string' },
  approve: { type: 'string' },
  resume: { type: 'string' },
  out: { type: 'string' },
} as const;

/** `run`, `bundle` and `undo` read the same arguments and share one usage. */
export const RUN_COMMAND = defineCommand({ name: 'ideal-state', usage: RUN_USAGE, options: RUN_OPTIONS });
