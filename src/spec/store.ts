// The Store seam: what ingest writes and retrieval reads, as a composition of focused parts (store-parts.ts), each an
// interface a store implements in a file of its own and a conformance suite tests on its own. SQLite is the default.

import type { VideoGraph } from "./graph.js";
import type { Chapter, Clip, Frame, Segment, SegmentSource, Video } from "./model.js";

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
  /** The video's chapters (topic segmentation of its text), indexed for chapter search. */
  chapters?: Chapter[];
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
  /** The video's chapters made again from its new text, replacing all the stored ones; absent: left as they are. */
  chapters?: Chapter[];
  stages: ClipStageRecord[];
  /**
   * The language the extraction found the video in (ISO 639-1: what the transcriber heard, or its speech identified),
   * for a video that has none: it becomes the video's, and the text already indexed is indexed again in it. A video
   * with a language keeps it (the user's word or its subtitles' outrank this).
   */
  language?: string;
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
  /**
   * The language the terms are in (ISO 639-1), where it is known: videos indexed by their Snowball stems in it are
   * searched for the terms' stems too ("Häuser" finds a German "Haus"). Other terms are searched as they are.
   */
  language?: string;
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

import type { ChapterStore, ExtractionLedger, GraphStore, SpeakerNames, TextIndex, VectorIndex, VideoCatalog } from "./store-parts.js";

/**
 * The whole store: every part over one database, so that a video's commit, a write-back and a removal change all of
 * them in one transaction. A new capability (chapters, speakers) arrives as a part of its own.
 */
export interface Store extends VideoCatalog, TextIndex, VectorIndex, GraphStore, ExtractionLedger, ChapterStore, SpeakerNames {
  close(): Promise<void>;
}
