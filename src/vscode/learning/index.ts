import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { Settings } from '../../model/settings';
import type { ModelsHost } from '../models/models-host';
import type { StoreHost } from '../store-host';
import { LearningDocuments, REFLECTION_SCHEME, RUN_SCHEME } from './learning-documents';
import { registerLearningCommands } from './learning-commands';
import { LearningHost } from './learning-host';
import { RatingsStatus } from './ratings-status';
import { RATINGS_VIEW_ID, RatingsViewProvider } from './ratings-view';
import { ReflectionsTreeProvider } from './reflections-tree';

export { LearningHost } from './learning-host';
export { ReflectionsTreeProvider, type ReflectionNode } from './reflections-tree';

export interface LearningSupport extends vscode.Disposable {
  readonly host: LearningHost;
  readonly reflections: ReflectionsTreeProvider;
  readonly status: RatingsStatus;
  readonly ratings: RatingsViewProvider;
}

/** The sidebar's Ratings and Reflections, the ratings status bar item, and the learning commands. */
export function registerLearningSupport(context: vscode.ExtensionContext, stores: StoreHost, models: ModelsHost, settings: Settings, log: Logger): LearningSupport {
  const version = String((context.extension.packageJSON as { version?: string }).version ?? 'unknown');
  const host = new LearningHost(stores, models, settings, log, version);
  const reflections = new ReflectionsTreeProvider(host);
  const documents = new LearningDocuments(host);
  const status = new RatingsStatus(host);
  const ratings = new RatingsViewProvider(context.extensionUri, host);
  const disposable = vscode.Disposable.from(
    host,
    reflections,
    documents,
    status,
    ratings,
    vscode.window.registerWebviewViewProvider(RATINGS_VIEW_ID, ratings),
    vscode.window.registerTreeDataProvider('idealState.reflections', reflections),
    vscode.workspace.registerTextDocumentContentProvider(REFLECTION_SCHEME, documents),
    vscode.workspace.registerTextDocumentContentProvider(RUN_SCHEME, documents),
    registerLearningCommands(host),
    // The figures come with the store's first opening (a view, a run, a command), not at activation.
    stores.onDidOpen(() => void status.update()),
  );
  return { host, reflections, status, ratings, dispose: () => disposable.dispose() };
}
