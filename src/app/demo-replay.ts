import type { ScriptedModel } from '../llm/providers/scripted';
import type { ModelRouter } from '../llm/router';
import type { LanguageModel } from '../llm/types';

/**
 * A scripted demo replays one recorded run: the same answers, the same edit. On a workspace
 * that already holds that edit (an earlier demo run nobody undid) the replay would make it a
 * second time and then answer the run's next questions with the wrong steps. So a run whose
 * models include a demo refuses to start there, and says why and what to do.
 */
export async function demoReplayRefusal(models: Iterable<LanguageModel>, read: (relative: string) => Promise<string | undefined>): Promise<string | undefined> {
  for (const model of demos(models)) {
    for (const edit of model.scriptedEdits) {
      const text = await read(edit.path).catch(() => undefined);
      const redo = `undo that run (Ideal State: Undo Run Changes, or \`ideal-state undo RUN_ID\`) or restore ${edit.path}`;
      const other = 'for any other request, choose a real model (Ideal State: Select Model, or a models file)';
      if (text === undefined) return `The demo model (${model.displayName}) replays one recorded run, which edits ${edit.path}; this workspace has no such file. Run the demo on the sample workspace (npm start); ${other}.`;
      const added = (edit.replace.startsWith(edit.find) ? edit.replace.slice(edit.find.length) : edit.replace).trim();
      if (added !== '' && text.includes(added)) return `The demo model (${model.displayName}) replays one recorded run, and ${edit.path} already holds the edit it makes, from an earlier demo run. To watch the demo again, ${redo}; ${other}.`;
      if (!text.includes(edit.find)) return `The demo model (${model.displayName}) replays one recorded run, and ${edit.path} no longer has the text its edit replaces. To watch the demo again, ${redo}; ${other}.`;
    }
  }
  return undefined;
}

/**
 * A demo answers one request; a loop asks a sub-run per file, each with its own request, which
 * a demo's steps do not answer. Refused before the loop starts (a verify-only loop calls no model).
 */
export function demoLoopRefusal(models: Iterable<LanguageModel>): string | undefined {
  const demo = demos(models)[0];
  if (!demo) return undefined;
  return `The demo model (${demo.displayName}) answers ${demo.demo} only, so it cannot work the files of a loop: each file's sub-run asks its own questions. Choose a real model for loop mode (Ideal State: Select Model, or a models file); verifying the files only (--verify-only) needs no model.`;
}

function demos(models: Iterable<LanguageModel>): ScriptedModel[] {
  return [...new Set(models)].filter((m): m is ScriptedModel => m.kind === 'scripted' && m.demo !== undefined && 'scriptedEdits' in m);
}

/** Every model a router resolved (a slot that failed to resolve has none). */
export function routedModels(models: Pick<ModelRouter, 'resolved'>): LanguageModel[] {
  return [...(models.resolved?.slots.values() ?? [])].flatMap((slot) => (slot.ok ? [slot.model] : []));
}
