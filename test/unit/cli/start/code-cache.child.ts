import { requireWithCodeCache } from '../../../../src/cli/start/code-cache';

// `node code-cache.child.js FILE DIR`: loads FILE with the code cache in DIR (or none: "-") and
// prints how the cache was used and what the file exports; the cache is written as this exits.
const [file, dir] = process.argv.slice(2);
const loaded = requireWithCodeCache(file!, dir === '-' ? undefined : dir);
process.stdout.write(`${JSON.stringify({ cache: loaded.cache, answer: (loaded.exports.answer as () => unknown)() })}\n`);
