import './one-shot';
import { main } from './main';
import { startProcess } from './process';

/** The `ideal-state` process: the launcher (dist/cli.js, src/cli/start/launch.ts) imports this module for every command but the lean ones. */
startProcess(main, process.argv.slice(2));
