import type { DataFileProblem } from './data-file';
import { loadEffortTable, type LoadedEffortTable } from './effort-table';
import { IscRegistry, type DefinitionSource } from './isc-registry';

/** Read-only access to text files, so loading works on disk, in the editor, or in memory. */
export interface TextFiles {
  /** The text, or undefined when the file does not exist. */
  readText(path: string): Promise<string | undefined>;
  /** Paths of the `.yaml`/`.yml` files directly in `dir`; empty when it does not exist. */
  listYaml(dir: string): Promise<string[]>;
}

export interface Definitions {
  readonly effort: LoadedEffortTable;
  readonly isc: IscRegistry;
  readonly problems: readonly DataFileProblem[];
}

export interface DefinitionPlaces {
  /** The shipped `isc-definitions` folder. */
  readonly shippedIscDir: string;
  /** Workspace folder of the user's ISC definitions; omitted in Restricted Mode. */
  readonly workspaceIscDir?: string;
  /** Workspace effort table override; omitted in Restricted Mode. */
  readonly effortOverrideFile?: string;
}

/** Loads the effort table and the ISC registry, collecting every located problem. */
export async function loadDefinitions(files: TextFiles, places: DefinitionPlaces): Promise<Definitions> {
  const overrideText = places.effortOverrideFile ? await files.readText(places.effortOverrideFile) : undefined;
  const effort = loadEffortTable(overrideText !== undefined && places.effortOverrideFile ? { file: places.effortOverrideFile, text: overrideText } : undefined);
  const sources: DefinitionSource[] = [];
  for (const file of await files.listYaml(places.shippedIscDir)) {
    const text = await files.readText(file);
    if (text !== undefined) sources.push({ file, text, origin: 'shipped' });
  }
  if (places.workspaceIscDir) {
    for (const file of await files.listYaml(places.workspaceIscDir)) {
      const text = await files.readText(file);
      if (text !== undefined) sources.push({ file, text, origin: 'workspace' });
    }
  }
  const isc = IscRegistry.load(sources);
  return { effort, isc, problems: [...effort.problems, ...isc.problems] };
}
