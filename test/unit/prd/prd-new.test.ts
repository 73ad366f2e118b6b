import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { IscRegistry } from '../../../src/model/isc-registry';
import { EFFORT_LEVELS } from '../../../src/model';
import { checkPrd, newPrdId, newPrdText, parsePrd, prdSlug } from '../../../src/prd';
import { REPO_ROOT } from '../support/repo-root';

const SHIPPED = path.resolve(REPO_ROOT, 'isc-definitions');
const NOW = new Date('2026-11-21T23:30:00Z');

function shippedRegistry(): IscRegistry {
  const sources = fs.readdirSync(SHIPPED).filter((n) => n.endsWith('.yaml')).map((n) => ({ file: path.join(SHIPPED, n), text: fs.readFileSync(path.join(SHIPPED, n), 'utf8'), origin: 'shipped' as const }));
  return IscRegistry.load(sources);
}

describe('new PRD text', () => {
  it('slugs titles for ids and file names', () => {
    assert.equal(prdSlug('Add dark mode!'), 'add-dark-mode');
    assert.equal(prdSlug('  Crème brûlée — v2 '), 'creme-brulee-v2');
    assert.equal(prdSlug('!!!'), 'prd');
    assert.ok(prdSlug('x'.repeat(100)).length <= 48);
    assert.equal(newPrdId('Add dark mode', NOW), 'PRD-20261121-add-dark-mode');
  });

  it('writes the seed format with the effort table in the frontmatter', () => {
    const table = shippedEffortTable();
    const text = newPrdText({ title: 'Add dark mode', effort: 'EXTENDED', maxIterations: table.levels.EXTENDED.maxIterations, now: NOW });
    const doc = parsePrd(text);
    assert.deepEqual(doc.diagnostics, []);
    assert.equal(doc.dialect, 'ideal-state');
    assert.equal(doc.title?.text, 'Add dark mode');
    assert.deepEqual(
      { id: doc.meta.id, status: doc.meta.status, effort: doc.meta.effort, iteration: doc.meta.iteration, maxIterations: doc.meta.maxIterations },
      { id: 'PRD-20261121-add-dark-mode', status: 'DRAFT', effort: 'EXTENDED', iteration: 0, maxIterations: 3 },
    );
    assert.equal(String(doc.meta.created), '2026-11-21');
    assert.deepEqual(
      doc.sections.map((s) => s.kind),
      ['problem-space', 'key-files', 'constraints', 'decisions', 'criteria', 'anti-criteria', 'log'],
    );
  });

  it('parses with no errors from every shipped template at every effort level', () => {
    const table = shippedEffortTable();
    const registry = shippedRegistry();
    assert.ok(registry.list().length >= 6);
    for (const { definition } of registry.list()) {
      for (const effort of EFFORT_LEVELS) {
        const text = newPrdText({ title: `Try ${definition.artifactType}`, effort, maxIterations: table.levels[effort].maxIterations, now: NOW, template: definition });
        const { document, diagnostics } = checkPrd(text, { effortTable: table });
        const errors = diagnostics.filter((d) => d.severity === 'error' || d.rule.startsWith('frontmatter') || d.rule === 'yaml-syntax' || d.rule === 'missing-section');
        assert.deepEqual(errors, [], `${definition.artifactType} at ${effort}`);
        assert.equal(document.criteria.filter((c) => c.kind === 'criterion').length, definition.idealCriteria.length, definition.artifactType);
        assert.equal(document.criteria.filter((c) => c.kind === 'anti-criterion').length, definition.antiCriteria.length, definition.artifactType);
        for (const c of definition.idealCriteria) {
          const parsed = document.criteria.find((x) => x.id === c.id);
          assert.ok(parsed, c.id);
          assert.equal(parsed.text, c.text);
          assert.equal(parsed.priority, c.priority);
          assert.equal(parsed.source, c.source);
          assert.equal(parsed.verify?.type, c.verify.type, `${c.id} verify`);
        }
      }
    }
  });

  it('groups template criteria under domain headings', () => {
    const feature = shippedRegistry().get('code.feature')!.definition;
    const text = newPrdText({ title: 'Feature', effort: 'STANDARD', maxIterations: 2, now: NOW, template: feature });
    assert.match(text, /### Testing\n- \[ \] ISC-FEAT-002: \[I\] New behaviour is exercised by at least one automated test \| Verify: Test: test\n- \[ \] ISC-FEAT-003: /);
    assert.match(text, /## Anti-Criteria\n- \[ \] ISC-A-FEAT-001: /);
  });
});

describe('shipped ISC templates', () => {
  it('pass the ISC linter themselves: no criterion rule fires on a PRD made from any of them', () => {
    const registry = shippedRegistry();
    const table = shippedEffortTable();
    const criterionRules = new Set(['isc-length', 'isc-compound', 'isc-action', 'isc-scope-word', 'isc-no-verify']);
    const findings: string[] = [];
    for (const { definition } of registry.list()) {
      const text = newPrdText({ title: definition.artifactType, effort: 'FAST', maxIterations: table.levels.FAST.maxIterations, template: definition, now: NOW });
      for (const d of checkPrd(text, { effortTable: table }).diagnostics) {
        if (criterionRules.has(d.rule)) findings.push(`${definition.artifactType}: ${d.rule}: ${d.message}`);
      }
    }
    assert.deepEqual(findings, []);
  });
});
