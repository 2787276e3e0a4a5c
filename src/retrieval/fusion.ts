// Reciprocal rank fusion: each retriever's ranked list contributes 1/(k + rank) to an item; ranks, not scores, are
// fused, so BM25 scores and cosine distances need no common scale.

/** The constant of Cormack et al. (2009); it damps the weight of the very top ranks. */
export const rrfK = 60;

export interface RankedList<T> {
  retriever: string;
  items: T[];
  /** Multiplies the list's contributions; default 1. */
  weight?: number;
}

export interface Fused<T> {
  item: T;
  score: number;
  /** The retrievers that ranked the item, best contribution first. */
  retrievers: string[];
}

/** Fuses ranked lists; items are matched by `keyOf`, and the first list's copy of an item is kept. */
export function reciprocalRankFusion<T>(lists: RankedList<T>[], keyOf: (item: T) => string, k = rrfK): Fused<T>[] {
  const fused = new Map<string, { item: T; score: number; contributions: { retriever: string; share: number }[] }>();
  for (const list of lists) {
    list.items.forEach((item, rank) => {
      const key = keyOf(item);
      const share = (list.weight ?? 1) / (k + rank + 1);
      const entry = fused.get(key) ?? { item, score: 0, contributions: [] };
      entry.score += share;
      entry.contributions.push({ retriever: list.retriever, share });
      fused.set(key, entry);
    });
  }
  return [...fused.values()]
    .map((entry) => ({
      item: entry.item,
      score: entry.score,
      retrievers: entry.contributions.sort((a, b) => b.share - a.share).map((contribution) => contribution.retriever),
    }))
    .sort((a, b) => b.score - a.score);
}
