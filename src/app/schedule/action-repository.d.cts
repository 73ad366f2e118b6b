export declare const DEFAULT_ACTION_REPOSITORY: string;
export type ActionRepository = { ok: true; repository: string; from: 'default' | 'package.json' } | { ok: false; message: string };
export declare function actionRepository(manifest: { repository?: unknown } | undefined): ActionRepository;
