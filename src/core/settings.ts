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
  modelsConfigFile: { key: 'idealState.models.configFile', default: '.ideal-state/models.yaml' as string },
  defaultModel: { key: 'idealState.models.default', default: '' as string },
  verifyAllowedCommands: { key: 'idealState.verify.allowedCommands', default: [] as readonly string[] },
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
