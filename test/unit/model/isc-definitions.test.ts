import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadDefinitions } from '../../../src/model/definitions';
import { IscRegistry } from '../../../src/model/isc-registry';
import { nodeTextFiles } from '../../../src/node/node-text-files';
import { REPO_ROOT } from '../support/repo-root';

const SHIPPED = path.resolve(REPO_ROOT, 'isc-definitions');

describe('ISC definitions', () => {
  it('loads every shipped file with no problems, including the required artifact types', async () => {
    const { isc, problems } = await loadDefinitions(nodeTextFiles, { shippedIscDir: SHIPPED });
    assert.deepEqual(problems, []);
    const files = fs.readdirSync(SHIPPED).filter((f) => f.endsWith('.yaml'));
    assert.equal(isc.list().length, files.length);
    for (const type of ['code.feature', 'code.bugfix', 'code.refactor', 'test.suite', 'docs.page', 'summary.note.v1']) {
      const registered = isc.get(type);
      assert.ok(registered, `${type} is shipped`);
      assert.ok(registered.definition.idealCriteria.length >= registered.definition.minCriteria);
      assert.ok(registered.definition.antiCriteria.length >= 1);
    }
  });

  it('names each shipped file after its artifact type', async () => {
    const { isc } = await loadDefinitions(nodeTextFiles, { shippedIscDir: SHIPPED });
    for (const r of isc.list()) assert.equal(path.basename(r.file), `${r.definition.artifactType}.yaml`);
  });

  it('reports a broken workspace file with file, line and field, and still loads the rest', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isc-'));
    fs.writeFileSync(path.join(dir, 'broken-syntax.yaml'), 'artifactType: api.endpoint\nidealCriteria: [\n');
    fs.writeFileSync(
      path.join(dir, 'bad-field.yaml'),
      [
        'artifactType: cli.tool',
        'version: 1.0.0',
        'description: A command-line tool',
        'minCriteria: 1',
        'scaleTier: SIMPLE',
        'idealCriteria:',
        '  - id: ISC-CLI-001',
        '    text: Tool prints usage when run without arguments',
        '    verify: { type: SHELL, command: "tool" }',
        'antiCriteria:',
        '  - id: ISC-A-CLI-001',
        '    text: No stack trace is printed for bad input',
        '    verify: { type: CUSTOM, description: Run with bad input }',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(dir, 'good.yaml'),
      fs.readFileSync(path.join(SHIPPED, 'docs.page.yaml'), 'utf8').replace('artifactType: docs.page', 'artifactType: docs.tutorial'),
    );
    const { isc, problems } = await loadDefinitions(nodeTextFiles, { shippedIscDir: SHIPPED, workspaceIscDir: dir });
    assert.ok(isc.get('docs.tutorial'), 'the good workspace file loaded');
    assert.ok(isc.get('code.feature'), 'shipped files still load');
    assert.equal(isc.get('cli.tool'), undefined);
    const syntax = problems.find((p) => p.file.endsWith('broken-syntax.yaml'));
    assert.ok(syntax, 'syntax error reported');
    assert.ok(syntax.line >= 2);
    const field = problems.find((p) => p.file.endsWith('bad-field.yaml'));
    assert.ok(field, 'schema error reported');
    assert.equal(field.line, 9);
    assert.equal(field.field, 'idealCriteria.0.verify.type');
  });

  it('lets a workspace file override a shipped one by artifact type', () => {
    const shipped = fs.readFileSync(path.join(SHIPPED, 'code.bugfix.yaml'), 'utf8');
    const registry = IscRegistry.load([
      { file: '/ext/code.bugfix.yaml', text: shipped, origin: 'shipped' },
      { file: '/ws/.ideal-state/isc/ours.yaml', text: shipped.replace('version: 1.0.0', 'version: 2.0.0'), origin: 'workspace' },
    ]);
    const r = registry.get('code.bugfix')!;
    assert.equal(r.definition.version, '2.0.0');
    assert.equal(r.origin, 'workspace');
    assert.equal(r.overrides, '/ext/code.bugfix.yaml');
  });

  it('reports two workspace files defining the same type instead of picking one silently', () => {
    const text = fs.readFileSync(path.join(SHIPPED, 'test.suite.yaml'), 'utf8');
    const registry = IscRegistry.load([
      { file: '/ws/a.yaml', text, origin: 'workspace' },
      { file: '/ws/b.yaml', text, origin: 'workspace' },
    ]);
    assert.equal(registry.get('test.suite')!.file, '/ws/a.yaml');
    assert.match(registry.problems[0]!.message, /already defined in \/ws\/a\.yaml/);
  });

  it('rejects duplicate criterion ids and a minimum above the listed criteria', () => {
    const text = fs
      .readFileSync(path.join(SHIPPED, 'code.refactor.yaml'), 'utf8')
      .replace('ISC-REF-002', 'ISC-REF-001')
      .replace('minCriteria: 4', 'minCriteria: 9');
    const registry = IscRegistry.load([{ file: 'r.yaml', text, origin: 'workspace' }]);
    const messages = registry.problems.map((p) => `${p.field}: ${p.message}`);
    assert.ok(messages.some((m) => m.startsWith('idealCriteria.1.id: duplicate id ISC-REF-001')), messages.join('\n'));
    assert.ok(messages.some((m) => m.startsWith('minCriteria:')), messages.join('\n'));
  });
});
