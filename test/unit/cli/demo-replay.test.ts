import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../support/cli-helpers';
import { REPO_ROOT } from '../support/repo-root';

const SAMPLE = path.resolve(REPO_ROOT, 'test/fixtures/sample-workspace');
const SCRIPT = '.ideal-state/demo/demo-run.yaml';
const REQUEST = 'Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name';

/**
 * The sample's scripted demo replays one recorded run. Its first run on the sample goes through
 * every step (each answer checked against the schema its request asks for, in order: the script
 * cannot drift from the schemas unseen). On a workspace that already holds its edit it refuses
 * to start, saying why and what to do, instead of making the edit twice and answering the next
 * questions with the wrong steps; a loop with it is refused before it starts.
 */
describe('the demo model replays one run, and says so when it cannot', () => {
  let ws: string;
  let store: string;
  beforeEach(() => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-demo-replay-'));
    fs.cpSync(SAMPLE, ws, { recursive: true });
    store = `${ws}.sqlite`;
  });
  afterEach(() => {
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(store, { force: true });
  });

  const run = () => runCli(['run', REQUEST, '--effort', 'STANDARD', '--workspace', ws, '--store', store, '--provider', 'scripted', '--script', path.join(ws, SCRIPT), '--approve', 'edits,commands', '--trust-workspace']);
  const farewells = () => fs.readFileSync(path.join(ws, 'src/greet.js'), 'utf8').split('export function farewell').length - 1;

  it('the first run uses every step of the script and completes; a second refuses to start, names the file and what to do, and changes nothing', async function () {
    this.timeout(90_000);
    const first = await run();
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /^COMPLETE: every CRITICAL criterion verified PASS/m);
    assert.match(first.err, /\[LEARN\] run ended COMPLETE/, 'the run reached LEARN, whose reflection is the script\'s last step');
    assert.doesNotMatch(first.err, /step \d+:/, 'no step of the script was refused');
    // The last step (the reflection) answered LEARN's request as the script wrote it.
    const reflections = await runCli(['reflections', 'export', '--workspace', ws, '--store', store]);
    assert.match(reflections.out, /I would ask in OBSERVE whether a name of only spaces counts as empty/, reflections.err);
    assert.equal(farewells(), 1);
    const greet = fs.readFileSync(path.join(ws, 'src/greet.js'), 'utf8');
    const prds = fs.readdirSync(path.join(ws, '.ideal-state/prds'));

    const second = await run();
    assert.equal(second.code, 2, second.err);
    assert.match(second.err, /demo model \(scripted: demo-run\) replays one recorded run, and src\/greet\.js already holds the edit it makes, from an earlier demo run\. To watch the demo again, undo that run .* or restore src\/greet\.js/);
    assert.equal(second.out, '', 'no run answer: no run was created');
    assert.equal(fs.readFileSync(path.join(ws, 'src/greet.js'), 'utf8'), greet, 'the file is as the first run left it');
    assert.deepEqual(fs.readdirSync(path.join(ws, '.ideal-state/prds')), prds, 'no new PRD');
  });

  it('a loop with the demo model is refused before it starts; verifying the files only is not', async function () {
    this.timeout(60_000);
    const loop = (extra: string[]) => runCli(['loop', '--glob', 'README.md', '--isc', 'docs.page', '--effort', 'FAST', '--workspace', ws, '--store', store, '--provider', 'scripted', '--script', path.join(ws, SCRIPT), '--trust-workspace', ...extra]);
    const worked = await loop([]);
    assert.equal(worked.code, 2, worked.err);
    assert.match(worked.err, /demo model \(scripted: demo-run\) answers the README's request only, so it cannot work the files of a loop/);
    assert.equal(farewells(), 0);
    const verified = await loop(['--verify-only']);
    assert.notEqual(verified.code, 2, verified.err);
    assert.doesNotMatch(verified.err, /demo model/);
  });
});
