// Topic segmentation of a video's utterances: where the words change, there a new chapter starts. The model is Utiyama
// and Isahara's (2001): each chapter's words are drawn from a language model of its own (Laplace-smoothed unigrams), a
// segmentation costs the words' description length under their chapters' models plus a price per chapter, and dynamic
// programming finds the cheapest. It needs no training and no count of chapters. Priors from what a viewer sees and
// hears lower the price of a boundary: a pause in speech, a new slide title, a new picture.

import type { Utterance } from "./utterances.js";

/** What besides the words suggests a boundary before an utterance. */
export interface BoundaryPriors {
  /** Seconds of silence before each utterance (index i: before utterance i). */
  pauseSeconds?: readonly number[];
  /** Times at which the on-screen text changed to a new title (a slide). */
  slideChanges?: readonly number[];
  /** Times at which the picture changed (a cut). */
  pictureChanges?: readonly number[];
}

export interface SegmentationSettings {
  /** The price of a chapter, as a multiple of log(number of words) (Utiyama and Isahara's prior is 1). */
  chapterPenalty: number;
  /** Nats off a boundary's price per second of pause before it, up to `maxPauseSeconds`. */
  pauseWeight: number;
  maxPauseSeconds: number;
  /** Nats off a boundary's price where a slide changes within `priorWindowSeconds`. */
  slideWeight: number;
  /** Nats off a boundary's price where the picture changes within `priorWindowSeconds`. */
  pictureWeight: number;
  priorWindowSeconds: number;
  /** How long after the utterance that starts a slide's chapter the new slide may be first read. */
  slideLagSeconds: number;
  /** No chapter shorter than this. */
  minChapterSeconds: number;
  /** Nor with fewer content words than this. */
  minChapterWords: number;
  /** Longest chapter considered, in utterances: bounds the work on long videos. */
  maxChapterUtterances: number;
}

/** Cross-validated with `npm run bench summaries` on joined how-to transcripts and generated narrated videos. */
export const defaultSegmentationSettings: SegmentationSettings = {
  chapterPenalty: 2,
  pauseWeight: 1,
  maxPauseSeconds: 5,
  slideWeight: 12,
  pictureWeight: 3,
  priorWindowSeconds: 2,
  slideLagSeconds: 8,
  minChapterSeconds: 20,
  minChapterWords: 25,
  maxChapterUtterances: 600,
};

/**
 * The indexes of the utterances that start a chapter after the first (ascending; empty: one chapter). Cost is
 * O(n · words per chapter) for n utterances.
 */
export function segmentTopics(utterances: readonly Utterance[], priors: BoundaryPriors = {}, settings: SegmentationSettings = defaultSegmentationSettings): number[] {
  const count = utterances.length;
  if (count < 2) return [];
  // Stems as small integers, so counts live in a typed array.
  const ids = new Map<string, number>();
  const words = utterances.map((utterance) =>
    utterance.stems.map((stem) => {
      let id = ids.get(stem);
      if (id === undefined) ids.set(stem, (id = ids.size));
      return id;
    }),
  );
  const vocabulary = Math.max(1, ids.size);
  const totalWords = words.reduce((sum, list) => sum + list.length, 0);
  if (totalWords === 0) return [];
  const chapterPrice = settings.chapterPenalty * Math.log(Math.max(2, totalWords));
  // A short video (a two-minute slide deck) has short chapters: the minimums shrink to a sixth of it.
  const durationSeconds = (utterances.at(-1) as Utterance).endSecond - (utterances[0] as Utterance).startSecond;
  const minSeconds = Math.min(settings.minChapterSeconds, durationSeconds / 6);
  const minWords = Math.min(settings.minChapterWords, totalWords / 6);
  const bonus = boundaryBonuses(utterances, priors, settings);

  // best[j]: the cheapest segmentation of utterances [0, j); from[j]: where its last chapter starts.
  const best = new Float64Array(count + 1).fill(Number.POSITIVE_INFINITY);
  const from = new Int32Array(count + 1).fill(-1);
  best[0] = 0;
  const counts = new Uint32Array(vocabulary);
  for (let start = 0; start < count; start++) {
    if (!Number.isFinite(best[start] ?? Number.POSITIVE_INFINITY)) continue;
    const price = start === 0 ? 0 : chapterPrice - (bonus[start] ?? 0);
    counts.fill(0);
    let size = 0;
    // Σ c·log(c+1) over the chapter's words, kept as words are added.
    let gain = 0;
    const last = Math.min(count, start + settings.maxChapterUtterances);
    for (let end = start + 1; end <= last; end++) {
      for (const id of words[end - 1] ?? []) {
        const before = counts[id] ?? 0;
        gain += (before + 1) * Math.log(before + 2) - before * Math.log(before + 1);
        counts[id] = before + 1;
        size += 1;
      }
      const first = utterances[start] as Utterance;
      const final = utterances[end - 1] as Utterance;
      // A chapter too short to stand alone is allowed only as the whole video's end or start being all there is.
      // A chapter lasts until the next one starts, its silences included.
      const lasts = (end < count ? (utterances[end] as Utterance).startSecond : final.endSecond) - first.startSecond;
      const tooShort = lasts < minSeconds || size < minWords;
      if (tooShort && !(start === 0 && end === count)) continue;
      const cost = (best[start] as number) + price + size * Math.log(size + vocabulary) - gain;
      if (cost < (best[end] as number)) {
        best[end] = cost;
        from[end] = start;
      }
    }
  }
  if (!Number.isFinite(best[count] as number)) return [];
  const starts: number[] = [];
  for (let end = count; end > 0; end = from[end] as number) {
    const start = from[end] as number;
    if (start < 0) return [];
    if (start > 0) starts.push(start);
  }
  return starts.reverse();
}

/** For each utterance, the nats its boundary's price is lowered by: pause, slide change, picture change. */
function boundaryBonuses(utterances: readonly Utterance[], priors: BoundaryPriors, settings: SegmentationSettings): Float64Array {
  const bonus = new Float64Array(utterances.length);
  const near = (times: readonly number[] | undefined, at: number): boolean =>
    (times ?? []).some((time) => Math.abs(time - at) <= settings.priorWindowSeconds);
  utterances.forEach((utterance, index) => {
    if (index === 0) return;
    const previous = utterances[index - 1] as Utterance;
    const pause = priors.pauseSeconds?.[index] ?? Math.max(0, utterance.startSecond - previous.endSecond);
    let value = settings.pauseWeight * Math.min(pause, settings.maxPauseSeconds);
    // A change between the two utterances, or just before this one starts.
    const at = utterance.startSecond;
    // Screen text is read from sampled frames, so a new slide is seen up to one sampling gap after it appeared.
    const seenLater = (priors.slideChanges ?? []).some((time) => time >= at && time - at <= settings.slideLagSeconds);
    if (near(priors.slideChanges, at) || seenLater || (priors.slideChanges ?? []).some((time) => time > previous.endSecond && time <= at)) value += settings.slideWeight;
    if (near(priors.pictureChanges, at) || (priors.pictureChanges ?? []).some((time) => time > previous.endSecond && time <= at)) value += settings.pictureWeight;
    bonus[index] = value;
  });
  return bonus;
}
