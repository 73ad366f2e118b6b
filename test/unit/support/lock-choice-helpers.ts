import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** A workspace with these PRDs in `.ideal-state/prds`, the first the newest; `files` adds other files. */
export function prdWorkspace(prds: { name: string; status?: string; criteria: string[] }[], files: Record<string, string> = {}): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-lock-choice-'));
  const dir = path.join(ws, '.ideal-state', 'prds');
  fs.mkdirSync(dir, { recursive: true });
  const now = Date.now() / 1000;
  prds.forEach((p, i) => {
    const id = p.name.replace(/\.md$/, '');
    const text = ['---', 'prd: true', `id: ${id}`, `status: ${p.status ?? 'CRITERIA_DEFINED'}`, 'effort_level: FAST', '---', '', `# ${id}`, '', '## Ideal State Criteria', ...p.criteria, '', '## LOG', ''].join('\n');
    const file = path.join(dir, p.name);
    fs.writeFileSync(file, text);
    fs.utimesSync(file, now - i * 60, now - i * 60);
  });
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(ws, name)), { recursive: true });
    fs.writeFileSync(path.join(ws, name), text);
  }
  return ws;
}
