import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Script, ScriptedModel } from '../../../src/llm/providers/scripted';
import { Store } from '../../../src/store/store';
export { storeFinishedRun, type PastCriterion } from '../support/learning-seed';

export function tempStoreFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-learning-')), 'ideal-state.sqlite');
}

export async function openTempStore(): Promise<Store> {
  return Store.open({ file: tempStoreFile(), checkpointIdleMs: 60_000 });
}

/** A scripted model (a test tool, labelled "scripted: …") answering structured requests in order. */
export function scripted(...objects: unknown[]): ScriptedModel {
  return new ScriptedModel('learning-test.yaml', Script.parse({ name: 'learning-test', steps: objects.map((object) => ({ object })) }));
}

