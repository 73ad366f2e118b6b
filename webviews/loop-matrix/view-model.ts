import type { MatrixArtifact, MatrixHeader, MatrixOutcome, MatrixSnapshot } from './protocol';

/** Natural order of ids and paths: ISC-2 before ISC-10, docs/page-2.md before docs/page-10.md. */
export function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' });
}

export function cellOf(artifact: MatrixArtifact, criterionId: string): MatrixOutcome {
  return artifact.outcomes[criterionId] ?? 'UNKNOWN';
}

/** The rows to show, in file order: every artifact, or only those not passing. */
export function visibleArtifacts(artifacts: readonly MatrixArtifact[], failingOnly: boolean): MatrixArtifact[] {
  return [...artifacts].filter((a) => !failingOnly || !a.passing).sort((a, b) => naturalCompare(a.file, b.file));
}

/** "7/12 artifacts passing · iteration 2 of 3 · 42% budget". */
export function headerLine(h: MatrixHeader): string {
  const iteration = h.maxIterations ? `iteration ${h.iteration} of ${h.maxIterations}` : `iteration ${h.iteration}`;
  return `${h.passing}/${h.total} artifacts passing · ${iteration} · ${h.budgetPercent}% budget`;
}

/** A snapshot with one artifact replaced (or added): what the view holds after an `artifact` event. */
export function withArtifact(snapshot: MatrixSnapshot, artifact: MatrixArtifact): MatrixSnapshot {
  const known = snapshot.artifacts.some((a) => a.file === artifact.file);
  const artifacts = known ? snapshot.artifacts.map((a) => (a.file === artifact.file ? artifact : a)) : [...snapshot.artifacts, artifact];
  return { ...snapshot, artifacts };
}

/** The events that bring a view showing `shown` to `next`: only the rows, header and columns that changed. */
export function matrixDeltas(shown: MatrixSnapshot, next: MatrixSnapshot): ({ type: 'artifact'; body: MatrixArtifact } | { type: 'header'; body: MatrixHeader } | { type: 'columns'; body: { criteria: string[] } })[] {
  const out: ({ type: 'artifact'; body: MatrixArtifact } | { type: 'header'; body: MatrixHeader } | { type: 'columns'; body: { criteria: string[] } })[] = [];
  if (JSON.stringify(shown.criteria) !== JSON.stringify(next.criteria)) out.push({ type: 'columns', body: { criteria: next.criteria } });
  const before = new Map(shown.artifacts.map((a) => [a.file, JSON.stringify(a)]));
  for (const a of next.artifacts) if (before.get(a.file) !== JSON.stringify(a)) out.push({ type: 'artifact', body: a });
  if (JSON.stringify(shown.header) !== JSON.stringify(next.header)) out.push({ type: 'header', body: next.header });
  return out;
}
