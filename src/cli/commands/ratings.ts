import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { formatFigures, LearningService } from '../../learning';
import { Store } from '../../store/store';
import { printStoreWarnings, STORE_BUSY_EXIT_CODE, storeBusyMessage } from '../../app/store-warnings';
import { LEARNING_USAGE } from '../shared/usage';
import { productVersion } from '../shared/version';

type Output = { out: (s: string) => void; err: (s: string) => void };


export interface LearningArgs {
  readonly store: string;
  readonly out?: string;
  readonly json: boolean;
}

/** `ideal-state ratings …` and `ideal-state reflections …`; exit 1 when some lines were bad, 2 on misuse. */
export async function learningCommand(positionals: readonly string[], args: LearningArgs, io: Output): Promise<number> {
  const [noun, verb, file, ...rest] = positionals;
  const known = ['import', 'export', 'stats', 'mine'].includes(verb ?? '') && !(noun === 'ratings' && verb === 'mine') && !(noun === 'reflections' && verb === 'stats');
  if (!known || rest.length > 0 || (verb === 'import') !== (file !== undefined)) {
    io.err(`ideal-state: usage:\n${LEARNING_USAGE}`);
    return 2;
  }
  let text = '';
  if (verb === 'import') {
    try {
      text = await fs.readFile(file!, 'utf8');
    } catch (error) {
      io.err(`ideal-state: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      return 2;
    }
  }
  const store = await Store.open({ file: args.store });
  try {
    printStoreWarnings(store, io.err, { skipReadOnly: verb === 'import' });
    const learning = new LearningService(store, { version: await productVersion() });
    if (verb === 'import') {
      if (store.readOnly) {
        io.err(storeBusyMessage(store, 'Nothing was imported.'));
        return STORE_BUSY_EXIT_CODE;
      }
      const result = noun === 'ratings' ? learning.importRatings(text) : learning.importReflections(text);
      for (const p of result.problems) io.err(`${file}:${p.line}: skipped: ${p.message}`);
      io.out(`imported ${result.added} ${noun}${result.alreadyThere > 0 ? ` (${result.alreadyThere} already in the store)` : ''}${result.problems.length > 0 ? `; ${result.problems.length} bad line${result.problems.length === 1 ? '' : 's'} skipped` : ''}`);
      return result.problems.length > 0 ? 1 : 0;
    }
    if (verb === 'export') {
      const jsonl = noun === 'ratings' ? learning.exportRatings() : learning.exportReflections();
      if (args.out) await writeAtomically(args.out, jsonl);
      else if (jsonl) io.out(jsonl.trimEnd());
      return 0;
    }
    if (verb === 'stats') {
      const figures = learning.figures();
      io.out(args.json ? JSON.stringify(figures) : `ratings: ${figures.count}\nrolling average (last 10): ${formatFigures(figures)}`);
      return 0;
    }
    const themes = learning.mine();
    if (args.json) io.out(JSON.stringify(themes));
    else
      for (const t of themes)
        io.out(`${t.label}  ×${t.frequency}  avg ${t.averageRating ?? '–'}  over budget ${Math.round(t.overBudgetRate * 100)}%  [${t.artifactTypes.join(', ')}]\n  → ${t.suggestedChange}`);
    return 0;
  } finally {
    store.close();
  }
}

/** Never a half-written export: write beside it, then rename over. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const target = path.resolve(file);
  await fs.mkdir(path.dirname(target), { recursive: true });
  const temp = `${target}.${process.pid}.tmp`;
  await fs.writeFile(temp, text, 'utf8');
  await fs.rename(temp, target);
}
