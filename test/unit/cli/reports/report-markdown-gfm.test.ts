import * as assert from 'node:assert/strict';
import { markdownReport } from '../../../../src/cli/reports/report-markdown';
import { HOSTILE_TEXTS, hostileInput } from './report-helpers';

/**
 * Issue 24, item 3, with a faithful GFM engine: micromark with micromark-extension-gfm, a
 * port of cmark-gfm that passes GitHub's GFM spec tests (https://github.com/micromark/micromark-extension-gfm#readme),
 * renders the job summary; each row must keep four cells, its outcome cell "❌ FAIL", and no
 * link or image may appear. Both are devDependencies (ESM only, so loaded with a real import()).
 */

type Micromark = (value: string, options: { extensions: unknown[]; htmlExtensions: unknown[] }) => string;

// A real dynamic import (esbuild would turn `import()` into `require()`, which cannot load ESM on Node 20).
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Record<string, unknown>>;

async function gfm(): Promise<(markdown: string) => string> {
  let micromark: Micromark;
  let ext: { gfm: () => unknown; gfmHtml: () => unknown };
  try {
    micromark = (await importEsm('micromark')).micromark as Micromark;
    ext = (await importEsm('micromark-extension-gfm')) as unknown as typeof ext;
  } catch (error) {
    throw new Error(`this test needs micromark and micromark-extension-gfm as devDependencies (npm i -D micromark micromark-extension-gfm): ${(error as Error).message}`);
  }
  return (markdown) => micromark(markdown, { extensions: [ext.gfm()], htmlExtensions: [ext.gfmHtml()] });
}

/** The cells of each body row of the rendered table, as text (tags dropped, entities of < > & " decoded). */
function bodyRows(html: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<td(?: [^>]*)?>([\s\S]*?)<\/td>/g)].map((cell) =>
      cell[1]!
        .replace(/<[^>]+>/g, '')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&')
        .trim(),
    ),
  );
}

describe('the Markdown job summary rendered by a GFM engine (micromark + micromark-extension-gfm)', () => {
  it('shows every failing row as failing, four cells a row, with no link, image or HTML made from the workspace\'s words', async () => {
    const render = await gfm();
    const html = render(markdownReport(hostileInput()));
    const rows = bodyRows(html);
    assert.equal(rows.length, HOSTILE_TEXTS.length, html);
    for (const cells of rows) {
      assert.equal(cells.length, 4, `four cells: ${JSON.stringify(cells)}`);
      assert.equal(cells[1], '❌ FAIL', JSON.stringify(cells));
      assert.equal(cells[2], 'CRITICAL', JSON.stringify(cells));
    }
    assert.doesNotMatch(html, /<a\s|<img\s/i, 'no link or image');
    // The spoofing text is shown as text, pipes and all.
    assert.ok(rows[0]![0]!.includes('Login works | ✅ PASS | CRITICAL |'), rows[0]![0]);
    assert.ok(rows[1]![0]!.includes('Login works \\| ✅ PASS | CRITICAL |'), rows[1]![0]);
  });
});
