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
export {
  budgetFor,
  BudgetExceededError,
  BudgetLedger,
  budgetOverrideFromSettings,
  chooseDefault,
  DEFAULT_MODELS,
  generateObject,
  LlmCancelledError,
  LlmProviderError,
  LlmTimeoutError,
  ModelRouter,
  NOTHING_AVAILABLE_MESSAGE,
  parseLlmConfig,
  probeLocalServers,
  resolveModels,
  routeFor,
  StructuredOutputError,
  toJsonSchema,
} from './llm';
export { verifyCriteria } from './verify/engine';
export { StalenessTracker } from './verify/staleness';
export { recordVerification } from './verify/store-verification';
// The Algorithm in the editor (src/vscode/run): the engine, its data files, the agent and its workspace helpers.
export { AlgorithmEngine } from './core/algorithm/engine';
export { loadCapabilities, WORKSPACE_CAPABILITIES_FILE } from './core/algorithm/capabilities';
export { loadPhaseGraph, WORKSPACE_PHASE_GRAPH_FILE } from './core/algorithm/phase-graph';
export { loadRoles, ROLE_IDS, WORKSPACE_ROLES_DIR } from './core/algorithm/roles';
export { StoreRunStorage } from './store/run-storage';
export { ApprovalPolicy } from './agent/approvals';
export { undoPlan } from './agent/checkpoint';
export { SpecialistAgent } from './agent/specialist-agent';
export { confinePath, PathEscapeError } from './agent/workspace';
export { confineGlob, confinePath as confineOnDisk } from './verify/confine';
export { runCommand } from './verify/run-command';
export { searchWorkspace } from './verify/search';
export { SearchScope } from './verify/search-scope';
export { compilePattern } from './verify/search-types';
export { VerificationEngineVerifier } from './agent/engine-verifier';
export { ModelJudge } from './agent/model-judge';
export { classifyEffort } from './core/algorithm/effort-classifier';
export { LearningService, formatFigures } from './core/learning';
export { applyEdits, diffPrdView, mergeEngineUpdate, prdView, syncPrdToStore, textChanges, isPrdDocument } from './prd';
export { recordRunVerification } from './verify/run-verification';
export { deleteRun, editCriterionText, EDITED_IN_THE_ISC_TABLE } from './store/run-edits';
export { exportRunBundle } from './agent/bundle';
