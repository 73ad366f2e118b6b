import { parseYamlDataFile, type DataFileProblem } from './data-file';
import type { AnyCriterion } from './criterion';
import { IscDefinition } from './isc-definition';

export type DefinitionOrigin = 'shipped' | 'workspace';

export interface DefinitionSource {
  readonly file: string;
  readonly text: string;
  readonly origin: DefinitionOrigin;
}

export interface RegisteredDefinition {
  readonly definition: IscDefinition;
  readonly file: string;
  readonly origin: DefinitionOrigin;
  /** The shipped file this one replaced, when a workspace file overrides it. */
  readonly overrides?: string;
}

/**
 * ISC templates by artifact type. Shipped files load first; workspace files add new
 * types or replace shipped ones. A broken file is reported and skipped; the rest load.
 */
export class IscRegistry {
  private constructor(
    private readonly byType: ReadonlyMap<string, RegisteredDefinition>,
    readonly problems: readonly DataFileProblem[],
  ) {}

  static load(sources: readonly DefinitionSource[]): IscRegistry {
    const byType = new Map<string, RegisteredDefinition>();
    const problems: DataFileProblem[] = [];
    const ordered = [...sources.filter((s) => s.origin === 'shipped'), ...sources.filter((s) => s.origin === 'workspace')];
    for (const source of ordered) {
      const parsed = parseYamlDataFile(source.file, source.text, IscDefinition);
      if (!parsed.ok) {
        problems.push(...parsed.problems);
        continue;
      }
      const definition = parsed.value;
      const existing = byType.get(definition.artifactType);
      if (existing && existing.origin === source.origin) {
        problems.push({
          file: source.file,
          line: 1,
          column: 1,
          field: 'artifactType',
          message: `${definition.artifactType} is already defined in ${existing.file}; rename one of them`,
        });
        continue;
      }
      byType.set(definition.artifactType, {
        definition,
        file: source.file,
        origin: source.origin,
        overrides: existing?.file,
      });
    }
    return new IscRegistry(byType, problems);
  }

  get(artifactType: string): RegisteredDefinition | undefined {
    return this.byType.get(artifactType);
  }

  list(): RegisteredDefinition[] {
    return [...this.byType.values()].sort((a, b) => a.definition.artifactType.localeCompare(b.definition.artifactType));
  }
}

/**
 * A template's criteria as a run's starting criteria (Run Algorithm with an ISC template):
 * same ids, text, priority, domain and verification method, PENDING. Their source is
 * IMPLICIT — "implied by the domain", the closest the schema has to "from a template": the
 * user did not state them for this request — and their notes name the template, so the PRD
 * and the table show where each came from. OBSERVE refines them like any draft.
 */
export function templateCriteria(definition: IscDefinition, at: string): AnyCriterion[] {
  const note = `from ISC template ${definition.artifactType} ${definition.version}`;
  const row = (kind: AnyCriterion['kind'], c: IscDefinition['idealCriteria'][number]): AnyCriterion =>
    ({
      kind,
      id: c.id,
      text: c.text,
      priority: c.priority,
      source: 'IMPLICIT',
      ...(c.domain ? { domain: c.domain } : {}),
      verify: c.verify,
      status: 'PENDING',
      createdAt: at,
      updatedAt: at,
      notes: note,
    }) as AnyCriterion;
  return [...definition.idealCriteria.map((c) => row('criterion', c)), ...definition.antiCriteria.map((c) => row('anti-criterion', c))];
}
