// The evidence a hit shows for the query: the words of its moment that match the query's terms (or their stems), added
// to the provenance of each retriever that matched words (BM25 over all text, the graph, detections and tags), so that
// `search --explain` and the API can say why a moment was returned.

import type { ClipDocument, HitProvenance } from "../spec/index.js";
import { eachMatch, keyMatcher, termKeyFor } from "./query-analyzer.js";

/** Matching words shown per retriever. */
const wordsShown = 6;

/** The words of a moment's clips that match the query, as written (lowercase), across all text and in visual words. */
export interface MomentWords {
  all: string[];
  visual: string[];
}

/**
 * The distinct words of the clips' text whose stem is one of `termKeys`, in order of first appearance; stems as
 * `termKeyFor(language)` makes them, the question's language.
 */
export function momentWords(clips: readonly ClipDocument[], termKeys: ReadonlySet<string>, language?: string): MomentWords {
  const match = keyMatcher(termKeys, termKeyFor(language));
  const matching = (texts: string[]): string[] => {
    const found = new Set<string>();
    for (const text of texts) eachMatch(text, match, (word) => found.add(word));
    return [...found];
  };
  return {
    all: matching(clips.flatMap((clip) => [clip.transcript, clip.screen, clip.visual])),
    visual: matching(clips.map((clip) => clip.visual)),
  };
}

/**
 * The provenance with the words each retriever matched: BM25 and the graph any of the moment's words, the visual
 * retriever (by detections and tags) its visual words. Vector matches (dense text, image-text) keep their similarity,
 * which is their evidence.
 */
export function withEvidence(found: HitProvenance, words: MomentWords): HitProvenance {
  const listed = (list: string[]): string =>
    list.length > wordsShown ? `${list.slice(0, wordsShown).join(", ")}, …` : list.join(", ");
  if ((found.retriever === "bm25" || found.retriever === "graph") && words.all.length > 0) {
    return { ...found, detail: [found.detail, `words: ${listed(words.all)}`].filter(Boolean).join(", ") };
  }
  if (found.retriever === "visual" && found.detail === visualWordsDetail && words.visual.length > 0) {
    return { ...found, detail: `${visualWordsDetail}: ${listed(words.visual)}` };
  }
  return found;
}

/** The visual retriever's note when it matched detections and tags as words (no image-text encoder). */
export const visualWordsDetail = "detections and tags";
