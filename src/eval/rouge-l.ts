// ROUGE-L (Lin, 2004): the longest common subsequence of words as an F-measure, ×100 as papers report it.

/** Lowercase word tokens, as the reference implementation (`rouge_score`) splits them, letters beyond ASCII kept. */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Length of the longest common subsequence, in O(n·m) time and O(m) memory. */
export function longestCommonSubsequence(a: readonly string[], b: readonly string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      current[j] = a[i - 1] === b[j - 1] ? (previous[j - 1] ?? 0) + 1 : Math.max(previous[j] ?? 0, current[j - 1] ?? 0);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length] ?? 0;
}

/**
 * ROUGE-L F-measure of a candidate against a reference, 0..100. `beta` weighs recall over precision; 1 (the default,
 * as in `rouge_score`) is the harmonic mean.
 */
export function rougeL(candidate: string, reference: string, options: { beta?: number } = {}): number {
  const beta = options.beta ?? 1;
  const candidateWords = words(candidate);
  const referenceWords = words(reference);
  const lcs = longestCommonSubsequence(candidateWords, referenceWords);
  if (lcs === 0) return 0;
  const precision = lcs / candidateWords.length;
  const recall = lcs / referenceWords.length;
  return (100 * ((1 + beta * beta) * precision * recall)) / (recall + beta * beta * precision);
}
