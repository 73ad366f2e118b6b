import * as fs from 'node:fs/promises';
import { artifactVariables } from '../../app/loop';
import { LlmConfig } from '../../llm/config';
import { ScriptedModel } from '../../llm/providers/scripted';
import type { ResolvedModels } from '../../llm/resolve';
import { ModelRouter } from '../../llm/router';

/** Models that route nowhere: every call to the router says why (a verify-only loop without a model). */
export function noModels(reason: string): ResolvedModels {
  const config = LlmConfig.parse({ version: 1, providers: [{ id: 'none', kind: 'scripted', script: 'none' }], models: [{ id: 'none', provider: 'none', model: 'none' }], routing: { default: 'none' } });
  return { config, slots: new Map([['none', { ok: false, id: 'none', modelClass: 'local', reason }]]), source: 'environment' };
}

/**
 * `--provider scripted`: the script is one artifact's sub-run (its manager, specialist and
 * validator answers), read again for each sub-run with `${file}` and `${name}` put in, so
 * parallel agents never take each other's steps.
 */
export async function scriptPerArtifact(file: string, resolved: ResolvedModels): Promise<(artifact: string) => ModelRouter> {
  const text = await fs.readFile(file, 'utf8');
  ScriptedModel.fromText(file, text); // a broken script is a usage error before anything runs
  const id = [...resolved.slots.keys()][0]!;
  return (artifact) => {
    const vars = artifactVariables(artifact);
    const model = ScriptedModel.fromText(file, text.replace(/\$\{(file|name)\}/g, (_, k: 'file' | 'name') => vars[k]));
    return new ModelRouter({ ...resolved, slots: new Map([[id, { ok: true, model }]]) });
  };
}
