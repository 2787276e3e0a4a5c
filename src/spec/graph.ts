// The knowledge graph's vocabulary: chunks of consecutive clips, the entities and relations read from them, and the
// merged graph across videos with the provenance of every node and edge. Types only.

/** Consecutive clip descriptions of one video grouped under a token budget: the unit entities are extracted from. */
export interface Chunk {
  videoId: string;
  /** 0-based, in time order within the video. */
  index: number;
  /** First and last clip (inclusive) whose text the chunk holds. */
  clipStart: number;
  clipEnd: number;
  startSecond: number;
  endSecond: number;
  text: string;
  /** Approximate tokens in `text` (words × 1.3, as the budget counts them). */
  tokenCount: number;
}

/** An entity as one chunk mentions it. */
export interface ExtractedEntity {
  /** As written ("Popeye", "disc brake"). */
  name: string;
  /** Lowercase kind: "person", "organization", "location", "object", "event", "concept", … */
  type: string;
  /** What this chunk says about it; may be empty. */
  description: string;
}

/** Two entities of one chunk and what relates them. */
export interface ExtractedRelation {
  /** Entity names as given in the same chunk's `entities`. */
  source: string;
  target: string;
  description: string;
  /** 1 (weak) to 10 (strong). */
  strength: number;
}

/** What was read from one chunk. */
export interface ChunkExtraction {
  chunkIndex: number;
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
}

/** An extracted entity with the normalised name that identifies it in the graph ("The Brakes" → "brake"). */
export interface KeyedEntity extends ExtractedEntity {
  nameKey: string;
}

/** A relation between two keyed entities of the same chunk. */
export interface KeyedRelation extends ExtractedRelation {
  sourceKey: string;
  targetKey: string;
}

/** Everything a video brings to the graph, written with the video in one transaction. */
export interface VideoGraph {
  /** Which extractor produced it, e.g. "lite-entities@1" or "gpt-4o-mini". */
  extractor: string;
  chunks: Omit<Chunk, "videoId">[];
  /** One per chunk that yielded anything; an entity appears once per chunk. */
  extractions: { chunkIndex: number; entities: KeyedEntity[]; relations: KeyedRelation[] }[];
  /**
   * Name vectors for merging by meaning where no normalised name matches (e.g. "Bob Smith" ≈ "Robert Smith"),
   * by `nameKey`, all in `entityVectorSpace`.
   */
  entityVectors?: { nameKey: string; vector: Float32Array }[];
  /** The embedder's space for `entityVectors`, e.g. "entity:Xenova/all-MiniLM-L6-v2". */
  entityVectorSpace?: string;
  /** Largest cosine distance at which two differently named entities of one type merge; default 0.1. */
  mergeDistance?: number;
}

/** Where an entity or relation came from. */
export interface GraphSource {
  videoId: string;
  chunkIndex: number;
  clipStart: number;
  clipEnd: number;
  /** What that chunk said about it. */
  description: string;
}

/** One node of the merged graph. */
export interface GraphEntity {
  /** Stable while the entity exists. */
  key: number;
  /** The normalised name that identifies it ("popeye", "disc brake"). */
  nameKey: string;
  /** The name as first written. */
  name: string;
  type: string;
  /** One description synthesised from all its sources; empty until synthesised. */
  description: string;
  /** True when its sources changed since the description was synthesised. */
  descriptionStale: boolean;
  /** Grows with every change of its sources: hand it back with a description written from these sources. */
  changeSequence: number;
  sources: GraphSource[];
}

/** A description written for an entity from its sources as of `changeSequence`. */
export interface EntityDescriptionUpdate {
  key: number;
  description: string;
  /** The entity's `changeSequence` when its sources were read; the update is refused if they changed since. */
  changeSequence?: number;
}

/** An entity found for a query. */
export interface EntityMatch {
  key: number;
  name: string;
  type: string;
  description: string;
  /** Higher is better (BM25 over names, then descriptions). */
  score: number;
}

/** An edge of the merged graph between two matched entities, with each chunk that states it. */
export interface GraphRelation {
  sourceKey: number;
  targetKey: number;
  description: string;
  /** Summed over its sources. */
  strength: number;
  sources: GraphSource[];
}

/** Sizes of the graph. */
export interface GraphStats {
  chunks: number;
  entities: number;
  relations: number;
  /** Entities with sources in two or more videos. */
  crossVideoEntities: number;
}
