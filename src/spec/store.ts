// The Store seam: what ingest writes and retrieval reads. SQLite is the default implementation.

import type { Chunk, EntityDescriptionUpdate, EntityMatch, GraphEntity, GraphRelation, GraphStats, VideoGraph } from "./graph.js";
import type { Clip, Frame, Segment, SegmentSource, Video } from "./model.js";

/** Everything a video contributes, written in one transaction when all its stages are done. */
export interface VideoContent {
  video: Omit<Video, "ingestedAt" | "clipCount">;
  clips: ClipDocument[];
  segments: Segment[];
  frames: Frame[];
  /** Content fingerprint of the source (sha256 hex), to notice a changed transcript with the same id. */
  fingerprint: string;
  /** Embeddings of the video's clips and frames; every record's `videoId` is the video's id. */
  vectors?: VectorRecord[];
  /** Chunks, entities and relations read from the video; merged into the library's graph when the video commits. */
  graph?: VideoGraph;
  /** The light index's signals per clip, for planning deferred work. */
  signals?: ClipSignals[];
  /** Deferred work per clip and stage, recorded with the video. */
  clipStages?: ClipStageRecord[];
}

/** Where one deferred stage stands on one clip. */
export type ClipStageStatus = "pending" | "done" | "failed";

/** A deferred stage's state on one clip, keyed by the stage's settings: a changed key means the work is pending again. */
export interface ClipStageRecord {
  clipIndex: number;
  stage: string;
  key: string;
  status: ClipStageStatus;
  /** Why it failed, as `CODE: message`. */
  error?: string;
}

export interface ClipStageState extends ClipStageRecord {
  videoId: string;
}

/** What the light index knows of a clip before its heavy stages run: where speech is, how often the picture changes. */
export interface ClipSignals {
  clipIndex: number;
  /** Seconds of speech found by voice-activity detection; undefined when it was not run (no detector, no audio). */
  speechSeconds?: number;
  /** The speech regions that start in this clip (they may run past its end); undefined when not known. */
  speechRegions?: [startSecond: number, endSecond: number][];
  /** Distinct pictures among the frames sampled in the clip, minus one: 0 for a still shot. */
  screenChanges: number;
  /** How many questions planned this clip for extraction or cited it. */
  asked?: number;
}

/** A deferred stage's output written back for some clips of a ready video, in one transaction. */
export interface ClipWriteBack {
  videoId: string;
  /** The clips' new documents, re-indexed for BM25; the whole-video document is rebuilt from all clips. */
  documents: ClipDocument[];
  /** For each clip, the sources whose segments it owns are deleted before `segments` are inserted. */
  replaces: { clipIndex: number; sources: SegmentSource[] }[];
  /** New segments, each owned by a clip (`clipIndex`). */
  segments: Segment[];
  /** Vectors added or replaced (same space, owner, clip and time). */
  vectors: VectorRecord[];
  /** Clips whose frame vectors are all replaced by those in `vectors` (a new visual pass over them). */
  replaceFrameVectors?: number[];
  /** The video's whole graph, replacing the stored one (entities it no longer names lose this video's sources). */
  graph?: VideoGraph;
  stages: ClipStageRecord[];
}

/** Deferred work over the library: clips are extracted when every stage on them is done. */
export interface ExtractionStatus {
  videos: number;
  clips: number;
  extractedClips: number;
  pendingClips: number;
  failedClips: number;
  stages: Record<string, { done: number; pending: number; failed: number }>;
  byVideo: { videoId: string; clips: number; extractedClips: number; pendingClips: number; failedClips: number }[];
}

/** A clip with its text per channel: the document BM25 indexes. */
export interface ClipDocument extends Clip {
  /** Subtitle, speech or transcript text inside the clip. */
  transcript: string;
  /** On-screen text inside the clip. */
  screen: string;
  /** Visual words (detections, tags, captions); empty in this release's lite profile. */
  visual: string;
}

/** A lexical query, already analysed by the retrieval layer. */
export interface LexicalQuery {
  /** Terms as the user typed them (the store's tokenizer stems them), each with a weight ≥ 0. */
  terms: { text: string; weight: number }[];
  /** Phrases (two or more words) that score extra when they occur together. */
  phrases?: string[];
  /** Field weights for transcript, screen and visual text. */
  fieldWeights?: { transcript: number; screen: number; visual: number };
  limit: number;
  /** Restrict to these videos. */
  videoIds?: string[];
}

export interface ClipMatch {
  videoId: string;
  clipIndex: number;
  startSecond: number;
  endSecond: number;
  /** Higher is better. */
  score: number;
}

/** A whole video ranked by a lexical query over all of its text taken as one document. */
export interface VideoMatch {
  videoId: string;
  /** Higher is better. */
  score: number;
}

/** What a vector describes: a whole clip (e.g. its text) or one sampled frame inside a clip. */
export type VectorOwner = "clip" | "frame";

/** One embedding, kept in a named space so that vectors from different models (and dimensions) never mix. */
export interface VectorRecord {
  /** The model and what it embedded, e.g. "text:Xenova/all-MiniLM-L6-v2"; every vector of a space has one dimension. */
  space: string;
  owner: VectorOwner;
  videoId: string;
  clipIndex: number;
  /** The second a frame was sampled at; a vector is one per (space, owner, video, clip, time). */
  timeSecond?: number;
  vector: Float32Array;
}

/** An exact nearest-neighbour query in one space. */
export interface VectorQuery {
  space: string;
  /** Must have the space's dimension. */
  vector: Float32Array;
  limit: number;
  /** Only clip vectors or only frame vectors; both when absent. */
  owner?: VectorOwner;
  /** Restrict to these videos. */
  videoIds?: string[];
}

export interface VectorMatch {
  videoId: string;
  clipIndex: number;
  timeSecond?: number;
  /** Cosine distance, 0 (same direction) to 2 (opposite); lower is better. */
  distance: number;
}

/** A vector space present in the store. */
export interface VectorSpace {
  space: string;
  dimensions: number;
  /** Vectors stored in it. */
  count: number;
}

export interface StageRecord {
  stage: string;
  /** Hash of the stage's inputs and settings: a changed key re-runs the stage. */
  key: string;
  output: unknown;
}

/** A span of one video, for reading its segments. */
export interface SegmentRange {
  videoId: string;
  startSecond: number;
  endSecond: number;
}

export interface Store {
  /** Ready videos, newest first. Pending (half-ingested) videos are never listed. */
  listVideos(): Promise<Video[]>;
  getVideo(id: string): Promise<Video | undefined>;
  /** Ready videos by id, in the order asked (undefined where there is none): one read for many, as a search needs. */
  getVideos(ids: string[]): Promise<(Video | undefined)[]>;
  /** The fingerprint a ready video was ingested with, if any. */
  getFingerprint(id: string): Promise<string | undefined>;
  /** Removes a video and everything it contributed; false when it was not there. */
  removeVideo(id: string): Promise<boolean>;

  /** Stage results saved by an unfinished ingest of this video, for resuming. */
  loadStages(videoId: string): Promise<StageRecord[]>;
  saveStage(videoId: string, record: StageRecord): Promise<void>;
  /** Drops the staged results of an ingest that failed on bad input. */
  discardStages(videoId: string): Promise<void>;
  /** Makes the video visible, atomically, replacing any earlier version with the same id, and drops its staged results. */
  commitVideo(content: VideoContent): Promise<void>;

  /** Best clips first, BM25 over each clip's fields; an empty list when no clip matches. */
  searchClips(query: LexicalQuery): Promise<ClipMatch[]>;
  /** Best videos first, BM25 over each video's whole text (all clips as one document per field). */
  searchVideos(query: LexicalQuery): Promise<VideoMatch[]>;
  getClips(keys: { videoId: string; clipIndex: number }[]): Promise<ClipDocument[]>;
  /** Segments of a video overlapping [startSecond, endSecond), with the clip that owns each where one does. */
  getSegments(videoId: string, startSecond: number, endSecond: number): Promise<(Segment & { source: SegmentSource })[]>;
  /** `getSegments` of each range, in the order asked, in one read: a search describes many moments at once. */
  getSegmentRanges(ranges: SegmentRange[]): Promise<(Segment & { source: SegmentSource })[][]>;
  /** Number of clip documents containing the term after the store's analysis, and the total; for query weighting. */
  termDocumentFrequency(terms: string[]): Promise<{ frequencies: Map<string, number>; documentCount: number }>;

  /**
   * Adds vectors to a ready video (e.g. from an embedder configured after ingest), replacing any with the same
   * (space, owner, clip, time), so adding the same records twice changes nothing. VIDEO_NOT_FOUND for no such video,
   * ARGUMENT_INVALID for a vector whose dimension differs from its space's.
   */
  addVectors(videoId: string, records: VectorRecord[]): Promise<void>;
  /** Nearest vectors first by exact cosine distance; an empty list for a space with no vectors. */
  searchVectors(query: VectorQuery): Promise<VectorMatch[]>;
  /** The spaces holding vectors, by name. */
  vectorSpaces(): Promise<VectorSpace[]>;
  /** Vectors stored for one video, or in the whole store. */
  vectorCount(videoId?: string): Promise<number>;

  /**
   * Entities whose name (weight 1) or synthesised description (weight 0.2) match the terms, best first, by BM25.
   * `videoIds` keeps only entities with a source in those videos.
   */
  searchEntities(query: { terms: { text: string; weight: number }[]; limit: number; videoIds?: string[] }): Promise<EntityMatch[]>;
  /**
   * An entity by its key or its normalised name (`nameKey`), with every source, or only the first `sourceLimit` (by video
   * id, then chunk; 0 for none: the commonest entities of a 10,000-hour library have 100,000 sources); undefined when
   * there is none.
   */
  getEntity(reference: number | string, options?: { sourceLimit?: number }): Promise<GraphEntity | undefined>;
  /** For each entity key, the chunks that mention it (ready videos only), at most `limitPerEntity` each (default 50). */
  entityChunks(entityKeys: number[], options?: { limitPerEntity?: number; videoIds?: string[] }): Promise<{ entityKey: number; videoId: string; chunkIndex: number }[]>;
  /** Relations whose two ends are both among the given entities, with their sources. */
  relationsAmong(entityKeys: number[]): Promise<GraphRelation[]>;
  /**
   * Relations touching one entity, strongest first, with every source or only the first `sourceLimit` of each (as
   * `getEntity` orders them); description and strength are of all its sources either way.
   */
  relationsOf(entityKey: number, limit?: number, options?: { sourceLimit?: number }): Promise<GraphRelation[]>;
  getChunks(keys: { videoId: string; chunkIndex: number }[]): Promise<Chunk[]>;
  /** Entities whose sources changed since their description was last set, oldest change first. */
  staleEntities(limit: number): Promise<GraphEntity[]>;
  /**
   * Sets synthesised descriptions and clears their stale marks, in one transaction; returns how many were set. An
   * update is skipped when its entity no longer exists, or when its sources changed after `changeSequence` (it stays
   * stale, to be described again from the new sources).
   */
  setEntityDescriptions(updates: EntityDescriptionUpdate[]): Promise<number>;
  graphStats(): Promise<GraphStats>;
  /** The entities a ready video's chunks mention, the most mentioned first; `score` is how many of its chunks do. */
  videoEntities(videoId: string, limit: number): Promise<EntityMatch[]>;

  /** Frames sampled by the light index in [startSecond, endSecond), by time. */
  getFrames(videoId: string, startSecond: number, endSecond: number): Promise<Frame[]>;
  /** The light signals of a ready video's clips (all of them when `clipIndexes` is absent), by clip. */
  clipSignals(videoId: string, clipIndexes?: number[]): Promise<ClipSignals[]>;
  /** Counts a question's interest in these clips, so background extraction serves them first. */
  markAsked(clips: { videoId: string; clipIndex: number }[]): Promise<void>;
  /** Deferred stage states of ready videos, filtered; by video, clip and stage. */
  clipStages(filter?: { videoId?: string; statuses?: ClipStageStatus[] }): Promise<ClipStageState[]>;
  /**
   * Writes a stage's output back for some clips of a ready video in one transaction: segments, documents (FTS),
   * vectors, graph and stage states. VIDEO_NOT_FOUND when the video is not (or no longer) ready.
   */
  writeBack(update: ClipWriteBack): Promise<void>;
  /** Marks `stage` pending, with the new key, on every clip where it was recorded under another key; how many. */
  refreshStageKey(stage: string, key: string): Promise<number>;
  extractionStatus(): Promise<ExtractionStatus>;

  close(): Promise<void>;
}
