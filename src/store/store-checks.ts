// Argument checks every store makes the same way, so a bad call fails with the same code and message on any backend.

import { checkVector } from "../graph/merge-graph.js";
import { stemWords } from "../text/index.js";
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
