import type { LlmConfigInput } from './config';

/**
 * With nothing configured: look for a model the user already has, in the editor (vscode.lm)
 * or as an OpenAI-compatible server on this machine. Pure decisions; the editor passes in
 * what it found and shows the "nothing available" message with a button.
 */

/** An OpenAI-compatible server that usually listens on a fixed port. */
export interface LocalServerKind {
  readonly name: string;
  readonly port: number;
  /** Where the model list is, relative to the server (the OpenAI `GET /v1/models`). */
  readonly modelsPath: string;
}

export const LOCAL_SERVERS: readonly LocalServerKind[] = [
  { name: 'Ollama', port: 11434, modelsPath: '/v1/models' },
  { name: 'LM Studio', port: 1234, modelsPath: '/v1/models' },
  { name: 'vLLM', port: 8000, modelsPath: '/v1/models' },
  { name: 'llama.cpp', port: 8080, modelsPath: '/v1/models' },
];

export interface LocalServerFound {
  readonly name: string;
  /** The OpenAI base URL, e.g. http://127.0.0.1:11434/v1. */
  readonly baseUrl: string;
  readonly models: readonly string[];
}

export interface ProbeOptions {
  readonly servers?: readonly LocalServerKind[];
  readonly host?: string;
  /** Per server; a local server answers in milliseconds or not at all. */
  readonly timeoutMs?: number;
}

export const DEFAULT_PROBE_TIMEOUT_MS = 800;

/**
 * Asks every usual local port at once and returns the first server, in the order of the
 * list, that answered with a non-empty model list; undefined when none did. Never throws
 * for a server that is down, slow or speaks something else; a cancelled signal ends it.
 */
export async function probeLocalServers(fetchImpl: typeof fetch, signal?: AbortSignal, options: ProbeOptions = {}): Promise<LocalServerFound | undefined> {
  const servers = options.servers ?? LOCAL_SERVERS;
  const host = options.host ?? '127.0.0.1';
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  const timer = setTimeout(stop, timeoutMs);
  try {
    const answers = await Promise.all(servers.map((s) => listModels(fetchImpl, `http://${host}:${s.port}`, s.modelsPath, controller.signal)));
    for (let i = 0; i < servers.length; i++) {
      const models = answers[i];
      if (models && models.length > 0) return { name: servers[i]!.name, baseUrl: `http://${host}:${servers[i]!.port}/v1`, models };
    }
    return undefined;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
    controller.abort();
  }
}

async function listModels(fetchImpl: typeof fetch, origin: string, path: string, signal: AbortSignal): Promise<string[] | undefined> {
  try {
    const response = await fetchImpl(`${origin}${path}`, { signal, headers: { accept: 'application/json' } });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { data?: unknown };
    if (!Array.isArray(body.data)) return undefined;
    return body.data.flatMap((m) => (m && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string' ? [(m as { id: string }).id] : []));
  } catch {
    return undefined;
  }
}

/** A chat model VS Code offers through `vscode.lm` (what the editor passes in, not the API object). */
export interface EditorModelInfo {
  readonly id: string;
  readonly vendor: string;
  readonly family: string;
  readonly name?: string;
}

export type DefaultChoice =
  | {
      readonly ok: true;
      readonly config: LlmConfigInput;
      /** One line for the log and status: what was picked and why. */
      readonly description: string;
    }
  | {
      readonly ok: false;
      readonly reason: 'nothing-available';
      /** For a person, with what to do; the editor shows it with `actionLabel` as a button. */
      readonly message: string;
      readonly actionLabel: string;
    };

export const NOTHING_AVAILABLE_MESSAGE =
  'Ideal State found no language model. Set an API key (OpenAI or Anthropic) with "Ideal State: Set API Key", ' +
  'start a local OpenAI-compatible server (Ollama on port 11434, LM Studio on 1234, vLLM on 8000 or llama.cpp on 8080) with a model loaded, ' +
  'or enable a VS Code chat model provider such as GitHub Copilot. Verify Criteria works without a model.';

/**
 * The configuration to use when the user configured none: a local server and an editor
 * model together run local-first with escalation to the editor model; either alone
 * serves every role; neither gives a message saying how to set one up.
 */
export function chooseDefault(found: { readonly vscodeLmModels: readonly EditorModelInfo[]; readonly probe: LocalServerFound | undefined }): DefaultChoice {
  const editor = found.vscodeLmModels[0];
  const local = found.probe;
  const localModel = local ? pickLocalModel(local.models) : undefined;
  const providers: LlmConfigInput['providers'] = [];
  const models: LlmConfigInput['models'] = [];
  if (local && localModel) {
    providers.push({ id: 'local', kind: 'openai', baseUrl: local.baseUrl, class: 'local' });
    models.push({ id: 'local', provider: 'local', model: localModel });
  }
  if (editor) {
    providers.push({ id: 'vscode-lm', kind: 'vscode-lm', class: 'frontier' });
    models.push({ id: 'editor', provider: 'vscode-lm', model: editor.id });
  }
  if (models.length === 0) return { ok: false, reason: 'nothing-available', message: NOTHING_AVAILABLE_MESSAGE, actionLabel: 'Set API Key' };
  const first = models[0]!.id;
  const parts = [
    ...(local && localModel ? [`${localModel} on ${local.name} (${local.baseUrl})`] : []),
    ...(editor ? [`${editor.name ?? editor.family} from ${editor.vendor} in VS Code`] : []),
  ];
  return {
    ok: true,
    config: { version: 1, providers, models, routing: { default: first, ...(models.length > 1 ? { escalation: { to: 'editor' } } : {}) } },
    description: models.length > 1 ? `no models configured: using ${parts[0]}, escalating to ${parts[1]}` : `no models configured: using ${parts[0]}`,
  };
}

/** The first chat model of a server's list; embedding models cannot chat. */
function pickLocalModel(models: readonly string[]): string | undefined {
  return models.find((m) => !/embed/i.test(m));
}
