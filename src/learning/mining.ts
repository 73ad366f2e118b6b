import type { Reflection } from '../model';
import { centroid, cosine, TfIdf, topTerms, type SparseVector } from './text-similarity';

/** A recurring pattern across reflections (in the product's words). */
export interface Theme {
  /** Stable while the same words lead the theme, so a re-mine keeps the tree's ids. */
  readonly id: string;
  readonly label: string;
  readonly terms: readonly string[];
  readonly frequency: number;
  /** Mean of the rated members' ratings; undefined when none was rated. */
  readonly averageRating: number | undefined;
  /** Share of members whose run went over its budget, 0–1. */
  readonly overBudgetRate: number;
  readonly artifactTypes: readonly string[];
  readonly suggestedChange: string;
  /** Sum of member weights: low ratings and over-budget runs count more. */
  readonly priority: number;
  readonly reflectionIds: readonly string[];
  readonly runIds: readonly string[];
}

export interface MiningOptions {
  /** Average-linkage cosine similarity at which two groups merge; lower makes fewer, broader themes. */
  readonly threshold?: number;
  /** The most recent reflections mined; clustering is quadratic in this. */
  readonly limit?: number;
}

export const DEFAULT_THEME_THRESHOLD = 0.2;
export const UNRATED_WEIGHT = 1;

const FACT_LABEL = /^\[fact-based, no model\]\s*/;

/** What mining reads of a reflection: its answers and learning note, not the task's subject. */
export function reflectionText(r: Pick<Reflection, 'q1Self' | 'q2Workflow' | 'q3System' | 'learningNote'>): string {
  // The fact-based label says who wrote the answers, not what they are about.
  return [r.q1Self, r.q2Workflow, r.q3System, r.learningNote ?? ''].map((t) => t.replace(FACT_LABEL, '')).join('\n');
}

/** How loudly a reflection speaks: a low rating or an over-budget run makes it heavier. */
export function signalWeight(r: Pick<Reflection, 'impliedSentiment' | 'withinBudget'>): number {
  const rating = r.impliedSentiment;
  const low = rating === undefined ? 0 : rating <= 4 ? 2 : rating <= 6 ? 1 : 0;
  return UNRATED_WEIGHT + low + (r.withinBudget ? 0 : 1);
}

/**
 * Clusters reflections into themes: TF-IDF vectors, cosine similarity, agglomerative
 * average-linkage merging while the closest two groups are at least `threshold` alike.
 * Themes come back heaviest first.
 */
export function mineThemes(reflections: readonly Reflection[], options: MiningOptions = {}): Theme[] {
  const threshold = options.threshold ?? DEFAULT_THEME_THRESHOLD;
  const items = [...reflections].sort((a, b) => b.timestamp.localeCompare(a.timestamp)).slice(0, options.limit ?? 1000);
  if (items.length === 0) return [];
  const tfidf = new TfIdf(items.map(reflectionText));
  const groups = averageLinkage(tfidf.vectors, threshold);
  return groups.map((members) => theme(members.map((i) => items[i]!), members.map((i) => tfidf.vectors[i]!))).sort((a, b) => b.priority - a.priority || b.frequency - a.frequency || a.id.localeCompare(b.id));
}

/** Indices grouped by average-linkage agglomeration (Lance–Williams update, O(n²) per merge). */
export function averageLinkage(vectors: readonly SparseVector[], threshold: number): number[][] {
  const clusters: (number[] | undefined)[] = vectors.map((_, i) => [i]);
  const sim: number[][] = vectors.map((a, i) => vectors.map((b, j) => (i === j ? -Infinity : cosine(a, b))));
  for (;;) {
    let best = -Infinity;
    let bi = -1;
    let bj = -1;
    for (let i = 0; i < clusters.length; i++) {
      if (!clusters[i]) continue;
      const row = sim[i]!;
      for (let j = i + 1; j < clusters.length; j++) {
        if (clusters[j] && row[j]! > best) {
          best = row[j]!;
          bi = i;
          bj = j;
        }
      }
    }
    if (bi < 0 || best < threshold) break;
    const a = clusters[bi]!;
    const b = clusters[bj]!;
    for (let k = 0; k < clusters.length; k++) {
      if (!clusters[k] || k === bi || k === bj) continue;
      const merged = (a.length * sim[bi]![k]! + b.length * sim[bj]![k]!) / (a.length + b.length);
      sim[bi]![k] = merged;
      sim[k]![bi] = merged;
    }
    clusters[bi] = [...a, ...b];
    clusters[bj] = undefined;
  }
  return clusters.filter((c): c is number[] => c !== undefined).map((c) => c.sort((x, y) => x - y));
}

function theme(members: readonly Reflection[], vectors: readonly SparseVector[]): Theme {
  const weights = members.map(signalWeight);
  const center = centroid(vectors, weights);
  const terms = topTerms(center, 3);
  const rated = members.map((m) => m.impliedSentiment).filter((r): r is number => r !== undefined);
  // The member that both speaks loudest and sits nearest the theme's centre names the change.
  let representative = 0;
  let score = -Infinity;
  members.forEach((_, i) => {
    const s = weights[i]! * (0.5 + cosine(vectors[i]!, center));
    if (s > score) {
      score = s;
      representative = i;
    }
  });
  const rep = members[representative]!;
  return {
    id: `theme-${terms.join('-') || 'misc'}`,
    label: terms.length > 0 ? terms.join(' · ') : 'no shared words',
    terms,
    frequency: members.length,
    averageRating: rated.length > 0 ? Math.round((rated.reduce((s, r) => s + r, 0) / rated.length) * 10) / 10 : undefined,
    overBudgetRate: members.filter((m) => !m.withinBudget).length / members.length,
    artifactTypes: [...new Set(members.map((m) => m.artifactType ?? 'unknown'))].sort(),
    suggestedChange: rep.category === 'SYSTEM' ? rep.q3System : rep.q2Workflow,
    priority: weights.reduce((s, w) => s + w, 0),
    reflectionIds: members.map((m) => m.id),
    runIds: [...new Set(members.map((m) => m.runId))],
  };
}
