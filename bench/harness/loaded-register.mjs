// `node --import bench/harness/loaded-register.mjs dist/cli.js …`: writes every file-backed
// module the process loads (its URL and bytes of source) to IDEAL_STATE_LOADED_OUT, one line
// each, so bench/gate.mjs can say how much JavaScript a command parses. Node's module hooks
// see ES modules and the CommonJS entry; the lean command line (dist/cli-lean.cjs), which the
// bin compiles itself with V8's code cache (src/cli/start/code-cache.ts), is seen where it is
// compiled (vm.Script). Each WebAssembly module compiled (sql.js, the store's SQLite, is the
// only one the command line has) is written as a `wasm` line.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';

register('./loaded-hooks.mjs', import.meta.url);

const out = process.env.IDEAL_STATE_LOADED_OUT;
if (out) {
  const Script = vm.Script;
  vm.Script = class extends Script {
    constructor(code, options) {
      super(code, options);
      const filename = typeof options === 'string' ? options : options?.filename;
      if (filename && !filename.startsWith('node:')) appendFileSync(out, `${pathToFileURL(filename).href}\t${Buffer.byteLength(code)}\n`);
    }
  };
  const note = (bytes) => appendFileSync(out, `wasm\t${bytes?.byteLength ?? 0}\n`);
  const { compile, instantiate } = WebAssembly;
  WebAssembly.compile = (bytes, ...rest) => (note(bytes), compile(bytes, ...rest));
  WebAssembly.instantiate = (source, ...rest) => (source instanceof WebAssembly.Module || note(source), instantiate(source, ...rest));
}
