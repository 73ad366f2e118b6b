import * as path from 'node:path';
import type { CliIo } from '../shared/io';

/** `ideal-state effort` (the effort table in force) and `ideal-state isc list` (the ISC definitions by artifact type); exit 1 when a definition file has problems. */
export async function definitions(command: 'effort' | 'isc list', workspace: string, json: boolean, io: Pick<CliIo, 'out' | 'err'>): Promise<number> {
  const [{ formatProblem }, { loadDefinitions }, { EFFORT_LEVELS }, { SETTINGS }, { nodeTextFiles }] = await Promise.all([
    import('../../model/data-file.js'),
    import('../../model/definitions.js'),
    import('../../model/index.js'),
    import('../../model/settings.js'),
    import('../../node/node-text-files.js'),
  ]);
  const loaded = await loadDefinitions(nodeTextFiles, {
    shippedIscDir: path.join(__dirname, '..', 'isc-definitions'),
    workspaceIscDir: path.join(workspace, SETTINGS.iscDefinitionsFolder.default),
    effortOverrideFile: path.join(workspace, SETTINGS.effortLevelsFile.default),
  });
  for (const p of loaded.problems) io.err(`error: ${formatProblem(p)}`);
  if (command === 'effort') {
    const table = loaded.effort.table;
    if (json) io.out(JSON.stringify(table));
    else
      for (const level of EFFORT_LEVELS) {
        const s = table.levels[level];
        io.out(`${level.padEnd(14)} ${String(s.budgetSeconds).padStart(5)} s  ${`${s.minCriteria}–${s.maxCriteria}`.padStart(7)} criteria  ${String(s.maxIterations ?? '∞').padStart(2)} iterations  ${String(s.parallelism).padStart(2)} parallel`);
      }
  } else {
    const list = loaded.isc.list();
    if (json) io.out(JSON.stringify(list.map((r) => ({ artifactType: r.definition.artifactType, version: r.definition.version, origin: r.origin, file: r.file }))));
    else for (const r of list) io.out(`${r.definition.artifactType.padEnd(18)} v${r.definition.version}  ${r.definition.idealCriteria.length} criteria, ${r.definition.antiCriteria.length} anti  (${r.origin})`);
  }
  return loaded.problems.length > 0 ? 1 : 0;
}
