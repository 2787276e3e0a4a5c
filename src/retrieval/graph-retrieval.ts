// The graph retriever: keywords → the entities they name → the chunks that mention them, ranked by how many of the
// matched entities and relations each chunk carries → the clips of those chunks.

import type { Store } from "../spec/index.js";
import type { ClipRetrieverOptions, ScoredClip } from "./clip-retrievers.js";
import { analyzeText, eachMatch, keyMatcher, termKeyFor, tokenize } from "./query-analyzer.js";

/** Entities matched per question: enough for the names a question uses, few enough to stay specific. */
const matchedEntities = 30;
/** Chunks read per matched entity; a common entity ("water") has thousands, and the rarest ones decide anyway. */
const chunksPerEntity = 200;
/** A relation between two matched entities stated in a chunk counts this much next to one entity. */
const relationWeight = 0.5;
/**
 * An entity matching less than this share of the best match is left out: names outweigh descriptions five to one, so
 * an entity found only because its description mentions a keyword ("person", described as seen with a bicycle) falls
 * below it whenever some entity is named by the keyword itself.
 */
const minimumShareOfBest = 0.3;
/** Entities named in a provenance line. */
const entitiesShown = 3;

interface ChunkTally {
  videoId: string;
  chunkIndex: number;
  score: number;
  entities: { name: string; weight: number }[];
}

/**
 * Clips best first. An entity counts by its match strength relative to the best match (a name that carries every
 * keyword counts 1; one sharing a single common word counts little), so a chunk carrying the question's specific
 * entities outranks one that mentions many loosely related ones. Inside a chunk, clips that name more of the matched
 * entities come first, and only clips whose own text (said, shown or seen) holds a keyword, or its stem, are returned:
 * an entity matched by its description alone ("person", described as seen with cars) leads to chunks that may never
 * mention what was asked.
 */
export async function graphClips(store: Store, keywords: string[], options: ClipRetrieverOptions): Promise<ScoredClip[]> {
  const weights = new Map<string, number>();
  for (const keyword of keywords) for (const word of analyzeText(keyword, options.language)) weights.set(word, (weights.get(word) ?? 0) + 1);
  // Keywords, entity names and clip text all keyed alike, in the question's language.
  const termKey = termKeyFor(options.language);
  if (weights.size === 0 || options.limit <= 0) return [];
  const terms = [...weights].map(([text, weight]) => ({ text, weight }));
  const keywordKeys = new Set([...weights.keys()].map(termKey));
  const matches = await store.searchEntities({ terms, limit: matchedEntities, ...(options.videoIds ? { videoIds: options.videoIds } : {}) });
  const bestScore = matches[0]?.score ?? 1;
  const entities = matches.filter((entity) => entity.score >= minimumShareOfBest * bestScore);
  if (entities.length === 0) return [];
  const entityWeight = new Map(entities.map((entity) => [entity.key, entity.score / bestScore]));
  const entityName = new Map(entities.map((entity) => [entity.key, entity.name]));

  const tallies = new Map<string, ChunkTally>();
  const tally = (videoId: string, chunkIndex: number): ChunkTally => {
    const key = `${videoId}#${chunkIndex}`;
    let entry = tallies.get(key);
    if (!entry) tallies.set(key, (entry = { videoId, chunkIndex, score: 0, entities: [] }));
    return entry;
  };
  const keys = entities.map((entity) => entity.key);
  const mentions = await store.entityChunks(keys, { limitPerEntity: chunksPerEntity, ...(options.videoIds ? { videoIds: options.videoIds } : {}) });
  for (const mention of mentions) {
    const weight = entityWeight.get(mention.entityKey) ?? 0;
    const entry = tally(mention.videoId, mention.chunkIndex);
    entry.score += weight;
    entry.entities.push({ name: entityName.get(mention.entityKey) ?? "", weight });
  }
  for (const relation of await store.relationsAmong(keys)) {
    const weight = relationWeight * Math.min(entityWeight.get(relation.sourceKey) ?? 0, entityWeight.get(relation.targetKey) ?? 0);
    for (const source of relation.sources) {
      const entry = tallies.get(`${source.videoId}#${source.chunkIndex}`);
      if (entry) entry.score += weight;
    }
  }
  const chunks = [...tallies.values()]
    .sort((a, b) => b.score - a.score || a.videoId.localeCompare(b.videoId) || a.chunkIndex - b.chunkIndex)
    .slice(0, options.limit);
  // Chunks are read a few at a time, best first: the first few usually give all the clips asked for, and reading the
  // text of every clip of every ranked chunk was a tenth of a hybrid search.
  const clips: ScoredClip[] = [];
  for (let first = 0; first < chunks.length && clips.length < options.limit; first += chunksPerRead) {
    await addChunkClips(store, chunks.slice(first, first + chunksPerRead), keywordKeys, termKey, options.limit, clips);
  }
  return clips;
}

/** Chunks whose clips are read at once. */
const chunksPerRead = 4;

/**
 * Appends to `clips`, up to `limit`, the clips of these chunks whose own text holds a keyword, best first inside each
 * chunk: a clip that names more of the chunk's matched entities ranks higher (a tenth of a point each, below one
 * entity's weight).
 */
async function addChunkClips(
  store: Store,
  chunks: ChunkTally[],
  keywordKeys: ReadonlySet<string>,
  termKey: (word: string) => string,
  limit: number,
  clips: ScoredClip[],
): Promise<void> {
  const spans = new Map((await store.getChunks(chunks)).map((chunk) => [`${chunk.videoId}#${chunk.index}`, chunk]));
  // The clips of these chunks in one read.
  const clipKeys = chunks.flatMap((chunk) => {
    const span = spans.get(`${chunk.videoId}#${chunk.chunkIndex}`);
    return span ? Array.from({ length: span.clipEnd - span.clipStart + 1 }, (_, offset) => ({ videoId: chunk.videoId, clipIndex: span.clipStart + offset })) : [];
  });
  const clipDocuments = new Map((await store.getClips(clipKeys)).map((document) => [`${document.videoId}#${document.index}`, document]));
  for (const chunk of chunks) {
    const span = spans.get(`${chunk.videoId}#${chunk.chunkIndex}`);
    if (!span) continue;
    const names = chunk.entities.sort((a, b) => b.weight - a.weight).map((entity) => entity.name);
    const nameKeys = names.map((name) => tokenize(name).map(termKey));
    const documents = Array.from({ length: span.clipEnd - span.clipStart + 1 }, (_, offset) => clipDocuments.get(`${chunk.videoId}#${span.clipStart + offset}`)).filter(
      (document) => document !== undefined,
    );
    // Only the keywords' and the names' keys are looked for.
    const match = keyMatcher(new Set([...keywordKeys, ...nameKeys.flat()]), termKey);
    const inChunk = documents
      .flatMap((document) => {
        // The keys its words carry; a word whose first letter begins no key is passed over ("the", forty times a clip).
        const words = new Set<string>();
        eachMatch(`${document.transcript} ${document.screen} ${document.visual}`, match, (_word, key) => words.add(key));
        if (![...keywordKeys].some((key) => words.has(key))) return [];
        const named = nameKeys.filter((key) => key.length > 0 && key.every((word) => words.has(word))).length;
        return [{ document, score: chunk.score + named / (10 * Math.max(1, names.length)) }];
      })
      .sort((a, b) => b.score - a.score || a.document.index - b.document.index);
    for (const { document, score } of inChunk) {
      if (clips.length >= limit) return;
      const rounded = Math.round(score * 1000) / 1000;
      clips.push({
        videoId: document.videoId,
        clipIndex: document.index,
        startSecond: document.startSecond,
        endSecond: document.endSecond,
        score: rounded,
        provenance: { retriever: "graph", rank: clips.length + 1, score: rounded, entities: [...new Set(names)].slice(0, entitiesShown) },
      });
    }
    if (clips.length >= limit) return;
  }
}
