/**
 * The pure layers the editor needs at run time, bundled as `dist/engine.js` and loaded
 * on first use, so activating the extension does not pay for zod, yaml and sql.js.
 */
export { formatProblem } from './model/data-file';
export { loadDefinitions } from './model/definitions';
export { shippedEffortTable } from './model/effort-table';
export { templateCriteria } from './model/isc-registry';
export { EFFORT_LEVELS } from './model/effort';
export { createRun } from './model/runs';
export { checkIsa, checkPrd, formatVerifySpec, recogniseFormat, newPrdId, newPrdText, parsePrd, toCoreCriterion, writeOutcomes } from './prd';
export { DATABASE_FILE_NAME, Store } from './store/store';
export {
  budgetFor,
  BudgetExceededError,
  BudgetLedger,
  callCancelled,
  budgetOverrideFromSettings,
  chooseDefault,
  DEFAULT_MODELS,
  describeLesson,
  generateObject,
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
  usageToRunEvent,
} from './llm';
// Set API Key: the providers a key is for, and a key kept whole or not at all.
export { keyNotKept, keyProviders, mintKeyUrl, sealRefusal, storeApiKey } from './llm/api-keys';
// Check Model: one tiny call of each shape on the models of every role.
export { checkModels } from './llm/check-model';
export { formatCheckReport, summarizeCheck } from './llm/check-model-text';
export { shutdownSoon, shutdownSoonText, todayIso } from './llm/catalogue';
export { AlgorithmEngine } from './algorithm/engine';
export { CancelledError } from './model/errors';
export { loadPhaseGraph, WORKSPACE_PHASE_GRAPH_FILE } from './algorithm/phase-graph';
export { loadCapabilities, WORKSPACE_CAPABILITIES_FILE } from './algorithm/capabilities';
export { classifyEffort } from './algorithm/effort-classifier';
export { criteriaFromPrd } from './algorithm/prd-sync';
export { StoreRunStorage } from './algorithm/store-run-storage';
export { SpecialistAgent } from './agent/specialist-agent';
export { ApprovalPolicy } from './agent/approvals';
export { checkpointedPrd, storageCheckpointer, undoDone, undoHolds, undoPlan, undoRunChanges } from './agent/checkpoint';
// Protected control files: where a write really lands, and whether it is in .git.
export { isGitPath } from './agent/control-files';
export { landingPath } from './agent/landing-path';
export { exportRunBundle } from './agent/bundle';
// The application layer (src/app): the one composition of a run, the one judge.
export { composeRun } from './app/compose-run';
export { composeVerification, isVerificationRefused } from './app/compose-verification';
export { deniedCommands, denialReason, deniedCommandsFile, forgetDenials, recordDenials } from './app/denied-commands';
export { AUTO, prdEffort, resolveEffort } from './app/effort';
export { preparePrd, storePrdVerification } from './app/verify-prd';
// The done gate's answers, the same for the editor's tools as for MCP and the stop hook.
export { coveringAnswer, criterionRows, verifyAnswer } from './app/done-gate';
// Install the Done Gate for…: the hosts and the configuration folder that says one is in use.
export { HOST_ADAPTERS } from './app/gate/hosts';
export { proposeCriteria } from './app/propose-criteria';
export { VerifierJudge } from './app/judge';
export { RunSessions } from './app/run-sessions';
// Loop mode: the engine, the stored loops for the matrix and the Runs view, the loop PRD.
export { effortForIteration, listArtifacts, listLoops, LoopEngine, LoopInputError, readLoop, renderLoopPrd, startLoop } from './app/loop';
export { NodeWorkspace } from './agent/node-workspace';
export { verifyCriteria } from './verify/verify-criteria';
export { StalenessTracker } from './verify/staleness';
export { recordVerification } from './verify/store-verification';
export { staleAfterChange } from './verify/staleness';
export { buildVerificationReport } from './verify/report';
export { commandsOf } from './verify/commands';
export { bundledRipgrep } from './verify/ripgrep-path';
export { loadRoles, ROLE_IDS, WORKSPACE_ROLES_DIR } from './algorithm/roles';
// The editor's agent workspace (src/vscode/run): path confinement, search and commands of the verification engine.
export { confinePath, PathEscapeError } from './agent/workspace';
export { confineGlob, confinePath as confineOnDisk } from './verify/confine';
export { runCommand } from './verify/run-command';
export { runRipgrep } from './verify/search-ripgrep';
// The editor's checks start their processes from a small process of their own (src/vscode/processes-host.ts).
export { ProcessHost } from './verify/process-host';
export { searchWorkspace } from './verify/search';
export { searchForAgent } from './agent/workspace-search';
export { SearchScope } from './verify/search-scope';
export { compilePattern } from './verify/search-types';
export { LearningService, describeProvenance, formatFigures, noCommentReader } from './learning';
export { runLearning } from './algorithm/run-learning';
export { applyEdits, diffPrdView, mergeEngineUpdate, prdView, syncPrdToStore, textChanges, isPrdDocument } from './prd';
export { recordRunVerification } from './verify/run-verification';
export { deleteRun, editCriterionText, EDITED_IN_THE_ISC_TABLE } from './store/run-edits';
export { parseVerifySpec } from './prd';
// The progress of a stored loop, as the editor's matrix shows it.
export { progressOf } from './app/loop';
export { allowProposedCommand, commandsAwaitingPerson, recordProposedCommands, removePendingProposal } from './app/proposals';
export { acceptProposal, previewPending } from './app/proposals-accept';
// The criteria lock: the editor's Lock, Approve and Revert call the same functions as `ideal-state criteria`.
// Probe the probes when a person locks criteria in the editor, as `ideal-state criteria lock` does.
export { doneWords, probedIds, probePrd, PROBE_WORDS } from './app/probe';
export { gateStateFolder } from './app/gate/state-folder';
export { agentBlockedOfPrd, approveChanges, changesSinceLock, commitLock, describeChanges, describeLock, heldPrds, heldRecord, heldSet, lockFilePath, lockStatus, prepareLock, readLock, relativeTo, revertCriterionText, whoLocks } from './app/gate';
// The person's webhooks: the editor's run and approval events, sent as the command line sends them.
export { loopFinishedData, runFinishedData } from './app/notify/events';
export { notify } from './app/notify/notifier';
// The dashboard's figures: the editor's panel sums the store as `ideal-state dashboard` does.
export { aggregateDashboard } from './app/dashboard/aggregate';
export { readGateOutcomes } from './app/dashboard/gate-outcomes';
