// The vocabulary of the engine: videos, clips, time-coded text, frames, hits, citations, answers. Types only.

import type { RetrievalMode } from "./vocabulary.js";

/** Where a piece of text came from. */
export type SegmentSource = "subtitle" | "speech" | "screen" | "transcript" | "visual" | "caption";

/** A video (or a transcript standing for one) in the library. */
export interface Video {
  /** Content-derived id (sha256 prefix of the file), or the file stem for transcript-only sources. */
  id: string;
  /** Absolute path of the source file as ingested. */
  path: string;
  title: string;
  durationSeconds: number;
  /** "media" for a real video/audio file, "transcript" for a video known only by its transcript. */
  kind: "media" | "transcript";
  sizeBytes: number;
  width?: number;
  height?: number;
  hasAudio: boolean;
  hasVideo: boolean;
  /** True when segment times were estimated (transcripts without timestamps). */
  timesEstimated: boolean;
  ingestedAt: string;
  clipCount: number;
  /**
   * The language it speaks or shows, ISO 639-1 ("de"): as the user gave it, else its subtitle stream's tag or sidecar
   * name, else the one its transcriber reported hearing, else identified from its text; absent when none could tell.
   */
  language?: string;
}

/** A fixed-length slice of a video: the unit of retrieval. */
export interface Clip {
  videoId: string;
  index: number;
  startSecond: number;
  endSecond: number;
}

/** Time-coded text from one channel. */
export interface Segment {
  startSecond: number;
  endSecond: number;
  text: string;
  source: SegmentSource;
  /** The clip whose extraction wrote it: re-running a stage on that clip replaces it. Absent for whole-video text. */
  clipIndex?: number;
  /**
   * Who speaks: a label stable within the video ("Speaker 1", "Speaker 2", … in order of first appearance, from the
   * diarizer or a diarizing transcriber), or the name a subtitle file gives (a WebVTT voice, an SRT "DANA:" prefix).
   */
  speaker?: string;
  /**
   * The language it is in, ISO 639-1 ("de"): a subtitle's from its stream's tag or file name (else identified from that
   * stream's own text), speech's as the transcriber heard it or was asked for, screen text's the video's where OCR read
   * in it. Absent where none of them could tell.
   */
  language?: string;
}

/** A sampled frame, kept by time (pixels are not stored). */
export interface Frame {
  timeSecond: number;
  /** 64-bit perceptual hash as 16 hex characters, used to de-duplicate. */
  hash?: string;
}

/**
 * A stretch of a video about one topic, found by topic segmentation over its text; chapters are documents of their own,
 * ranked by BM25 (title, summary, text), and what overview questions and summaries are made from.
 */
export interface Chapter {
  /** 0-based, in time order; chapters tile the video's text without gaps or overlaps. */
  index: number;
  startSecond: number;
  endSecond: number;
  /** The chapter's slide title, its key phrases, or a language model's title. */
  title: string;
  /** One line on what the chapter says: its most central sentence (lite), or a language model's line. */
  summary: string;
  /** The chapter's text, its segments in order: what chapter search indexes. */
  text: string;
  /** Who wrote title and summary: "lite", or the language model's id. */
  madeBy: string;
}

/**
 * What kind of answer a question wants: a fact (a moment), an overview (what a video or the library is about), a
 * procedure (ordered steps, as long as people write them), or an enumeration (every matching moment, counted).
 */
export type QuestionIntent = "fact" | "overview" | "procedure" | "enumeration";

/** One retrieved moment. */
export interface Hit {
  videoId: string;
  path: string;
  title: string;
  startSecond: number;
  endSecond: number;
  score: number;
  /** The matching text, trimmed for display. */
  text: string;
  /** The channels the matching text came from. */
  source: SegmentSource[];
  /** Which retriever produced the hit. */
  retriever: string;
  /** How each retriever that found it found it, best first. */
  provenance?: HitProvenance[];
}


/** How one retriever found a clip. */
export interface HitProvenance {
  /** "bm25", "dense", "graph", "visual", "video". */
  retriever: string;
  /** 1-based rank in that retriever's list. */
  rank: number;
  /** The retriever's own score (BM25, cosine similarity, matched-entity count, fused video score). */
  score: number;
  /** Graph: the matched entities the clip's chunk carries. */
  entities?: string[];
  /** Visual: the best-matching sampled frame. */
  frameSecond?: number;
  /** The evidence in words: what matched ("words: car, cars", "detections and tags: car"), or a short note. */
  detail?: string;
}

/** A whole video ranked for a question. */
export interface VideoHit {
  videoId: string;
  path: string;
  title: string;
  score: number;
  /** Best moments inside the video. */
  moments: Hit[];
}

export interface Citation {
  videoId: string;
  path: string;
  title: string;
  startSecond: number;
  endSecond: number;
  quote: string;
  score: number;
  /** True when the times were estimated (a transcript without timestamps). */
  timesEstimated: boolean;
  /** Who says the quoted words: the speaker's name, or its label ("Speaker 2") while it has none. */
  speaker?: string;
}

/** A warning the user sees: something was unsupported, fell back or was skipped. */
export interface Warning {
  type: "unsupported" | "fallback" | "skipped" | "degraded";
  feature: string;
  detail: string;
}

/** How an answer was made, as data; `summary` is the line a face prints. */
export interface AnswerProfile {
  /** lite: no language model wrote it. */
  profile: "lite" | "language-model";
  /** extractive: sentences of the moments; language-model: written from numbered evidence; frames: with the moments'
   * frames; re-description: with the best moments described again from frames chosen for the question. */
  strategy: "extractive" | "language-model" | "frames" | "re-description" | "summaries" | "steps" | "every-moment";
  mode: RetrievalMode;
  /** The retrievers behind the moments, in a fixed order ("video", "bm25", "dense", "graph", "visual"). */
  retrievers: string[];
  /** The models behind the answer and the retrievers that used one. */
  models: { answer?: string; dense?: string; visual?: string };
  /** Moments a vision-language model described again for the question. */
  redescribedMoments: number;
  /** Clips whose deferred stages ran for this question. */
  extractedClips: number;
  summary: string;
}

/** What question-time extraction did for an answer. */
export interface AnswerExtraction {
  clips: { videoId: string; clipIndex: number; stages: string[] }[];
  seconds: number;
  /** Rounds of planning and extraction that ran. */
  rounds: number;
  /** Planned clips with stages not run for the answer (it held without them, or the budget ran out): left to the background. */
  leftForLater?: number;
}

/**
 * The answer given at once from what was indexed when the question came, before question-time extraction ran: always
 * the lite answer (no model is waited for), replaced by the final one. `timings.totalMs` is when it was ready.
 */
export type PreliminaryAnswer = Pick<Answer, "text" | "citations" | "profile" | "warnings" | "timings" | "moments">;

export interface Answer {
  text: string;
  citations: Citation[];
  /** Which profile, strategy, retrievers and models produced the answer. */
  profile: AnswerProfile;
  warnings: Warning[];
  timings: Record<string, number>;
  /** The retrieval mode used. */
  mode?: RetrievalMode;
  /** The moments the answer was drawn from, with how each was found. */
  moments?: Hit[];
  /** Deferred work run on the library for this question (incremental libraries). */
  extraction?: AnswerExtraction;
  /** The kind of answer the question asked for, which chose the strategy. */
  intent?: QuestionIntent;
  /** The videos the answer was limited to: given (`videoIds`) or named in the question. */
  scope?: { videoId: string; title: string }[];
  /** Enumeration: how many matching moments were found (all of them are in `moments` and `citations`). */
  count?: number;
  /** The answer given before question-time extraction ran; absent when the question needed no extraction. */
  preliminary?: PreliminaryAnswer;
}
