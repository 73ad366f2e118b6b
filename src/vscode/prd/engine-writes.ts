/**
 * The texts this window's runs wrote into their PRDs, by workspace-relative path. A run
 * writes its PRD through the editor (WorkspaceEdit, then save), so the save looks like the
 * user's; saving exactly what the run wrote is no edit of the user's and must not become a
 * criteria version (it would restate the run's criteria from the file, without outcomes,
 * and race the run's own next commit). Any other text saved there is the user's.
 */
export class EnginePrdWrites {
  private readonly texts = new Map<string, string>();

  wrote(path: string, text: string): void {
    this.texts.set(path, normalize(text));
  }

  isRunsOwn(path: string, text: string): boolean {
    return this.texts.get(path) === normalize(text);
  }
}

function normalize(text: string): string {
  return text.replace(/\r\n/g, '\n');
}

/** One per extension host: the runs write, the PRD sync reads. */
export const enginePrdWrites = new EnginePrdWrites();
