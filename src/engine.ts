/**
 * The pure layers the editor needs at run time, bundled as `dist/engine.js` and loaded
 * on first use, so activating the extension does not pay for zod, yaml and sql.js.
 */
export { formatProblem } from './core/data-file';
export { loadDefinitions } from './core/definitions';
export { EFFORT_LEVELS } from './core/model/effort';
export { newId } from './core/ids';
export { createRun } from './core/runs';
export { checkPrd, formatVerifySpec, newPrdId, newPrdText, parsePrd, toCoreCriterion, writeOutcomes } from './prd';
export { DATABASE_FILE_NAME, Store } from './store/store';
export { LearningService, formatFigures } from './core/learning';
export { chooseDefault, DEFAULT_MODELS, LlmCancelledError, LlmProviderError, NOTHING_AVAILABLE_MESSAGE, parseLlmConfig, probeLocalServers, resolveModels, toJsonSchema } from './llm';
export { applyEdits, diffPrdView, mergeEngineUpdate, prdView, syncPrdToStore, textChanges, isPrdDocument } from './prd';
export { verifyCriteria } from './verify/engine';
export { StalenessTracker } from './verify/staleness';
export { recordVerification } from './verify/store-verification';
export { budgetFor } from './llm/budgets';
export { confinePath } from './verify/confine';
export { recordRunVerification } from './verify/run-verification';
export { deleteRun, editCriterionText, EDITED_IN_THE_ISC_TABLE } from './store/run-edits';
export { exportRunBundle } from './agent/bundle';
