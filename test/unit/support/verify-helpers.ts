import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AnyCriterion, VerificationMethod } from '../../../src/model';
import { bundledRipgrep, findRipgrep } from '../../../src/verify/ripgrep-path';
import type { VerifyHost } from '../../../src/verify/types';
import type { VerifierContext } from '../../../src/verify/verdict';
import { REPO_ROOT } from './repo-root';

export const REPO = REPO_ROOT;

/** A real temporary folder with these files (content, or null for a folder). */
export function workspace(files: Record<string, string | Buffer | null> = {}): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-verify-')));
  for (const [name, content] of Object.entries(files)) {
    const full = path.join(root, name);
    if (content === null) fs.mkdirSync(full, { recursive: true });
    else {
      fs.mkdirSync(path.dirname(full), { recursive: true });
      fs.writeFileSync(full, content);
    }
  }
  return root;
}

let counter = 0;
export function criterion(verify: VerificationMethod | undefined, overrides: Partial<AnyCriterion> = {}): AnyCriterion {
  counter++;
  const anti = overrides.kind === 'anti-criterion';
  return {
    kind: 'criterion',
    id: anti ? `ISC-A-${counter}` : `ISC-${counter}`,
    text: 'Settings page shows a dark mode toggle switch',
    priority: 'CRITICAL',
    source: 'EXPLICIT',
    status: 'PENDING',
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T10:00:00.000Z',
    ...(verify ? { verify } : {}),
    ...overrides,
  } as AnyCriterion;
}

export function anti(verify: VerificationMethod, overrides: Partial<AnyCriterion> = {}): AnyCriterion {
  return criterion(verify, { kind: 'anti-criterion', text: 'No API key appears in any log file', ...overrides } as Partial<AnyCriterion>);
}

export function context(host: VerifyHost, c: AnyCriterion, overrides: Partial<VerifierContext> = {}): VerifierContext {
  return { host, criterion: c, signal: new AbortController().signal, timeoutMs: 20_000, excludeFiles: [], commandsApproved: { approved: true }, ...overrides };
}

/** ripgrep as the tests find it: on PATH, else VS Code's bundled copy from the test harness. */
export function testRipgrep(): string | undefined {
  const appRoot = path.join(REPO, '.vscode-test', 'vscode', 'node_modules', 'code-server', 'lib', 'vscode');
  return findRipgrep(bundledRipgrep(appRoot));
}

/** Whether a process id is still alive (a zombie waiting to be reaped by init counts as dead). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true; // no /proc (macOS): kill(pid, 0) is the answer
  }
}

export async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function pids(file: string): number[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split(/\s+/).filter(Boolean).map(Number) : [];
}
