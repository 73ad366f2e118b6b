// The unit tier's gate state (locks, baselines, block counters, denied commands) lives in a
// folder of the run's own, never in the user's state folder: a test that calls the gate, the
// doctor or the engine in-process, and every command line it spawns, inherits this. A test that
// means another folder passes its own IDEAL_STATE_STATE_DIR.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

if (!process.env.IDEAL_STATE_STATE_DIR) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-unit-state-'));
  process.env.IDEAL_STATE_STATE_DIR = folder;
  process.on('exit', () => fs.rmSync(folder, { recursive: true, force: true }));
}
