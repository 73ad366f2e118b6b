import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parseJsonc } from '../../../verify/jsonc';

/** One file `gate install` plans to write. */
export interface Planned {
  /** Workspace-relative, forward slashes. */
  relative: string;
  before: string | undefined;
  after: string;
  executable?: boolean;
  /** The folder the file is written in, when it is not the workspace (a user or managed settings folder). */
  root?: string;
  /** How the file is named to the person, when `relative` is not enough. */
  shown?: string;
}

export type Plan = { ok: true; change: Planned } | { ok: false; message: string };

/**
 * Reads a JSON configuration, lets `change` edit it, and plans the new text. A file with
 * comments, or one that is not valid JSON, is reported with its line and never rewritten:
 * rewriting would lose what the gate does not understand.
 */
export async function mergeJson(workspace: string, relative: string, change: (root: Record<string, unknown>) => string | undefined): Promise<Plan> {
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
export function listAt(root: Record<string, unknown>, a: string, b: string): unknown[] | string {
  const outer = (root[a] ??= {});
  if (!isObject(outer)) return `"${a}" is not an object`;
  const list = (outer[b] ??= []);
  if (!Array.isArray(list)) return `"${a}.${b}" is not a list`;
  return list;
}

/** Puts the gate's entry into a list of hooks: over the one `mine` finds (the person's other keys kept), else at the end. */
export function putHook(list: unknown[], entry: Record<string, unknown>, mine: (hook: unknown) => boolean): void {
  const i = list.findIndex(mine);
  if (i >= 0) list[i] = { ...(list[i] as object), ...entry };
  else list.push(entry);
}

/** The same in matcher groups (hooks[Event] = [{ hooks: [...] }]): in the group that holds the gate's, else in a group of its own. */
export function putGroupedHook(list: unknown[], entry: Record<string, unknown>, mine: (hook: unknown) => boolean): void {
  const group = list.find((g) => isObject(g) && Array.isArray(g.hooks) && g.hooks.some(mine));
  if (isObject(group)) putHook(group.hooks as unknown[], entry, mine);
  else list.push({ hooks: [entry] });
}

/** A hook whose `key` runs the gate. */
export const runsGate =
  (ours: RegExp, key = 'command') =>
  (hook: unknown): boolean =>
    isObject(hook) && typeof hook[key] === 'string' && ours.test(hook[key] as string);

export function isObject(v: unknown): v is Record<string, unknown> {
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
