// A host's interactive program run in a terminal of its own (util-linux `script` gives it a
// pseudo-terminal), for what only its interactive screen shows the user: Codex prints a Stop
// hook's systemMessage ("↳ Hook · …") in its TUI, while `codex exec` prints only
// "hook: Stop Completed". The screen is kept as plain text (escape sequences taken out,
// whitespace collapsed) for the test to search.
import { spawn, spawnSync } from 'node:child_process';

/** Whether `script` is there to give a program a terminal. */
export function haveTerminal() {
  return spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
}

/** The terminal's output as the user reads it: control sequences removed, runs of whitespace as one space. */
export function screenText(raw) {
  return raw
    .replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, '') // OSC (titles, colour queries)
    .replace(/\x1bP[^\x1b]*\x1b\\/g, '') // DCS
    .replace(/\x1b\[[0-9;?<>=!$]*[ -/]*[@-~]/g, '') // CSI
    .replace(/\x1b[@-_]/g, '')
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, ' ')
    .replace(/\s+/g, ' ');
}

/**
 * Runs `bin args` in a 200×50 terminal in `cwd`. `answers` are the person's keys: when the
 * screen first shows `when`, `keys` are typed. Waits until `settled()` holds and the screen has
 * been quiet for `quietMs`, or `timeoutMs`; then ends the program.
 * @returns {Promise<{ code: number | string, stdout: string, stderr: string, screen: string }>}
 */
export async function runInTerminal(bin, args, { cwd, env, settled, answers = [], quietMs = 3000, timeoutMs = 150_000 }) {
  const quote = (a) => `'${a.replace(/'/g, `'\\''`)}'`;
  const command = `stty cols 200 rows 50; exec ${[bin, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd, env: { TERM: 'xterm-256color', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let last = Date.now();
  const pending = [...answers];
  child.stdout.on('data', (d) => {
    stdout += d;
    last = Date.now();
    const screen = screenText(stdout);
    for (const answer of pending.filter((a) => a.when.test(screen))) {
      pending.splice(pending.indexOf(answer), 1);
      setTimeout(() => child.stdin.write(answer.keys), 300);
    }
  });
  child.stderr.on('data', (d) => (stderr += d));
  const closed = new Promise((resolve) => child.on('close', resolve));
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const deadline = Date.now() + timeoutMs;
  let code = 'timeout';
  while (Date.now() < deadline && child.exitCode === null) {
    await sleep(500);
    if (settled() && Date.now() - last >= quietMs) {
      code = 0;
      break;
    }
  }
  if (child.exitCode !== null && code !== 0) code = `exited ${child.exitCode} before the session settled`;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await closed;
  clearTimeout(killer);
  return { code, stdout, stderr, screen: screenText(stdout) };
}
