import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { lineDiff } from '../agent/line-diff';
import { parseJsonc } from '../verify/jsonc';
import { GATE_HOSTS, HOST_NAMES, type GateHost } from './gate-hosts';
import type { VerifyIo } from './verify';

export const GATE_INSTALL_USAGE = `Usage: ideal-state gate install <${GATE_HOSTS.join('|')}> [options]

Writes the stop hook that runs \`ideal-state gate\` into the workspace, in the host's own
configuration, keeping everything already there. Shows the change first and asks (--yes
writes without asking; without a terminal, nothing is written unless --yes is given).
  claude-code  .claude/settings.json            hooks.Stop
  vscode       .github/hooks/ideal-state.json   hooks.Stop
  kiro         .kiro/hooks/ideal-state-gate.kiro.hook  (Agent Stop, shell command)
  cline        .clinerules/hooks/TaskComplete   (an executable script)

Options:
  --workspace DIR   the workspace (default: the current directory)
  --command CMD     how the hook starts Ideal State (default: ideal-state, on PATH); e.g.
                    "npx ideal-state" or "node /path/to/dist/cli.js"
  --max-blocks N    passed on to the gate (default: the gate's, 3)
  --yes             write without asking
`;

/** Seconds a host waits for the hook: verification runs commands and tests. */
const HOOK_TIMEOUT_SECONDS = 600;
/** How an existing entry is known to be the gate's, so installing twice updates it. */
const OURS = /\bideal-state\b.*\bgate\b|\bcli\.js\b.*\bgate\b/;

interface Planned {
  /** Workspace-relative, forward slashes. */
  relative: string;
  before: string | undefined;
  after: string;
  executable?: boolean;
}

type Plan = { ok: true; change: Planned } | { ok: false; message: string };

export async function gateInstallCommand(argv: string[], io: VerifyIo): Promise<number> {
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        workspace: { type: 'string' },
        command: { type: 'string' },
        'max-blocks': { type: 'string' },
        yes: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    io.err(`ideal-state gate install: ${(error as Error).message}\n\n${GATE_INSTALL_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(GATE_INSTALL_USAGE);
    return 0;
  }
  const host = positionals[0] as GateHost | undefined;
  if (positionals.length !== 1 || !host || !GATE_HOSTS.includes(host)) {
    io.err(`ideal-state gate install: name one host: ${GATE_HOSTS.join(', ')}\n\n${GATE_INSTALL_USAGE}`);
    return 2;
  }
  if (values['max-blocks'] !== undefined && !/^\d+$/.test(values['max-blocks'])) {
    io.err(`ideal-state gate install: --max-blocks takes a whole number from 0, not "${values['max-blocks']}"`);
    return 2;
  }
  const workspace = path.resolve(values.workspace ?? process.cwd());
  const launcher = values.command?.trim() || 'ideal-state';
  const command = `${launcher} gate --host ${host}${values['max-blocks'] !== undefined ? ` --max-blocks ${values['max-blocks']}` : ''}`;

  const plan = await planInstall(host, workspace, command);
  if (!plan.ok) {
    io.err(plan.message);
    return 2;
  }
  const { relative, before, after } = plan.change;
  if (before === after) {
    io.out(`${relative} already runs the gate for ${HOST_NAMES[host]}; nothing to change.`);
    return 0;
  }
  io.out(lineDiff(relative, before, after).text);
  if (!values.yes) {
    if (!io.ask) {
      io.err(`ideal-state gate install: ${relative} not written: there is no terminal to ask; pass --yes to write it`);
      return 1;
    }
    const answer = (await io.ask(`Write ${relative}? [y/N] `)).trim().toLowerCase();
    if (answer !== 'y' && answer !== 'yes') {
      io.err(`ideal-state gate install: ${relative} not written`);
      return 1;
    }
  }
  const file = path.join(workspace, ...relative.split('/'));
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.ideal-state-${process.pid}.tmp`;
  await fs.writeFile(tmp, after, { encoding: 'utf8', ...(plan.change.executable ? { mode: 0o755 } : {}) });
  await fs.rename(tmp, file);
  io.out(`wrote ${relative}: ${HOST_NAMES[host]} now runs \`${command}\` when its agent wants to stop.`);
  return 0;
}

export async function planInstall(host: GateHost, workspace: string, command: string): Promise<Plan> {
  switch (host) {
    case 'claude-code':
      // https://code.claude.com/docs/en/hooks ("Configuration"): .claude/settings.json
      // `hooks.Stop` is a list of matcher groups, each with `hooks: [{ type: "command", command, timeout }]`.
      return mergeJson(workspace, '.claude/settings.json', (root) => {
        const stop = listAt(root, 'hooks', 'Stop');
        if (typeof stop === 'string') return stop;
        const entry = { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS };
        for (const group of stop) {
          const hooks = isObject(group) && Array.isArray(group.hooks) ? group.hooks : [];
          const i = hooks.findIndex((h) => isObject(h) && typeof h.command === 'string' && OURS.test(h.command));
          if (i >= 0) {
            hooks[i] = { ...(hooks[i] as object), ...entry };
            return undefined;
          }
        }
        stop.push({ hooks: [entry] });
        return undefined;
      });
    case 'vscode':
      // https://code.visualstudio.com/docs/agent-customization/hooks#hook-file-locations:
      // workspace hooks in .github/hooks/*.json, `hooks.Stop` a list of
      // { type: "command", command, timeout } (#hook-configuration-format).
      return mergeJson(workspace, '.github/hooks/ideal-state.json', (root) => {
        const stop = listAt(root, 'hooks', 'Stop');
        if (typeof stop === 'string') return stop;
        const entry = { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS };
        const i = stop.findIndex((h) => isObject(h) && typeof h.command === 'string' && OURS.test(h.command));
        if (i >= 0) stop[i] = { ...(stop[i] as object), ...entry };
        else stop.push(entry);
        return undefined;
      });
    case 'kiro':
      // https://kiro.dev/docs/hooks/types#agent-stop and /docs/hooks/actions: a hook file in
      // .kiro/hooks/ triggered on agentStop whose action runs a shell command.
      return mergeJson(workspace, '.kiro/hooks/ideal-state-gate.kiro.hook', (root) => {
        root.enabled ??= true;
        root.name = 'Ideal State stop gate';
        root.description = 'Verifies the workspace PRD when the agent stops; a failing CRITICAL criterion is sent back to the agent.';
        root.version ??= '1';
        root.when = { type: 'agentStop' };
        root.then = { type: 'runCommand', command, timeout: HOOK_TIMEOUT_SECONDS };
        return undefined;
      });
    case 'cline':
      return clineScript(workspace, command);
  }
}

/**
 * https://docs.cline.bot/features/hooks/hook-reference: a project hook is an executable file
 * named after the hook (`TaskComplete`, no extension) in `.clinerules/hooks/`. A script is not
 * merged: one the gate did not write is left alone.
 */
async function clineScript(workspace: string, command: string): Promise<Plan> {
  const relative = '.clinerules/hooks/TaskComplete';
  const before = await fs.readFile(path.join(workspace, relative), 'utf8').catch(() => undefined);
  if (before !== undefined && !OURS.test(before)) {
    return { ok: false, message: `ideal-state gate install: ${relative} already exists and is not the gate's; it is left as it is. Make it run \`${command}\` (its stdout is Cline's answer), or remove it and install again.` };
  }
  const after = ['#!/usr/bin/env bash', '# Ideal State stop gate, written by `ideal-state gate install cline`.', '# Cline sends the TaskComplete payload on stdin; the gate answers with {"cancel": …}.', `exec ${command}`, ''].join('\n');
  return { ok: true, change: { relative, before, after, executable: true } };
}

/**
 * Reads a JSON configuration, lets `change` edit it, and plans the new text. A file with
 * comments, or one that is not valid JSON, is reported with its line and never rewritten:
 * rewriting would lose what the gate does not understand.
 */
async function mergeJson(workspace: string, relative: string, change: (root: Record<string, unknown>) => string | undefined): Promise<Plan> {
  const before = await fs.readFile(path.join(workspace, ...relative.split('/')), 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : error));
  if (before instanceof Error) return { ok: false, message: `ideal-state gate install: cannot read ${relative}: ${(before as NodeJS.ErrnoException).code ?? before.message}` };
  let root: unknown = {};
  if (before !== undefined && before.trim() !== '') {
    try {
      root = JSON.parse(before.replace(/^\uFEFF/, ''));
    } catch (error) {
      const where = jsonErrorLocation(before, (error as Error).message);
      const lenient = parseJsonc(before);
      const why = lenient.ok ? 'it has comments or trailing commas, which rewriting it would lose' : `it is not valid JSON (${(error as Error).message})`;
      return { ok: false, message: `${relative}:${where.line}:${where.column}: error: ${why}; it is left as it is. Fix it, or add the gate's hook by hand (see ideal-state gate install --help).` };
    }
  }
  if (!isObject(root)) return { ok: false, message: `${relative}:1:1: error: the file holds ${Array.isArray(root) ? 'a list' : typeof root}, not an object; it is left as it is` };
  const problem = change(root);
  if (problem) return { ok: false, message: `${relative}: error: ${problem}; it is left as it is` };
  const after = `${JSON.stringify(root, null, indentOf(before))}\n`;
  return { ok: true, change: { relative, before, after: before !== undefined && before.replace(/\s+$/, '') === after.replace(/\s+$/, '') ? before : after } };
}

/** `root[a][b]` as a list, created when absent; a message when something else is there. */
function listAt(root: Record<string, unknown>, a: string, b: string): unknown[] | string {
  const outer = (root[a] ??= {});
  if (!isObject(outer)) return `"${a}" is not an object`;
  const list = (outer[b] ??= []);
  if (!Array.isArray(list)) return `"${a}.${b}" is not a list`;
  return list;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The indentation the file already uses (default two spaces). */
function indentOf(text: string | undefined): string {
  const m = text ? /\n([ \t]+)\S/.exec(text) : null;
  return m ? m[1]! : '  ';
}

/** Line and column (1-based) of the first thing JSON does not allow (JSON.parse's messages do not always say). */
function jsonErrorLocation(text: string, message: string): { line: number; column: number } {
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc) return { line: Number(lc[1]), column: Number(lc[2]) };
  const offset = firstJsonError(text.replace(/^\uFEFF/, ''));
  const upTo = text.slice(0, offset).split('\n');
  return { line: upTo.length, column: upTo[upTo.length - 1]!.length + 1 };
}

/** A small JSON reader that only finds where the text stops being JSON. */
function firstJsonError(text: string): number {
  let i = 0;
  const blank = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const value = (): void => {
    blank();
    const ch = text[i];
    if (ch === '{') {
      i++;
      blank();
      if (text[i] === '}') return void i++;
      for (;;) {
        blank();
        if (text[i] !== '"') fail();
        string();
        blank();
        if (text[i] !== ':') fail();
        i++;
        value();
        blank();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail();
      }
    } else if (ch === '[') {
      i++;
      blank();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        blank();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail();
      }
    } else if (ch === '"') string();
    else {
      const m = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i));
      if (!m) fail();
      i += m![0].length;
    }
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\n') fail();
      i += text[i] === '\\' ? 2 : 1;
    }
    if (i >= text.length) fail();
    i++;
  };
  try {
    value();
    blank();
    return i < text.length ? i : text.length;
  } catch (at) {
    return typeof at === 'number' ? at : 0;
  }
}
