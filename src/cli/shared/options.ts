/** The options of a command about a workspace folder that can answer in JSON. */
export const FOLDER_OPTIONS = {
  workspace: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

/** The options of a command that works in a workspace and records in its store. */
export const WORKSPACE_OPTIONS = {
  ...FOLDER_OPTIONS,
  store: { type: 'string' },
} as const;

/** The options that choose the models, as `run`, `loop` and `models check` resolve them (shared/models.ts). */
export const MODEL_OPTIONS = {
  model: { type: 'string' },
  provider: { type: 'string' },
  script: { type: 'string' },
  'trust-workspace': { type: 'boolean', default: false },
} as const;
