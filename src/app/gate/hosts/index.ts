import { augment } from './augment';
import { claudeCode } from './claude-code';
import { cline } from './cline';
import { codex } from './codex';
import { copilotCli } from './copilot-cli';
import { cursor } from './cursor';
import { gemini } from './gemini';
import { kiro } from './kiro';
import { opencode } from './opencode';
import { qwen } from './qwen';
import type { GateVerdict, HostAdapter, HostAnswer, StopRequest } from './types';
import { vscode } from './vscode';

export type { GateVerdict, HookInstall, HostAdapter, HostAnswer, StopRequest, TimeoutUnit } from './types';

/** Every host, in the order a payload without `--host` is matched against them. */
export const HOST_ADAPTERS: readonly HostAdapter[] = [cline, cursor, opencode, gemini, codex, augment, vscode, copilotCli, claudeCode, qwen, kiro];

export const GATE_HOSTS = HOST_ADAPTERS.map((h) => h.id);
export type GateHost = string;

export const HOST_NAMES: Record<string, string> = Object.fromEntries(HOST_ADAPTERS.map((h) => [h.id, h.name]));

export function hostAdapter(id: string): HostAdapter | undefined {
  return HOST_ADAPTERS.find((h) => h.id === id);
}

export type PayloadRead = { ok: true; request: StopRequest } | { ok: false; message: string };

/**
 * Reads the payload. `host` comes from `--host` (what `gate install` writes); without it the
 * payload's shape tells, host by host (an empty stdin is Kiro, whose shell action sends none).
 */
export function readStopPayload(host: string | undefined, stdin: string): PayloadRead {
  const text = stdin.trim();
  let payload: Record<string, unknown> = {};
  if (text !== '') {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, message: 'the hook payload on stdin is not a JSON object' };
      payload = parsed as Record<string, unknown>;
    } catch (error) {
      return { ok: false, message: `the hook payload on stdin is not JSON: ${(error as Error).message}` };
    }
  }
  const adapter = host !== undefined ? hostAdapter(host) : HOST_ADAPTERS.find((h) => h.recognise(payload));
  if (!adapter) return { ok: false, message: host !== undefined ? `unknown host "${host}"; one of ${GATE_HOSTS.join(', ')}` : `cannot tell which agent host sent this payload (keys: ${Object.keys(payload).join(', ') || 'none'}); pass --host ${GATE_HOSTS.join('|')}` };
  // The host's own schema is the source of truth for its payload: a field of the wrong type is
  // named, not read as absent (a stop_hook_active of "true" would otherwise count as not said).
  const parsed = adapter.payload().safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    return { ok: false, message: `the hook payload on stdin is not what ${adapter.name} sends (${where}${issue?.message ?? 'unreadable'}); pass the --host of the host that runs this hook` };
  }
  return { ok: true, request: adapter.request(parsed.data) };
}

export function answerFor(request: StopRequest, verdict: GateVerdict): HostAnswer {
  return (hostAdapter(request.host) ?? claudeCode).answer(request, verdict);
}

/** What the host will do with the verdict, for the PRD's LOG. */
export function hostWill(request: StopRequest, verdict: GateVerdict['kind']): string {
  return (hostAdapter(request.host) ?? claudeCode).hostWill(verdict);
}
