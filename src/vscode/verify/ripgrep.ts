import * as vscode from 'vscode';
import { engine } from '../engine';

// Kept for the run commands (src/vscode/run), written against this module before main
// moved its parts: files.exclude to ./files-exclude, the ripgrep lookup into the engine.
export { filesExcludeGlobs } from './files-exclude';

/** The ripgrep VS Code ships, for GREP criteria; undefined when none is there (then `rg` on PATH). */
export function bundledRipgrep(appRoot: string = vscode.env.appRoot): string | undefined {
  return engine().bundledRipgrep(appRoot);
}
