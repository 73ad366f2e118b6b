import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { HostAdapter } from '../../../app/gate/hosts';
import { listAt, mergeJson, putGroupedHook, putHook, runsGate, type Plan } from './json';

/**
 * Seconds a host waits for the hook: verification runs commands and tests. The same number is
 * the gate's --deadline, and the gate answers inside it: its checks end at the budget (the
 * deadline less 10 %, at least 2 s, at most 30 s) and its watchdog answers halfway between the
 * budget and the deadline (585 s of 600) whatever is still pending.
 */
export const HOOK_TIMEOUT_SECONDS = 600;
/** How an existing entry is known to be the gate's, so installing twice updates it. */
export const OURS = /\bideal-state\b.*\bgate\b|\bcli\.js\b.*\bgate\b/;

/** A host's timeout value in its own unit. Milliseconds are written as 1000 or more, which Qwen Code reads as milliseconds in every version. */
export function timeoutIn(adapter: HostAdapter, seconds: number): number {
  return adapter.timeoutUnit === 'milliseconds' ? Math.max(1000, seconds * 1000) : seconds;
}

/** The command line a host's hook runs: the launcher, the host, the workspace (quoted for a shell) and the host's timeout, so the gate answers before it. */
export function gateCommandLine(launcher: string, host: string, workspace: string, maxBlocks?: string, userLevel = false): string {
  const q = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return `${launcher} gate --host ${host} --workspace ${q(workspace)} --deadline ${HOOK_TIMEOUT_SECONDS}${maxBlocks !== undefined ? ` --max-blocks ${maxBlocks}` : ''}${userLevel ? ' --user-level' : ''}`;
}

/** The hook entry `gate install` plans for a host, merged with what its file holds. */
export async function planInstall(adapter: HostAdapter, workspace: string, command: string, maxBlocks?: string): Promise<Plan> {
  const install = adapter.install;
  const timeout = timeoutIn(adapter, HOOK_TIMEOUT_SECONDS);
  const events = 'events' in install ? [...install.events, ...(adapter.promptSubmitEvent ? [adapter.promptSubmitEvent] : [])] : [];
  switch (install.kind) {
    case 'none':
      return { ok: false, message: `ideal-state gate install: ${adapter.name}: ${install.why}` };
    case 'matcher-groups':
    case 'flat': {
      // Matcher groups, Claude Code's shape (https://code.claude.com/docs/en/hooks "Configuration"), copied by
      // Codex, Gemini CLI, Qwen Code and Augment: hooks[Event] = [{ hooks: [{ type, command, timeout }] }].
      // Flat, VS Code's (https://code.visualstudio.com/docs/agent-customization/hooks#hook-configuration-format):
      // hooks[Event] = [{ type, command, timeout }].
      const put = install.kind === 'flat' ? putHook : putGroupedHook;
      return mergeJson(workspace, install.file, (root) => {
        for (const event of events) {
          const list = listAt(root, 'hooks', event);
          if (typeof list === 'string') return list;
          put(list, { type: 'command', command, timeout }, runsGate(OURS));
        }
        return undefined;
      });
    }
    case 'own-file':
      return ownFile(adapter, workspace, command, timeout, maxBlocks);
  }
}

async function ownFile(adapter: HostAdapter, workspace: string, command: string, timeout: number, maxBlocks?: string): Promise<Plan> {
  const file = (adapter.install as { file: string }).file;
  switch (adapter.id) {
    case 'copilot':
      // https://docs.github.com/en/copilot/reference/hooks-configuration: { version: 1, hooks: { agentStop: [{ type, bash, timeoutSec }] } }.
      // userPromptSubmitted ({ timestamp, cwd, prompt }, no event name) records the session
      // baseline; its payload cannot say it is a prompt, so its command line does (--prompt).
      return mergeJson(workspace, file, (root) => {
        root.version ??= 1;
        for (const [event, bash] of [['agentStop', command], [adapter.promptSubmitEvent!, `${command} --prompt`]] as const) {
          const list = listAt(root, 'hooks', event);
          if (typeof list === 'string') return list;
          putHook(list, { type: 'command', bash, timeoutSec: timeout }, runsGate(OURS, 'bash'));
        }
        return undefined;
      });
    case 'cursor':
      // https://cursor.com/docs/agent/hooks: { version: 1, hooks: { stop: [{ command, loop_limit }] } }.
      return mergeJson(workspace, file, (root) => {
        root.version ??= 1;
        const list = listAt(root, 'hooks', 'stop');
        if (typeof list === 'string') return list;
        putHook(list, { command, loop_limit: maxBlocks !== undefined ? Number(maxBlocks) : 3 }, runsGate(OURS));
        return undefined;
      });
    case 'kiro':
      // https://kiro.dev/docs/hooks/types#agent-stop: the hook file is merged, so a user's
      // `enabled: false` survives a new install.
      return mergeJson(workspace, file, (root) => {
        const whole = JSON.parse(adapter.hookFile!(command, { timeoutSeconds: HOOK_TIMEOUT_SECONDS })) as Record<string, unknown>;
        for (const [key, value] of Object.entries(whole)) if (key !== 'enabled' || root.enabled === undefined) root[key] = value;
        return undefined;
      });
    default: {
      const before = await fs.readFile(path.join(workspace, ...file.split('/')), 'utf8').catch(() => undefined);
      if (before !== undefined && !OURS.test(before)) return { ok: false, message: `ideal-state gate install: ${file} already exists and is not the gate's; it is left as it is. Make it run \`${command}\`, or remove it and install again.` };
      const after = adapter.hookFile!(command, { timeoutSeconds: HOOK_TIMEOUT_SECONDS, ...(maxBlocks !== undefined ? { maxBlocks: Number(maxBlocks) } : {}) });
      return { ok: true, change: { relative: file, before, after } };
    }
  }
}
