// The scripted model every fake provider speaks for: it says "done" and stops; when the gate's
// block reason is in the conversation and the missing file is still missing, it creates the
// file with the host's own write (or shell) tool; then it says "done" again. It records what
// each agent request carried so a test can tell the reason reached the model.
import { existsSync } from 'node:fs';

/** The text every block reason of the gate starts with (src/cli/gate.ts, failingReason). */
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

function shellWrite(file) {
  return `printf '%s' ${JSON.stringify(FIX_CONTENT)} > ${JSON.stringify(file)}`;
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
