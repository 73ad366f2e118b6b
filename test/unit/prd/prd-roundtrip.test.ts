import * as assert from 'node:assert/strict';
import { applyEdits, criterionData, joinLines, parsePrd } from '../../../src/prd';
import { fixture, fixtureNames, VARIANTS } from './prd-helpers';

describe('prd round trip', () => {
  it('has the seed example and at least 30 crafted documents', () => {
    const names = fixtureNames();
    assert.ok(names.includes('seed-000.md'));
    assert.ok(names.length >= 31, `${names.length} fixtures`);
  });

  for (const name of fixtureNames()) {
    for (const [variant, transform] of Object.entries(VARIANTS)) {
      it(`writes ${name} (${variant}) back byte for byte and reads it the same way twice`, () => {
        const text = transform(fixture(name));
        const doc = parsePrd(text);
        assert.equal(joinLines(doc.source), text);
        assert.equal(applyEdits(doc, []), text, 'no edits, no change');
        const again = parsePrd(joinLines(doc.source));
        assert.deepEqual(again.criteria.map(criterionData), doc.criteria.map(criterionData));
        assert.deepEqual(
          again.diagnostics.map((d) => [d.line, d.rule]),
          doc.diagnostics.map((d) => [d.line, d.rule]),
        );
      });
    }
  }

  it('keeps the line endings of a document that mixes them', () => {
    const text = '# Mixed\r\n\r\n## Ideal State Criteria\n- [ ] ISC-1: Mixed line endings survive the round trip unchanged | Verify: Custom\r- [ ] ISC-2: Second line keeps its own line ending after writing | Verify: Custom\r\n';
    const doc = parsePrd(text);
    assert.equal(joinLines(doc.source), text);
    assert.equal(doc.criteria.length, 2);
    const edited = applyEdits(doc, [{ kind: 'setChecked', id: 'ISC-1', checked: true }]);
    assert.equal(edited, text.replace('- [ ] ISC-1', '- [x] ISC-1'));
  });

  it('reads the BOM and CRLF variants of the seed example into the same model as the LF one', () => {
    const lf = parsePrd(fixture('seed-000.md'));
    for (const transform of Object.values(VARIANTS)) {
      const other = parsePrd(transform(fixture('seed-000.md')));
      assert.deepEqual(other.criteria.map(criterionData), lf.criteria.map(criterionData));
      assert.deepEqual(other.meta, lf.meta);
      assert.deepEqual(other.log, lf.log);
    }
  });
});
