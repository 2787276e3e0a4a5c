// The parts of the Store: each a focused interface over the same database. A store implements each in its own file;
// the conformance suite tests each on its own, so a third store, or a part moved to another engine, goes part by part.

import type { Chunk, EntityDescriptionUpdate, EntityMatch, GraphEntity, GraphRelation, GraphStats } from "./graph.js";
import type { Chapter, Frame, Segment, SegmentSource, Video } from "./model.js";
import type {
  ClipDocument,
  ClipMatch,
  ClipSignals,
  ClipStageState,
  ClipStageStatus,
  ClipWriteBack,
  ExtractionStatus,
  LexicalQuery,
  SegmentRange,
  StageRecord,
  VectorMatch,
  VectorQuery,
  VectorRecord,
  VectorSpace,
  VideoContent,
  VideoMatch,
} from "./store.js";

/** The videos with their clips, segments and frames; an ingest's staged results until its video commits. */
export interface VideoCatalog {
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

  getClips(keys: { videoId: string; clipIndex: number }[]): Promise<ClipDocument[]>;
  /** Segments of a video overlapping [startSecond, endSecond), with the clip that owns each where one does. */
  getSegments(videoId: string, startSecond: number, endSecond: number): Promise<(Segment & { source: SegmentSource })[]>;
  /** `getSegments` of each range, in the order asked, in one read: a search describes many moments at once. */
  getSegmentRanges(ranges: SegmentRange[]): Promise<(Segment & { source: SegmentSource })[][]>;
  /** Frames sampled by the light index in [startSecond, endSecond), by time. */
  getFrames(videoId: string, startSecond: number, endSecond: number): Promise<Frame[]>;
}

/** BM25 over clips and whole videos, with the statistics a query is weighted by. */
export interface TextIndex {
  /** Best clips first, BM25 over each clip's fields; an empty list when no clip matches. */
  searchClips(query: LexicalQuery): Promise<ClipMatch[]>;
  /** Best videos first, BM25 over each video's whole text (all clips as one document per field). */
  searchVideos(query: LexicalQuery): Promise<VideoMatch[]>;
  /** Number of clip documents containing the term after the store's analysis, and the total; for query weighting. */
  termDocumentFrequency(terms: string[]): Promise<{ frequencies: Map<string, number>; documentCount: number }>;
  /**
   * Puts the lexical indexes in the form searches read fastest, after a batch of writes (an ingest ends with it); it
   * changes no search's results. Its cost is the indexes' size (SQLite: 1.4 s for the 8,648 how-to transcripts).
   */
  compactTextIndexes(): Promise<void>;
}

/** Embeddings in named spaces, searched by exact cosine distance. */
export interface VectorIndex {
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
}

/** The knowledge graph: entities, relations, the chunks they come from, and their synthesised descriptions. */
export interface GraphStore {
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
}

/** Deferred work per clip and stage: the light signals that plan it, its states, and the write-back of its output. */
export interface ExtractionLedger {
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
}

/** A chapter ranked by a lexical query. */
export interface ChapterMatch {
  videoId: string;
  chapterIndex: number;
  startSecond: number;
  endSecond: number;
  /** Higher is better. */
  score: number;
}

/**
 * Chapters of ready videos: written with the video (`commitVideo`) and replaced by a write-back that carries them, removed
 * with the video; ranked as documents of their own.
 */
export interface ChapterStore {
  /** A ready video's chapters in time order; empty when it has none (no text yet) or is not ready. */
  getChapters(videoId: string): Promise<Chapter[]>;
  /** The chapters of these ready videos (every ready video when absent), by video id then time. */
  listChapters(videoIds?: string[]): Promise<(Chapter & { videoId: string })[]>;
  /**
   * Best chapters first by BM25 over title (weight 2), summary (weight 1) and text (weight 1), the terms analysed as
   * clip search analyses them; `videoIds` keeps only chapters of those videos.
   */
  searchChapters(query: { terms: { text: string; weight: number }[]; limit: number; videoIds?: string[] }): Promise<ChapterMatch[]>;
}

/** A speaker of a ready video, found by name (or by label, where it has no name). */
export interface SpeakerMatch {
  videoId: string;
  /** The label its segments carry (`Segment.speaker`). */
  label: string;
  /** The name the user gave it; its label where it has none. */
  name: string;
}

/**
 * The names a user gives to a video's speaker labels ("Speaker 2" is Dana), kept apart from the segments so that naming
 * re-indexes nothing. Removed with the video; kept when the video is committed again from the same source (the same
 * fingerprint: its labels name the same voices), dropped when its source changed. Names and labels are compared
 * case-insensitively (after NFC and trimming).
 */
export interface SpeakerNames {
  /** Label → name for a ready video, by label; {} when it has none or is not ready. */
  speakerNames(videoId: string): Promise<Record<string, string>>;
  /**
   * Names one of a ready video's speakers (`null` clears its name). VIDEO_NOT_FOUND for a video that is not ready.
   * ARGUMENT_INVALID for an empty label or name, one over 100 characters or holding a control character, a label that
   * no segment of the video carries (and that has no name to change), or a name that is another of its speakers'
   * labels (which would make "Speaker 2" mean two voices). Two labels may share a name: a diarizer may split one voice.
   */
  setSpeakerName(videoId: string, label: string, name: string | null): Promise<void>;
  /**
   * The speakers of ready videos named `name`, or labelled `name` and not named, by video id then label; an empty list
   * for a blank `name`.
   */
  findSpeakers(name: string): Promise<SpeakerMatch[]>;
  /**
   * The voices a diarizer found in a ready video, as the speakers stage kept them, with the key of the diarizer that
   * found them; undefined when none are kept (or the video is not ready).
   */
  speakerVoices(videoId: string): Promise<SpeakerVoices | undefined>;
  /**
   * Keeps a ready video's voices, replacing those kept before: question-time extraction labels the speech it
   * recognises later by these turns, without diarizing again. Removed with the video and when it is committed again
   * from another source; kept from the same one. VIDEO_NOT_FOUND for a video that is not ready; ARGUMENT_INVALID for
   * a blank or repeated label, a turn that is not 0 ≤ start < end (finite), or vectors of different lengths.
   */
  setSpeakerVoices(videoId: string, voices: SpeakerVoices): Promise<void>;
  /** Every kept voice vector of the ready videos, by video id then label: the same voice is sought across videos. */
  voiceVectors(): Promise<{ videoId: string; label: string; vector: Float32Array }[]>;
}

/** One voice of a video: its label on the segments, when it speaks, and its voice vector where the diarizer gives one. */
export interface SpeakerVoice {
  label: string;
  turns: [startSecond: number, endSecond: number][];
  /** Unit length; neural diarizers give one, the lite diarizer does not. */
  vector?: Float32Array;
}

/** A video's voices and the key of the diarizer settings that found them. */
export interface SpeakerVoices {
  key: string;
  voices: SpeakerVoice[];
}
