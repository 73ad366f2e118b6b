// A shipped data file read at build time: `import table from './data/x.yaml?data'` bundles the
// file's value, parsed once here, where `import text from './data/x.yaml'` bundles its text
// (loader `text`). For data every command needs at once (the effort table): a stop hook's
// `ideal-state gate` then parses no YAML of its own before it starts the checks (issue 26).
// The value is checked against its schema by the unit tests, as the text version is.
// Every esbuild build of code that reaches such an import takes this plugin.
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { parse } from 'yaml';

export const yamlData = {
  name: 'yaml-data',
  setup(build) {
    build.onResolve({ filter: /\.yaml\?data$/ }, (args) => ({ path: path.resolve(args.resolveDir, args.path.slice(0, -'?data'.length)), namespace: 'yaml-data' }));
    build.onLoad({ filter: /.*/, namespace: 'yaml-data' }, async (args) => ({
      contents: `export default ${JSON.stringify(parse(await readFile(args.path, 'utf8')))};`,
      loader: 'js',
      watchFiles: [args.path],
    }));
  },
};
