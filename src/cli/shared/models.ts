import * as path from 'node:path';
import { formatProblem } from '../../model/data-file';
import type { MemoryLogger } from '../../model/log';
import { SETTINGS } from '../../model/settings';
import { describeLesson } from '../../llm/adapt';
import { LlmConfig, parseLlmConfig } from '../../llm/config';
import { resolveModels, type ResolvedModels, type ResolveOptions } from '../../llm/resolve';
import type { WorkspaceConfig } from '../../node/workspace-config';
import type { Store } from '../../store/store';
import type { CliIo } from './io';
import { trustCommandFor } from './workspace-config';

export type Adapting = Pick<ResolveOptions, 'lessons' | 'onLesson' | 'logger'>;

/**
 * What servers refused in earlier runs (so it is not sent again), and where a new refusal
 * goes: the store, the log and the terminal.
 */
export function lessonsOf(store: Store, logger: MemoryLogger, io: Pick<CliIo, 'err'> | undefined): Adapting {
  return {
    lessons: store.modelLessons.list(),
    logger,
    onLesson: (lesson) => {
      store.modelLessons.add(lesson);
      io?.err(`[model] ${describeLesson(lesson)}`);
    },
  };
}

/**
 * The models: `--provider scripted --script FILE`, else the workspace models file when its
 * content is trusted (`config` says what it ignored), else the environment.
 */
export async function models(v: { provider?: string; script?: string; model?: string }, workspace: string, env: NodeJS.ProcessEnv, config: WorkspaceConfig, adapting: Adapting = {}): Promise<ResolvedModels> {
  if (v.provider === 'scripted') {
    if (!v.script) throw new Error('--provider scripted needs --script FILE');
    const script = path.resolve(v.script);
    const scripted = LlmConfig.parse({ version: 1, providers: [{ id: 'scripted', kind: 'scripted', script }], models: [{ id: 'scripted', provider: 'scripted', model: path.basename(script) }], routing: { default: 'scripted' } });
    return resolveModels(scripted, { env });
  }
  if (v.provider !== undefined && v.provider !== 'openai' && v.provider !== 'anthropic') throw new Error(`--provider is openai, anthropic or scripted, not "${v.provider}"`);
  const read = v.provider === undefined ? await config.read(SETTINGS.modelsConfigFile.default) : undefined;
  if (read !== undefined) {
    const file = path.join(workspace, SETTINGS.modelsConfigFile.default);
    // Used with --trust-workspace, a file the user has not read may not choose which key goes where.
    const parsed = parseLlmConfig(file, read.text, { untrusted: read.trust === 'flag' });
    if (!parsed.ok) {
      const keyRuleOnly = read.trust === 'flag' && parseLlmConfig(file, read.text).ok;
      const fix = keyRuleOnly ? `\n(run \`${trustCommandFor(workspace, read.file)}\` after reading it to use the file as it is)` : '';
      throw new Error(`${parsed.problems.map(formatProblem).join('\n')}${fix}`);
    }
    return resolveModels(parsed.value, { env, ...adapting, ...(v.model ? { model: v.model } : {}), baseDir: workspace });
  }
  return resolveModels(undefined, { env, ...adapting, ...(v.model ? { model: v.model } : {}), ...(v.provider ? { provider: v.provider as 'openai' | 'anthropic' } : {}) });
}
