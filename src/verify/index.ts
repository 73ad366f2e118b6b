/** The verification engine's public surface: what the editor, the CLI and the agent use. */
export { verifyCriteria, summarize } from './verify-criteria';
export { verificationCancelled } from './errors';
export { runCommand, DEFAULT_OUTPUT_BYTES, type RunCommandOptions, type RunCommandResult } from './run-command';
export { confineGlob, confinePath, type Confined } from './confine';
export { scrubEnvironment, isSecretName } from './secret-env';
export { StalenessTracker, staleAfterChange, type StalenessOptions } from './staleness';
export { buildVerificationReport, type ReportInput } from './report';
export { recordVerification, type RecordVerificationInput } from './store-verification';
export { commandsOf, commandOf } from './commands';
export { bundledRipgrep, findRipgrep } from './ripgrep-path';
export { WorkspaceTaskRunner } from './workspace-tasks';
export { effortOf, parallelismOf } from './effort';
export type { Coverage } from './verdict';
export type * from './types';
