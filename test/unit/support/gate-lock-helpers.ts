import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BUILT_CLI } from './cli-helpers';
import { REPO_ROOT } from './repo-root';

const SAMPLE = path.resolve(REPO_ROOT, 'test/fixtures/sample-workspace');
const FIXTURES = path.resolve(REPO_ROOT, 'test/unit/fixtures/gate');
export const DEMO_PRD = '.ideal-state/prds/PRD-20261122-verify-demo.md';

/** The sample workspace of issue 23 (ISC-DEMO-004 fails: no CHANGELOG.md), with only its verify demo PRD. */
export function demoWorkspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-lock-'));
  fs.cpSync(SAMPLE, dir, { recursive: true });
  for (const name of fs.readdirSync(path.join(dir, '.ideal-state', 'prds'))) {
    if (name !== path.basename(DEMO_PRD)) fs.rmSync(path.join(dir, '.ideal-state', 'prds', name));
  }
  return dir;
}

/** A state folder of its own per test: the lock and the block counter live there, never in the workspace. */
export function stateDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-state-'));
}

/** Claude Code's documented Stop payload (fixtures/gate/claude-code-stop.json) with its cwd set. */
export function claudeStop(cwd: string, changes: Record<string, unknown> = {}): string {
  const p = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'claude-code-stop.json'), 'utf8')) as Record<string, unknown>;
  return JSON.stringify({ ...p, cwd, stop_hook_active: false, ...changes });
}

/**
 * Claude Code's UserPromptSubmit payload (https://docs.claude.com/en/docs/claude-code/hooks,
 * "UserPromptSubmit Input": session_id, transcript_path, cwd, permission_mode,
 * hook_event_name, prompt).
 */
export function claudePrompt(cwd: string, prompt = 'Add a changelog.'): string {
  return JSON.stringify({ session_id: 'abc123', transcript_path: '/tmp/t.jsonl', cwd, permission_mode: 'default', hook_event_name: 'UserPromptSubmit', prompt });
}

export interface GateRun {
  code: number | null;
  out: string;
  err: string;
}

/** `ideal-state gate` as a host runs it: no terminal (its own session), the payload on stdin. */
export function runGate(args: readonly string[], stdin: string, options: { state: string; env?: Record<string, string>; cwd?: string }): Promise<GateRun> {
  return new Promise((resolve) => {
    // Not this process's project folder: only what the test gives.
    const { CLAUDE_PROJECT_DIR: _ignored, ...inherited } = process.env;
    const env: NodeJS.ProcessEnv = { ...inherited, IDEAL_STATE_STATE_DIR: options.state, ...options.env };
    const proc = spawn(process.execPath, [BUILT_CLI, 'gate', ...args], { cwd: options.cwd ?? os.tmpdir(), env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // A gate that hangs fails its test with what it printed, never stalls the tier: past its own
    // watchdog (600 s by default; tests pass shorter deadlines) it is killed.
    const timer = setTimeout(() => {
      err += '\n[test] the gate did not answer within 100 s; killed';
      try {
        process.kill(-proc.pid!, 'SIGKILL');
      } catch {
        proc.kill('SIGKILL');
      }
    }, 100_000);
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
    proc.stdin.end(stdin);
  });
}

/** The answer's decision and reason (Claude Code: `decision: "block"` with a reason; else a systemMessage or nothing). */
export function decision(run: GateRun): { blocked: boolean; text: string } {
  if (run.out.trim() === '') return { blocked: false, text: '' };
  const a = JSON.parse(run.out) as { decision?: string; reason?: string; systemMessage?: string };
  return { blocked: a.decision === 'block', text: a.reason ?? a.systemMessage ?? '' };
}

export function edit(dir: string, relative: string, change: (text: string) => string): void {
  const file = path.join(dir, relative);
  fs.writeFileSync(file, change(fs.readFileSync(file, 'utf8')));
}
