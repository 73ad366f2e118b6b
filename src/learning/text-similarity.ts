/**
 * TF-IDF vectors and cosine similarity over short texts (reflections, requests, criteria).
 * Sparse maps, so a few thousand documents stay cheap; no model needed, deterministic.
 */

export type SparseVector = ReadonlyMap<string, number>;

const STOP_WORDS = new Set(
  (
    'a an the and or but if then than so of to in on at by for with from into onto over under about as is are was were be been being ' +
    'it its this that these those there here i me my we our you your he she they them their what which who whom when where why how ' +
    'would could should will can may might must do does did done doing have has had having not no nor only own same too very just ' +
    'also more most less least all any both each few other some such up down out off again further once ' +
    'run runs smarter differently system workflow fact facts'
  ).split(' '),
);

/** Lower-case word stems of 3+ letters, stop words dropped; a light suffix strip groups "tests"/"testing". */
export function tokenize(text: string): string[] {
  const words = text.toLowerCase().match(/[a-z][a-z0-9]+/g) ?? [];
  const tokens: string[] = [];
  for (const word of words) {
    if (word.length < 3 || STOP_WORDS.has(word)) continue;
    tokens.push(stem(word));
  }
  return tokens;
}

function stem(word: string): string {
  for (const suffix of ['ations', 'ation', 'ings', 'ing', 'ies', 'ed', 'es', 's']) {
    if (word.length - suffix.length >= 4 && word.endsWith(suffix)) return suffix === 'ies' ? `${word.slice(0, -3)}y` : word.slice(0, -suffix.length);
  }
  return word;
}

/** A fitted vocabulary: inverse document frequencies from a corpus, reusable for new texts. */
export class TfIdf {
  private readonly idf = new Map<string, number>();
  readonly vectors: SparseVector[];

  constructor(documents: readonly string[]) {
    const tokenized = documents.map(tokenize);
    const df = new Map<string, number>();
    for (const tokens of tokenized) for (const t of new Set(tokens)) df.set(t, (df.get(t) ?? 0) + 1);
    const n = documents.length;
    for (const [term, count] of df) this.idf.set(term, Math.log((1 + n) / (1 + count)) + 1);
    this.vectors = tokenized.map((tokens) => this.weigh(tokens));
  }

  /** A new text in this corpus's terms; words the corpus never saw carry no weight. */
  vectorize(text: string): SparseVector {
    return this.weigh(tokenize(text).filter((t) => this.idf.has(t)));
  }

  private weigh(tokens: readonly string[]): SparseVector {
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    const vector = new Map<string, number>();
    for (const [term, count] of tf) vector.set(term, count * (this.idf.get(term) ?? 0));
    return normalize(vector);
  }
}

export function normalize(vector: ReadonlyMap<string, number>): SparseVector {
  let norm = 0;
  for (const v of vector.values()) norm += v * v;
  norm = Math.sqrt(norm);
  if (norm === 0) return new Map();
  const out = new Map<string, number>();
  for (const [k, v] of vector) out.set(k, v / norm);
  return out;
}

/** Cosine similarity of two vectors (normalized vectors make it a dot product). */
export function cosine(a: SparseVector, b: SparseVector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [k, v] of small) {
    const w = large.get(k);
    if (w !== undefined) dot += v * w;
  }
  return dot;
}

/** The weighted mean of vectors, normalized. */
export function centroid(vectors: readonly SparseVector[], weights: readonly number[] = vectors.map(() => 1)): SparseVector {
  const sum = new Map<string, number>();
  vectors.forEach((v, i) => {
    for (const [k, x] of v) sum.set(k, (sum.get(k) ?? 0) + x * weights[i]!);
  });
  return normalize(sum);
}

/** The heaviest terms of a vector, for naming a theme. */
export function topTerms(vector: SparseVector, count: number): string[] {
  return [...vector.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, count)
    .map(([term]) => term);
}
