/**
 * Every setting, with its type and default, in one place. The manifest's
 * `contributes.configuration` mirrors this list (a unit test keeps them in step).
 */
export const SETTINGS = {
  effortLevelsFile: { key: 'idealState.effortLevelsFile', default: '.ideal-state/effort-levels.yaml' as string },
  iscDefinitionsFolder: { key: 'idealState.iscDefinitionsFolder', default: '.ideal-state/isc' as string },
  checkpointIdleMs: { key: 'idealState.store.checkpointIdleMs', default: 2000 as number },
  checkpointJournalBytes: { key: 'idealState.store.checkpointJournalBytes', default: 8 * 1024 * 1024 as number },
  prdFolder: { key: 'idealState.prd.folder', default: '.ideal-state/prds' as string },
  // The PRD an agent's stop is held to where no person locked one; empty: the session's PRD.
  gatePrd: { key: 'idealState.gate.prd', default: '' as string },
  modelsConfigFile: { key: 'idealState.models.configFile', default: '.ideal-state/models.yaml' as string },
  defaultModel: { key: 'idealState.models.default', default: '' as string },
  // Token and money caps for every effort level; null (or 0) keeps the level's cap from the
  // models file's `budgets:`, else the shipped budgets.yaml.
  budgetCallTokens: { key: 'idealState.budgets.callTokens', default: null as number | null },
  budgetCallUsd: { key: 'idealState.budgets.callUsd', default: null as number | null },
  budgetPhaseTokens: { key: 'idealState.budgets.phaseTokens', default: null as number | null },
  budgetPhaseUsd: { key: 'idealState.budgets.phaseUsd', default: null as number | null },
  budgetRunTokens: { key: 'idealState.budgets.runTokens', default: null as number | null },
  budgetRunUsd: { key: 'idealState.budgets.runUsd', default: null as number | null },
  verifyAllowedCommands: { key: 'idealState.verify.allowedCommands', default: [] as readonly string[] },
  // A run's edits and commands need approval unless these say otherwise (never in Restricted Mode).
  runAutoApproveEdits: { key: 'idealState.run.autoApproveEdits', default: false as boolean },
  runAllowedCommands: { key: 'idealState.run.allowedCommands', default: [] as readonly string[] },
  // The person's notifications.yaml when not in the user's config folder; application scope: a workspace cannot name one.
  notificationsFile: { key: 'idealState.notifications.file', default: '' as string },
} as const;

export type SettingName = keyof typeof SETTINGS;
export type SettingValue<N extends SettingName> = (typeof SETTINGS)[N]['default'];

export interface Settings {
  get<N extends SettingName>(name: N): SettingValue<N>;
}

/** Settings from a plain object, for tests and the command line. */
export class MemorySettings implements Settings {
  constructor(private readonly values: Partial<{ [N in SettingName]: SettingValue<N> }> = {}) {}
  get<N extends SettingName>(name: N): SettingValue<N> {
    return (this.values[name] ?? SETTINGS[name].default) as SettingValue<N>;
  }
}
