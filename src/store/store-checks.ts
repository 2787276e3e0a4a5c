// Argument checks every store makes the same way, so a bad call fails with the same code and message on any backend.

import { checkVector } from "../graph/merge-graph.js";
import { indexedText, stemWords } from "../text/index.js";
import { VideoRagError, type Chapter, type EntityDescriptionUpdate, type LexicalQuery, type VectorQuery, type VectorRecord } from "../spec/index.js";

/** Throws ARGUMENT_INVALID unless the record is a well-formed vector of `videoId`. */
export function checkRecord(record: VectorRecord, videoId: string): void {
  const where = `a vector in space "${record.space}" for ${record.videoId} clip ${record.clipIndex}`;
  if (record.videoId !== videoId) {
    throw new VideoRagError("ARGUMENT_INVALID", `${where} was given for video ${videoId}`);
  }
  if (typeof record.space !== "string" || record.space === "") {
    throw new VideoRagError("ARGUMENT_INVALID", `a vector for ${videoId} has no space name`);
  }
  if (record.owner !== "clip" && record.owner !== "frame") {
    throw new VideoRagError("ARGUMENT_INVALID", `${where} has owner ${String(record.owner)}, not "clip" or "frame"`);
  }
  if (!Number.isInteger(record.clipIndex) || record.clipIndex < 0) {
    throw new VideoRagError("ARGUMENT_INVALID", `${where} needs a clip index that is an integer ≥ 0`);
  }
  if (record.timeSecond !== undefined && !(Number.isFinite(record.timeSecond) && record.timeSecond >= 0)) {
    throw new VideoRagError("ARGUMENT_INVALID", `${where} has a time that is not a number of seconds ≥ 0`);
  }
  checkVector(record.vector, where);
}

/** Throws ARGUMENT_INVALID unless a vector of `dimensions` may hold the record: a space's vectors all have one dimension. */
export function checkRecordDimensions(record: VectorRecord, dimensions: number): void {
  if (record.vector.length !== dimensions) {
    throw new VideoRagError(
      "ARGUMENT_INVALID",
      `space "${record.space}" holds ${dimensions}-dimensional vectors; ${record.videoId} clip ${record.clipIndex} ` +
        `brought one with ${record.vector.length} dimensions`,
    );
  }
}

/** Throws ARGUMENT_INVALID unless the query has a limit ≥ 0 and a vector with a direction (cosine needs one). */
export function checkVectorQuery(query: VectorQuery): void {
  checkLimit(query.limit, "a vector search");
  checkVector(query.vector, "the query vector");
  // A zero vector has no direction: its cosine distance to anything is undefined (NULL in sqlite-vec, NaN in pgvector).
  if (query.vector.every((value) => value === 0)) {
    throw new VideoRagError("ARGUMENT_INVALID", "the query vector is all zeros, so no cosine distance can be taken");
  }
}

/** Throws ARGUMENT_INVALID unless the query's vector has the dimension of the space it searches. */
export function checkQueryDimensions(query: VectorQuery, dimensions: number): void {
  if (dimensions !== query.vector.length) {
    throw new VideoRagError(
      "ARGUMENT_INVALID",
      `space "${query.space}" holds ${dimensions}-dimensional vectors; the query vector has ${query.vector.length} dimensions`,
    );
  }
}

/**
 * A lexical query's field weights (the defaults where it gives none) and its limit, floored; ARGUMENT_INVALID unless the
 * limit is ≥ 0 and every weight a number ≥ 0 (SQLite writes the weights into its SQL).
 */
export function checkLexicalQuery(query: LexicalQuery): { fieldWeights: { transcript: number; screen: number; visual: number }; limit: number } {
  const fieldWeights = { ...defaultFieldWeights, ...query.fieldWeights };
  const weightsValid = Object.values(fieldWeights).every((weight) => Number.isFinite(weight) && weight >= 0);
  if (!weightsValid || !(query.limit >= 0) || !Number.isFinite(query.limit)) {
    throw new VideoRagError("ARGUMENT_INVALID", "a search needs a limit ≥ 0 and field weights that are numbers ≥ 0");
  }
  return { fieldWeights, limit: Math.floor(query.limit) };
}

/** Throws ARGUMENT_INVALID unless `limit` is a finite number ≥ 0 (callers floor a fraction); `action` needs it. */
export function checkLimit(limit: number, action: string): void {
  if (!(limit >= 0) || !Number.isFinite(limit)) throw new VideoRagError("ARGUMENT_INVALID", `${action} needs a limit ≥ 0`);
}

/** Throws ARGUMENT_INVALID unless every update's description is text. */
export function checkDescriptions(updates: EntityDescriptionUpdate[]): void {
  for (const update of updates) {
    if (typeof update.description !== "string") {
      throw new VideoRagError("ARGUMENT_INVALID", `entity ${update.key}'s description must be text`);
    }
  }
}

/** Throws ARGUMENT_INVALID unless `value` is a whole number ≥ 0 (a limit, a count). */
export function checkCount(value: number, what: string): void {
  if (!Number.isInteger(value) || value < 0) throw new VideoRagError("ARGUMENT_INVALID", `${what} must be an integer ≥ 0`);
}

/** True when the text has something a tokenizer keeps. */
export const hasToken = (text: string): boolean => /[\p{L}\p{N}]/u.test(text);

/**
 * True when a query term is one word as every store indexes it (letters and digits only, once written as the indexes
 * write text): the terms whose document counts both stores know alike, so `commonTerms` may judge them.
 */
export const isOneWord = (text: string): boolean => /^[\p{L}\p{N}]+$/u.test(indexedText(text).trim());

/**
 * Documents a term must be in, at least, to be left out of a search by `commonTerms`: below this its list costs little
 * to read, and in a small library every document that holds a query word is worth listing.
 */
export const commonTermMinimum = 1_000;

/**
 * The share of documents holding a term from which `commonTerms` leaves it out of a BM25 search of clips, videos or
 * chapters: BM25 as FTS5 computes it floors the idf of a term that at least half the documents hold at 1e-6, so such a
 * term adds a millionth of a point to a document that holds a rarer query word, and on its own brings in documents
 * that hold nothing else the search asked for, scored near zero. It costs the most to search all the same, its list
 * being the longest ("make" is in 6,891 of 8,648 how-to videos).
 */
export const flooredShare = 0.5;

/**
 * The share for entity searches: an entity is found by its name, and a word in more than 1 of 20 entities' names and
 * descriptions names none of them ("make", "like", "one": descriptions quote what is said). Measured on the how-to
 * library (45,534 entities): the 534 dev and 267 human questions' source videos rank as before with shares of 2%, 5%
 * and 10%, and the entity search of its costliest question went from 11.4 to 0.8 ms.
 */
export const commonEntityShare = 0.05;

/**
 * The one-word terms of a BM25 search too common to rank by, to be left out of it: those that at least `share` of the
 * `documents` hold, and at least `commonTermMinimum`, when something else remains (a one-word term fewer documents
 * hold, a term of more words, or a phrase: `othersRemain`). `counts`: documents holding each one-word term in the
 * searched fields. A search left with fewer results than its limit is run again with them (both stores do so, so they
 * rank alike).
 */
export function commonTerms(counts: ReadonlyMap<string, number>, documents: number, othersRemain: boolean, share: number): Set<string> {
  const common = new Set<string>();
  let remains = othersRemain;
  for (const [term, count] of counts) {
    if (count > 0 && count >= share * documents) {
      if (count >= commonTermMinimum) common.add(term);
    } else if (count > 0) remains = true;
  }
  return remains ? common : new Set();
}

/**
 * The query's terms, lowercased and merged, with their summed weights; terms with no token or no weight are dropped.
 * `language`: the terms' language, where known; text in it is indexed by its Snowball stems (indexed-text.ts), so each
 * term is asked for as its stem too ("Häuser" finds a German "Haus").
 */
export function termWeights(terms: { text: string; weight: number }[], language?: string): Map<string, number> {
  const languages = language && language !== "en" ? [language] : [];
  const weights = new Map<string, number>();
  for (const term of terms) {
    const text = term.text.trim().toLowerCase();
    if (!hasToken(text) || !(term.weight > 0)) continue;
    weights.set(text, (weights.get(text) ?? 0) + term.weight);
    for (const language of languages) {
      const stemmed = stemWords(text, language);
      if (stemmed !== text) weights.set(stemmed, (weights.get(stemmed) ?? 0) + term.weight);
    }
  }
  return weights;
}

/** Field weights a lexical search uses when the query gives none: transcript, screen text, visual words. */
export const defaultFieldWeights = { transcript: 1, screen: 0.8, visual: 0.5 };

/** Entity search weights: a name (or alias) counts fully, a synthesised description a fifth. */
export const entityFieldWeights = { name: 1, description: 0.2 };

/** Chapter search weights (see `ChapterStore.searchChapters`): a title counts twice, a summary and the text once. */
export const chapterFieldWeights = { title: 2, summary: 1, text: 1 };

/**
 * Throws ARGUMENT_INVALID unless every chapter of `videoId` is well formed, with an index of its own: a bad chapter
 * would otherwise fail on one store's constraint (STORE_FAILED) and be stored by another.
 */
export function checkChapters(chapters: Chapter[], videoId: string): void {
  const indexes = new Set<number>();
  for (const chapter of chapters) {
    const where = `chapter ${String(chapter.index)} of ${videoId}`;
    if (!Number.isInteger(chapter.index) || chapter.index < 0) throw new VideoRagError("ARGUMENT_INVALID", `${where} needs an index that is an integer ≥ 0`);
    if (indexes.has(chapter.index)) throw new VideoRagError("ARGUMENT_INVALID", `${videoId} has two chapters with index ${chapter.index}`);
    indexes.add(chapter.index);
    if (!(Number.isFinite(chapter.startSecond) && Number.isFinite(chapter.endSecond) && chapter.startSecond >= 0 && chapter.endSecond >= chapter.startSecond)) {
      throw new VideoRagError("ARGUMENT_INVALID", `${where} needs 0 ≤ startSecond ≤ endSecond`);
    }
    for (const field of ["title", "summary", "text", "madeBy"] as const) {
      if (typeof chapter[field] !== "string") throw new VideoRagError("ARGUMENT_INVALID", `${where} needs ${field} to be text`);
    }
  }
}

/** Chunks per entity that `entityChunks` returns when not told. */
export const defaultChunksPerEntity = 50;

/** Relations per entity that `relationsOf` returns when not told. */
export const defaultRelationsPerEntity = 20;

/**
 * The whole-video BM25 document from its clips, in clip order. Screen lines are kept once: a slide left up for minutes
 * is in every clip it covers and would otherwise count once per clip.
 */
export function videoDocument(clips: { transcript: string; screen: string; visual: string }[]): [transcript: string, screen: string, visual: string] {
  const whole = { transcript: [] as string[], screen: new Set<string>(), visual: [] as string[] };
  for (const clip of clips) {
    whole.transcript.push(clip.transcript);
    for (const line of clip.screen.split("\n")) if (line.trim()) whole.screen.add(line.trim());
    whole.visual.push(clip.visual);
  }
  return [whole.transcript.join("\n"), [...whole.screen].join("\n"), whole.visual.join("\n")];
}
