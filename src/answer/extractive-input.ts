// What the extractive answer reads from the store: the sentences around each moment, and how informative each of the
// question's words is in the library. Read beforehand, since choosing the sentences is synchronous.

import { analyzeText, termKeyFor } from "../retrieval/index.js";
import type { Hit, Segment, Store } from "../spec/index.js";
import type { ExtractiveInput } from "./extractive-answer.js";
import { readSpeakerNaming } from "./speaker-naming.js";

/** Seconds read on each side of a moment: the sentence that answers may sit next to the one that matched best. */
const momentMarginSeconds = 15;

/** How a lite answer is read and chosen, besides its question and moments. */
export interface ExtractiveOptions {
  /** At most this many sentences. */
  maxSentences?: number;
  /** Each video's labels of the speaker asked about: only their lines are read. */
  speakers?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Name a video's speaker even where it is its only, unnamed, voice (a question about speakers). */
  everyVoice?: boolean;
  /** The question's language (ISO 639-1): its stop words are left out and its words matched by their stems in it. */
  language?: string;
}

/**
 * The extractive answer's input for a question and its moments. Sentences are matched on stems; a stem is as
 * informative as the rarest of the question's words sharing it.
 */
export async function readExtractiveInput(
  store: Store,
  question: string,
  moments: Hit[],
  timesEstimated: (videoId: string) => Promise<boolean>,
  options: Omit<ExtractiveOptions, "maxSentences"> = {},
): Promise<ExtractiveInput> {
  const { language } = options;
  const termKey = termKeyFor(language);
  const words = analyzeText(question, language);
  const { frequencies, documentCount } = await store.termDocumentFrequency(words);
  const stemFrequency = new Map<string, number>();
  for (const word of words) {
    const frequency = frequencies.get(word) ?? 0;
    const key = termKey(word);
    stemFrequency.set(key, Math.min(stemFrequency.get(key) ?? frequency, frequency));
  }
  const sentences = new Map<Hit, Segment[]>();
  const estimated = new Map<string, boolean>();
  const ranges = await store.getSegmentRanges(
    moments.map((moment) => ({ videoId: moment.videoId, startSecond: moment.startSecond - momentMarginSeconds, endSecond: moment.endSecond + momentMarginSeconds })),
  );
  // A question about one speaker reads only that speaker's lines.
  const bySpeaker = options.speakers;
  for (const [at, moment] of moments.entries()) {
    const read = ranges[at] ?? [];
    const labels = bySpeaker?.get(moment.videoId);
    sentences.set(moment, bySpeaker ? read.filter((segment) => segment.speaker !== undefined && labels?.has(segment.speaker)) : read);
    estimated.set(moment.videoId, await timesEstimated(moment.videoId));
  }
  const speakerOf = await readSpeakerNaming(
    store,
    moments.map((moment, at) => ({ videoId: moment.videoId, segments: ranges[at] ?? [] })),
    { everyVoice: options.everyVoice === true || bySpeaker !== undefined },
  );
  return {
    question,
    moments,
    sentencesOf: (moment) => sentences.get(moment) ?? [],
    analyze: (text) => analyzeText(text, language).map(termKey),
    termWeight: (key) => Math.log(1 + (documentCount + 1) / ((stemFrequency.get(key) ?? 0) + 1)),
    timesEstimated: (videoId) => estimated.get(videoId) ?? false,
    speakerOf,
  };
}
