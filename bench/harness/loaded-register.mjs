// `node --import bench/harness/loaded-register.mjs dist/cli.js …`: writes every file-backed
// module the process loads (its URL and bytes of source) to IDEAL_STATE_LOADED_OUT, one line
// each, so bench/gate.mjs can say how much JavaScript a command parses. Node's module hooks
// see ES modules and the CommonJS entry; the command line is ES modules (esbuild.mjs).
import { register } from 'node:module';

register('./loaded-hooks.mjs', import.meta.url);
