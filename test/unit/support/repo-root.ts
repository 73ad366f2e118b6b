import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The repository's root: the nearest folder above this file whose package.json is the product's.
 * Unit tests sit at different depths under test/unit/ (their bundles under out/test/unit/), so
 * none of them counts '..' up to the root.
 */
function repositoryRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === 'ideal-state') return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json of ideal-state above ${from}: run the unit tests from a checkout of the repository`);
  }
}

export const REPO_ROOT = repositoryRoot(__dirname);
