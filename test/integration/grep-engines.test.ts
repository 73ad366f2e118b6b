import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { bundledRipgrep } from '../../src/verify/ripgrep-path';
import { SearchScope } from '../../src/verify/search-scope';
import { searchWithJs } from '../../src/verify/search-js';
import { searchWithRipgrep } from '../../src/verify/search-ripgrep';

// GREP's two engines on the same tree, with the ripgrep this VS Code ships (always there,
// unlike `rg` on PATH in the unit tier).
describe('GREP engines in VS Code', () => {
  it('finds VS Code’s bundled ripgrep from its app root', () => {
    const rg = bundledRipgrep(vscode.env.appRoot);
    assert.ok(rg, `no ripgrep under ${vscode.env.appRoot}`);
    assert.ok(fs.statSync(rg).isFile());
  });

  it('VS Code’s ripgrep and the JS search select and match the same lines', async () => {
    const rg = bundledRipgrep(vscode.env.appRoot)!;
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-grep-engines-'));
    const files: Record<string, string> = {
      '.gitignore': 'dist/\n*.log\n!keep.log\n',
      'src/a.ts': 'const requestId = "X-Request-Id";\nother\n',
      'src/b.md': 'X-Request-Id in docs\n',
      'src/nested/.gitignore': 'gen.ts\n',
      'src/nested/gen.ts': 'X-Request-Id generated\n',
      'dist/out.js': 'X-Request-Id built\n',
      'server.log': 'X-Request-Id logged\n',
      'keep.log': 'X-Request-Id kept\n',
      '.config/settings.json': '{ "header": "X-Request-Id" }\n',
    };
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
      fs.writeFileSync(path.join(root, name), text);
    }
    for (const glob of [undefined, 'src/**', '*.{ts,log}']) {
      const request = { scope: SearchScope.create(root, glob, ['**/.config'], []), pattern: 'X-Request-Id', signal: new AbortController().signal, timeoutMs: 20_000 };
      const viaRg = await searchWithRipgrep(rg, request);
      const viaJs = await searchWithJs(request);
      assert.equal(viaRg.kind, 'done');
      assert.equal(viaJs.kind, 'done');
      const strip = (o: typeof viaJs) => (o.kind === 'done' ? { count: o.matchCount, locations: o.locations } : o);
      assert.deepEqual(strip(viaRg as typeof viaJs), strip(viaJs), `glob ${glob}`);
    }
    const all = await searchWithJs({ scope: SearchScope.create(root, undefined, ['**/.config'], []), pattern: 'X-Request-Id', signal: new AbortController().signal, timeoutMs: 20_000 });
    assert.deepEqual(all.kind === 'done' && all.locations.map((l) => l.file), ['keep.log', 'src/a.ts', 'src/b.md']);
  });
});
