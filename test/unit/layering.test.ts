import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SETTINGS } from '../../src/core/settings';

const ROOT = path.resolve(__dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

describe('layering and manifest', () => {
  it('keeps every layer but src/vscode free of the vscode module', () => {
    const offenders = fs
      .readdirSync(path.join(ROOT, 'src'))
      .filter((d) => d !== 'vscode')
      .flatMap((d) => (d.endsWith('.ts') ? [path.join(ROOT, 'src', d)] : sourceFiles(path.join(ROOT, 'src', d))))
      .filter((f) => /from\s+['"]vscode['"]|require\(['"]vscode['"]\)/.test(fs.readFileSync(f, 'utf8')));
    assert.deepEqual(offenders, []);
  });

  it('keeps src/core free of Node built-ins so it can run anywhere', () => {
    const offenders = sourceFiles(path.join(ROOT, 'src', 'core')).filter((f) => /from\s+['"]node:/.test(fs.readFileSync(f, 'utf8')));
    assert.deepEqual(offenders, []);
  });

  it('declares every setting of core/settings in the manifest with the same default', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const properties = manifest.contributes.configuration.properties as Record<string, { default: unknown }>;
    for (const { key, default: value } of Object.values(SETTINGS)) {
      assert.ok(properties[key], `${key} is in package.json`);
      assert.deepEqual(properties[key].default, value, key);
    }
    assert.equal(Object.keys(properties).length, Object.keys(SETTINGS).length, 'no setting in the manifest that the code does not read');
  });

  it('contributes commands only under the Ideal State category, each registered in src/vscode', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const editorSources = sourceFiles(path.join(ROOT, 'src', 'vscode')).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    for (const command of manifest.contributes.commands as { command: string; category: string }[]) {
      assert.equal(command.category, 'Ideal State');
      assert.ok(editorSources.includes(`'${command.command}'`), `${command.command} is registered`);
    }
  });
});
