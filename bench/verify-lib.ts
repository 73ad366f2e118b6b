// What bench/verify.mjs needs from the sources, bundled once per bench run.
export { verifyCriteria } from '../src/verify/verify-criteria';
export { searchWithJs } from '../src/verify/search-js';
export { SearchScope } from '../src/verify/search-scope';
export { bundledRipgrep, findRipgrep } from '../src/verify/ripgrep-path';
