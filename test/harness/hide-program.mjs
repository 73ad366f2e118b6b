// A PATH with one program hidden and every other one still there. A stage that stands for "a
// machine without ripgrep" must not lose Node, sh or git with it: Debian's `apt-get install
// ripgrep` puts rg in /usr/bin beside node, so dropping each folder that holds an rg drops
// them too. Instead: a folder of this stage's own with a link to each program the PATH finds,
// the hidden one left out, and that folder as the whole PATH.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Where `program` is on `PATH` (the first folder that holds it), or undefined. */
export function findOnPath(program, PATH = process.env.PATH ?? '') {
  for (const dir of PATH.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, program);
    if (isProgram(file)) return file;
  }
  return undefined;
}

function isProgram(file) {
  try {
    const stat = fs.statSync(file);
    return stat.isFile() && (stat.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * Fills `dir` (made if missing) with a link to every program `PATH` finds, first folder first
 * as a shell would, except those named in `hidden`; returns the PATH to use: `dir` alone.
 * A program reached through a link keeps its name, so tools that look at their own name
 * (`npx`, busybox) still work.
 */
export function pathWithout(hidden, dir, PATH = process.env.PATH ?? '') {
  const hide = new Set(Array.isArray(hidden) ? hidden : [hidden]);
  fs.mkdirSync(dir, { recursive: true });
  const linked = new Set(fs.readdirSync(dir));
  for (const folder of PATH.split(path.delimiter)) {
    if (!folder || path.resolve(folder) === path.resolve(dir)) continue;
    let names;
    try {
      names = fs.readdirSync(folder);
    } catch {
      continue; // a PATH entry that does not exist
    }
    for (const name of names) {
      if (hide.has(name) || linked.has(name)) continue;
      const target = path.join(folder, name);
      if (!isProgram(target)) continue;
      fs.symlinkSync(target, path.join(dir, name));
      linked.add(name);
    }
  }
  return dir;
}
