// The scripted model every fake provider speaks for: it says "done" and stops; when the gate's
// block reason is in the conversation and the missing file is still missing, it creates the
// file with the host's own write (or shell) tool; then it says "done" again. It records what
// each agent request carried so a test can tell the reason reached the model.
import { existsSync } from 'node:fs';

/** The text every block reason of the gate starts with (src/app/gate/verdict.ts, failingReason). */
export const REASON_MARK = 'Ideal State: not done.';
export const FIX_CONTENT = '# Changelog\n\n- written after the stop gate sent the agent back\n';

/**
 * How each host's tools are called to write the missing file: by the tool's name as the host
 * declares it in its request's `tools`. Learned from the requests the real binaries send.
 */
const WRITERS = [
  ['Write', (file) => ({ file_path: file, content: FIX_CONTENT })], // Claude Code
  ['write_file', (file) => ({ file_path: file, content: FIX_CONTENT })], // Gemini CLI, Qwen Code
  ['write', (file) => ({ filePath: file, content: FIX_CONTENT })], // opencode
  ['create', (file) => ({ path: file, file_text: FIX_CONTENT })], // Copilot CLI
  ['exec_command', (file) => ({ cmd: shellWrite(file) })], // Codex (unified exec)
  ['shell_command', (file) => ({ command: shellWrite(file) })], // Codex
  ['shell', (file) => ({ command: ['bash', '-lc', shellWrite(file)] })], // Codex (classic)
  ['bash', (file) => ({ command: shellWrite(file), description: 'write the changelog' })], // Copilot CLI
];

/** A shell command that writes `content` to `file` exactly (base64, so no quoting or expansion). */
export function shellWrite(file, content = FIX_CONTENT) {
  return `printf '%s' ${Buffer.from(content).toString('base64')} | base64 -d > '${file.replace(/'/g, `'\\''`)}'`;
}

/**
 * How each host's shell tool is called with a command line, by the name the host declares.
 * Learned from the requests the real binaries send.
 */
const SHELLS = [
  ['Bash', (command) => ({ command, description: 'run a command' })], // Claude Code
  ['exec_command', (command) => ({ cmd: command })], // Codex (unified exec)
  ['shell_command', (command) => ({ command })], // Codex
  ['shell', (command) => ({ command: ['bash', '-lc', command] })], // Codex (classic)
  ['run_shell_command', (command) => ({ command, description: 'run a command' })], // Gemini CLI, Qwen Code
  ['bash', (command) => ({ command, description: 'run a command' })], // opencode, Copilot CLI
];

/** The host's shell tool called with `command`, or undefined when it declares none of them. */
export function shellCall(toolNames, command) {
  const shell = SHELLS.find(([name]) => toolNames.includes(name));
  return shell ? { kind: 'tool', name: shell[0], input: shell[1](command) } : undefined;
}

function count(text, mark) {
  return text.split(mark).length - 1;
}

/**
 * The model as a cheat (issue 23's cheats, done by an agent under the real host): it makes
 * its move on what the gate holds it to (`cheat`, a shell command) either at once or after
 * the first block; it stops; when a block reason newer than the cheat reaches it, it keeps
 * that reason's text (`afterCheat`, what the test checks), undoes the cheat and does the work
 * (`fix`), and stops again.
 */
export class CheatScript {
  /** @param {{ cheat: () => string, fix: () => string, when: 'first' | 'after-block' }} options */
  constructor({ cheat, fix, when }) {
    this.cheat = cheat;
    this.fix = fix;
    this.when = when;
    this.turns = [];
    this.problems = [];
    this.reasonsAtCheat = undefined;
    this.afterCheat = undefined;
    this.fixed = false;
  }

  next({ toolNames, text }) {
    if (toolNames.length === 0) return { kind: 'text', text: 'ok' };
    const reasons = count(text, REASON_MARK);
    const act = (move, command) => {
      const call = shellCall(toolNames, command);
      if (call) {
        this.turns.push({ move, tool: call.name, reasons });
        return call;
      }
      this.problems.push(`no known shell tool among ${toolNames.join(', ')}`);
      return undefined;
    };
    if (this.reasonsAtCheat === undefined && (this.when === 'first' || reasons > 0)) {
      this.reasonsAtCheat = reasons;
      const call = act('cheat', this.cheat());
      if (call) return call;
    } else if (this.reasonsAtCheat !== undefined && !this.fixed && reasons > this.reasonsAtCheat) {
      // The gate's answer to the stop after the cheat: from the last reason's start, as the model reads it.
      const raw = text.slice(text.lastIndexOf(REASON_MARK)).split(/(?<!\\)"/)[0];
      try {
        this.afterCheat = JSON.parse(`"${raw}"`);
      } catch {
        this.afterCheat = raw;
      }
      this.fixed = true;
      const call = act('fix', this.fix());
      if (call) return call;
    }
    this.turns.push({ move: 'stop', reasons });
    return { kind: 'text', text: 'done' };
  }

  get stops() {
    return this.turns.filter((t) => t.move === 'stop');
  }
}

/**
 * The model that cannot finish and says so (the honest exit): it stops; when a block reason
 * reaches it, it keeps whether that reason named the exit (`sawExit`), runs `exit` (the
 * `gate blocked` command line) through the host's shell tool, and stops again.
 */
export class BlockedScript {
  /** @param {{ exit: () => string }} options */
  constructor({ exit }) {
    this.exit = exit;
    this.turns = [];
    this.problems = [];
    this.sawExit = undefined;
  }

  next({ toolNames, text }) {
    if (toolNames.length === 0) return { kind: 'text', text: 'ok' };
    const reasons = count(text, REASON_MARK);
    if (reasons > 0 && this.sawExit === undefined) {
      this.sawExit = text.slice(text.lastIndexOf(REASON_MARK)).includes('gate blocked --workspace');
      const call = shellCall(toolNames, this.exit());
      if (call) {
        this.turns.push({ move: 'exit', tool: call.name, reasons });
        return call;
      }
      this.problems.push(`no known shell tool among ${toolNames.join(', ')}`);
    }
    this.turns.push({ move: 'stop', reasons });
    return { kind: 'text', text: 'I cannot finish this: it needs a person.' };
  }

  get stops() {
    return this.turns.filter((t) => t.move === 'stop');
  }
}

/**
 * The model that uses the Ideal State MCP server: when the request declares the server's
 * verify tool (named as the host names it), it calls it once with the PRD; it keeps the
 * tool's answer as it came back in the next request (`answer`), and stops.
 *
 * Hosts that defer MCP tools (Qwen Code: its `tool_search` and `tool_call` bridge, the tools
 * named in a "deferred tools" reminder of the request) are used as their own tool
 * descriptions tell a model to: the verify tool's schema fetched with
 * `tool_search {"query": "select:NAME"}`, then called with `tool_call {"name", "arguments"}`.
 */
export class McpScript {
  /** @param {{ tool: RegExp, input: object }} options */
  constructor({ tool, input }) {
    this.tool = tool;
    this.input = input;
    this.turns = [];
    this.problems = [];
    /** The verify tool's name as the host named it, once called. */
    this.called = undefined;
    /** How the host offered it: 'declared' (in the request's tools) or 'deferred' (named in its text, called through the bridge). */
    this.offered = undefined;
    this.answer = undefined;
    /** The request the model made its call in (it must not hold outcomes yet). */
    this.before = undefined;
    this.toolLists = [];
    this.searched = undefined;
  }

  next({ toolNames, text }) {
    if (toolNames.length === 0) return { kind: 'text', text: 'ok' };
    this.toolLists.push(toolNames);
    if (this.called && this.answer === undefined) this.answer = text;
    if (!this.called) {
      const declared = toolNames.find((n) => this.tool.test(n));
      if (declared) return this.call('declared', declared, { kind: 'tool', name: declared, input: this.input }, text);
      const deferred = this.deferredName(text);
      if (deferred && toolNames.includes('tool_search') && toolNames.includes('tool_call')) {
        if (this.searched !== deferred) {
          this.searched = deferred;
          this.turns.push({ move: 'tool', tool: 'tool_search' });
          return { kind: 'tool', name: 'tool_search', input: { query: `select:${deferred}` } };
        }
        return this.call('deferred', deferred, { kind: 'tool', name: 'tool_call', input: { name: deferred, arguments: this.input } }, text);
      }
    }
    this.turns.push({ move: 'stop' });
    return { kind: 'text', text: 'done' };
  }

  call(offered, name, move, text) {
    this.called = name;
    this.offered = offered;
    this.before = text;
    this.turns.push({ move: 'tool', tool: move.name, offered });
    return move;
  }

  /** A tool name matching the verify tool, quoted in the request's text (a deferred tool's listing). */
  deferredName(text) {
    for (const m of text.matchAll(/\\?"([A-Za-z0-9_.-]{1,128})\\?"/g)) if (this.tool.test(m[1])) return m[1];
    return undefined;
  }
}

export class ModelScript {
  /** @param {{ file: string }} options the absolute path of the file the criterion needs */
  constructor({ file }) {
    this.file = file;
    /** One entry per agent request: what it carried and what the model did. */
    this.turns = [];
    this.toolCalls = 0;
    this.problems = [];
  }

  /**
   * The next move for a request. `toolNames` are the tools the request declares (none: a side
   * request such as a title or a summary, answered with plain text); `text` is the request's
   * whole body as text, searched for the block reason.
   * @returns {{ kind: 'text', text: string } | { kind: 'tool', name: string, input: object }}
   */
  next({ toolNames, text }) {
    if (toolNames.length === 0) return { kind: 'text', text: 'ok' };
    const sawReason = text.includes(REASON_MARK);
    const fixed = existsSync(this.file);
    if (sawReason && !fixed && this.toolCalls < 2) {
      const writer = WRITERS.find(([name]) => toolNames.includes(name));
      if (writer) {
        this.toolCalls++;
        this.turns.push({ move: 'tool', tool: writer[0], sawReason });
        return { kind: 'tool', name: writer[0], input: writer[1](this.file) };
      }
      this.problems.push(`no known write tool among ${toolNames.join(', ')}`);
    }
    this.turns.push({ move: 'stop', sawReason, fixed });
    return { kind: 'text', text: 'done' };
  }

  /** The stops the model made. */
  get stops() {
    return this.turns.filter((t) => t.move === 'stop');
  }
}

/**
 * The model that never does the work: it says "done" at every agent turn, the gate's reason
 * or not. Under a gate installed with `--max-blocks 1` the first stop is blocked and the
 * second is let through with the gate's warning, which the test looks for where the host
 * shows it to the user.
 */
export class StubbornScript {
  constructor() {
    this.turns = [];
    this.problems = [];
  }

  next({ toolNames, text }) {
    if (toolNames.length === 0) return { kind: 'text', text: 'ok' };
    this.turns.push({ move: 'stop', sawReason: text.includes(REASON_MARK) });
    return { kind: 'text', text: 'done' };
  }

  get stops() {
    return this.turns.filter((t) => t.move === 'stop');
  }
}
