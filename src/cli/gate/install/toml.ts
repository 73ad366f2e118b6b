import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Plan } from './json';

/**
 * Plans one `[table]` of a TOML configuration (Codex's `.codex/config.toml`,
 * https://developers.openai.com/codex/mcp: `[mcp_servers.NAME]` with `command` and `args`):
 * the table's `values` are replaced when it is there (its other keys and sub-tables such as
 * `[mcp_servers.ideal-state.env]` stay), and the table is appended otherwise. Everything else in the file,
 * comments included, is kept as it is. A file that already names the server another way
 * (dotted keys or an inline table) is left alone, with what to do.
 */
export async function mergeTomlTable(workspace: string, relative: string, table: [string, string], values: Record<string, string | string[]>): Promise<Plan> {
  const before = await fs.readFile(path.join(workspace, ...relative.split('/')), 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : error));
  if (before instanceof Error) return { ok: false, message: `ideal-state gate install: cannot read ${relative}: ${(before as NodeJS.ErrnoException).code ?? before.message}` };
  const [outer, name] = table;
  const key = (k: string) => `(?:${k.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}|"${k.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}")`;
  const header = `[${outer}.${/^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name)}]`;
  const body = Object.entries(values).map(([k, v]) => `${k} = ${Array.isArray(v) ? `[${v.map((s) => JSON.stringify(s)).join(', ')}]` : JSON.stringify(v)}`);
  const section = [header, ...body].join('\n');
  const lines = (before ?? '').split('\n');
  const headerAt = lines.findIndex((l) => new RegExp(`^\\s*\\[\\s*${key(outer)}\\s*\\.\\s*${key(name)}\\s*\\]\\s*(#.*)?$`).test(l));
  if (headerAt < 0) {
    const other = lines.findIndex((l) => new RegExp(`^\\s*${key(outer)}\\s*(=|\\.\\s*${key(name)}\\b)`).test(l));
    if (other >= 0) return { ok: false, message: `${relative}:${other + 1}:1: error: ${outer} is written as dotted keys or an inline table here; it is left as it is. Add the ${header} table by hand: ${section.replace(/\n/g, '; ')}` };
    const text = before === undefined || before.trim() === '' ? `${section}\n` : `${before.replace(/\s*$/, '')}\n\n${section}\n`;
    return { ok: true, change: { relative, before, after: text } };
  }
  let end = headerAt + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end++;
  // The table's other keys (env, cwd, timeouts) and comments stay; the keys written here are replaced.
  const kept: string[] = [];
  for (let i = headerAt + 1; i < end; i++) {
    const ours = Object.keys(values).find((k) => new RegExp(`^\\s*${key(k)}\\s*=`).test(lines[i]!));
    if (!ours) {
      kept.push(lines[i]!);
      continue;
    }
    // A multi-line array value ends at its closing bracket.
    if (/=\s*\[[^\]]*$/.test(lines[i]!)) while (i + 1 < end && !/\]/.test(lines[i]!)) i++;
  }
  const after = [...lines.slice(0, headerAt), ...section.split('\n'), ...kept, ...lines.slice(end)].join('\n');
  return { ok: true, change: { relative, before, after: after.endsWith('\n') ? after : `${after}\n` } };
}
