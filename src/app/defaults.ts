import { SETTINGS } from '../model/settings';

/**
 * The product's defaults that more than one host uses, in one place: the command line, the
 * editor's commands and views and the run's composition all read them here.
 */

/** Where a run's new PRD goes unless `idealState.prd.folder` says otherwise. */
export const DEFAULT_PRD_FOLDER = SETTINGS.prdFolder.default;

/**
 * Per criterion, unless its method names its own, when a person verifies (Verify Criteria,
 * re-verify in the ISC table, the Testing view, `ideal-state verify`): long enough for a
 * project's test task.
 */
export const CRITERION_TIMEOUT_MS = 5 * 60_000;

/** The effort level of a PRD that names none, or names one this workspace does not know. */
export const DEFAULT_EFFORT = 'STANDARD' as const;
