import type { AnyCriterion, IscDefinition, VerificationMethod } from '../../model';
import { templateCriteria } from '../../model/isc-registry';

/** What `${file}` and `${name}` become for one artifact. */
export function artifactVariables(file: string): { file: string; name: string } {
  const base = file.split('/').pop() ?? file;
  const dot = base.lastIndexOf('.');
  return { file, name: dot > 0 ? base.slice(0, dot) : base };
}

function substitute(text: string, vars: { file: string; name: string }): string {
  return text.replace(/\$\{(file|name)\}/g, (_, key: 'file' | 'name') => vars[key]);
}

const mentionsFile = (s: string | undefined) => s !== undefined && /\$\{(file|name)\}/.test(s);

/**
 * The method as it applies to one artifact: `${file}` and `${name}` substituted in every
 * text field; a GREP with no glob naming the artifact is scoped to the artifact itself
 * (otherwise a template's "no TODO in **\/*.md" would judge every page by every other page).
 */
export function artifactMethod(method: VerificationMethod, file: string): VerificationMethod {
  const vars = artifactVariables(file);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(method)) out[k] = typeof v === 'string' ? substitute(v, vars) : v;
  if (method.type === 'GREP' && !mentionsFile(method.glob)) out.glob = artifactGlob(file);
  return out as VerificationMethod;
}

/**
 * One artifact's criteria from an ISC template: the template's rows (same ids, so the
 * matrix's columns line up) with `${file}` and `${name}` substituted in text and method.
 */
export function artifactCriteria(definition: IscDefinition, file: string, at: string): AnyCriterion[] {
  const vars = artifactVariables(file);
  return templateCriteria(definition, at).map(
    (c) => ({ ...c, text: substitute(c.text, vars), ...(c.verify ? { verify: artifactMethod(c.verify, file) } : {}), notes: `${c.notes ?? ''} for ${file}`.trim() }) as AnyCriterion,
  );
}

/**
 * A glob that names exactly one workspace-relative file. GREP globs may not start with `/`
 * (they are confined to the workspace), so a file in a folder is anchored by its inner `/`;
 * a file at the root cannot be anchored and also matches files of that name further down.
 */
export function artifactGlob(file: string): string {
  return file.replace(/[*?[\]\\!#{}]/g, (c) => `\\${c}`);
}
