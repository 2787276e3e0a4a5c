// Recall@k: the share of the relevant items found among the first k ranked.

/** |relevant ∩ ranked[0..k)| / |relevant|; with one relevant item it is 1 when it is in the top k, else 0. */
export function recallAtK(ranked: readonly string[], relevant: readonly string[], k: number): number {
  const wanted = new Set(relevant);
  if (wanted.size === 0) return 0;
  let found = 0;
  for (const item of new Set(ranked.slice(0, Math.max(0, k)))) if (wanted.has(item)) found++;
  return found / wanted.size;
}
