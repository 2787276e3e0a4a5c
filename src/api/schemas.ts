// The JSON shapes of the product's faces, defined once: the CLI's --json, the HTTP API (and its OpenAPI document) and
// the MCP tools all speak these. The converters below turn the library's values into them, dropping what is internal.

import { z } from "zod";
// Imported from the files, not the folder's index, so the web UI can take these types without Node's.
import { errorCodes, type ErrorCode } from "../spec/errors.js";
import { retrievalModes } from "../spec/vocabulary.js";
import type { Answer, Chapter, Citation, Hit, PreliminaryAnswer, Segment, Video, Warning } from "../spec/model.js";

const segmentSourceValues = ["subtitle", "speech", "screen", "transcript", "visual", "caption"] as const;
const errorCodeValues = Object.keys(errorCodes) as [ErrorCode, ...ErrorCode[]];

export const retrievalModeSchema = z.enum(retrievalModes).describe("naive | graph | visual | hybrid (default) | video");
export const segmentSourceSchema = z.enum(segmentSourceValues);

export const errorBodySchema = z
  .object({ error: z.object({ code: z.enum(errorCodeValues), message: z.string() }) })
  .describe("Every failure: a stable code (the same table gives the CLI's exit code) and one line for people.");

export const healthSchema = z.object({ ok: z.boolean(), version: z.string(), profile: z.enum(["lite", "language-model"]) });

export const provenanceSchema = z.object({
  retriever: z.string(),
  rank: z.number().int(),
  score: z.number(),
  entities: z.array(z.string()).optional(),
  frameSecond: z.number().optional(),
  detail: z.string().optional(),
});

export const hitSchema = z.object({
  videoId: z.string(),
  path: z.string(),
  title: z.string(),
  startSecond: z.number(),
  endSecond: z.number(),
  score: z.number(),
  text: z.string(),
  source: z.array(segmentSourceSchema),
  retriever: z.string(),
  provenance: z.array(provenanceSchema).optional(),
});

export const citationSchema = z.object({
  videoId: z.string(),
  path: z.string(),
  title: z.string(),
  startSecond: z.number(),
  endSecond: z.number(),
  quote: z.string(),
  score: z.number(),
  timesEstimated: z.boolean(),
  /** Who says the quoted words, when known: a name, or a label such as "Speaker 2". */
  speaker: z.string().optional(),
});

export const warningSchema = z.object({
  type: z.enum(["unsupported", "fallback", "skipped", "degraded"]),
  feature: z.string(),
  detail: z.string(),
});

export const answerProfileSchema = z.object({
  profile: z.enum(["lite", "language-model"]),
  strategy: z.enum(["extractive", "language-model", "frames", "re-description", "summaries", "steps", "every-moment"]),
  mode: retrievalModeSchema,
  retrievers: z.array(z.string()),
  models: z.object({ answer: z.string().optional(), dense: z.string().optional(), visual: z.string().optional() }),
  redescribedMoments: z.number().int(),
  extractedClips: z.number().int(),
  summary: z.string(),
});

export const answerExtractionSchema = z.object({
  clips: z.array(z.object({ videoId: z.string(), clipIndex: z.number().int(), stages: z.array(z.string()) })),
  seconds: z.number(),
  rounds: z.number().int(),
  /** Planned clips not extracted for the answer (it held without them, or the budget ran out), left to the background. */
  leftForLater: z.number().int().optional(),
});

/** The lite answer from what was indexed, given before question-time extraction ran; `timings.totalMs`: when it was ready. */
export const preliminaryAnswerSchema = z.object({
  text: z.string(),
  citations: z.array(citationSchema),
  profile: answerProfileSchema,
  warnings: z.array(warningSchema),
  timings: z.record(z.number()),
  moments: z.array(hitSchema),
});

/** An answer: what a preliminary one holds, and how it was asked and made. */
export const answerSchema = preliminaryAnswerSchema.extend({
  question: z.string(),
  mode: retrievalModeSchema.optional(),
  extraction: answerExtractionSchema.optional(),
  /** fact, overview, procedure or enumeration: the kind of answer the question asked for. */
  intent: z.enum(["fact", "overview", "procedure", "enumeration"]).optional(),
  /** The videos the answer was limited to (given, or named in the question). */
  scope: z.array(z.object({ videoId: z.string(), title: z.string() })).optional(),
  /** Enumeration: how many matching moments there are. */
  count: z.number().int().optional(),
  /** The answer given at once, before question-time extraction ran; absent when the question needed none. */
  preliminary: preliminaryAnswerSchema.optional(),
});

export const chapterSchema = z.object({
  index: z.number().int(),
  startSecond: z.number(),
  endSecond: z.number(),
  title: z.string(),
  summary: z.string(),
  madeBy: z.string(),
});

export const chaptersResponseSchema = z.object({ videoId: z.string(), title: z.string(), chapters: z.array(chapterSchema) });

export const summaryResponseSchema = z.object({
  videoId: z.string(),
  title: z.string(),
  length: z.enum(["short", "medium", "long"]),
  text: z.string(),
  sentences: z.array(z.object({ text: z.string(), chapterIndex: z.number().int(), citations: z.array(citationSchema) })),
  chapters: z.array(chapterSchema),
  madeBy: z.string(),
  warnings: z.array(warningSchema),
});

export const topicsResponseSchema = z.object({
  topics: z.array(z.object({ label: z.string(), terms: z.array(z.string()), videos: z.array(z.object({ videoId: z.string(), title: z.string(), similarity: z.number() })) })),
});

const limitSchema = z.number().int().min(1).max(100);

export const searchRequestSchema = z
  .object({
    query: z.string().trim().min(1).max(2000),
    mode: retrievalModeSchema.optional(),
    limit: limitSchema.optional(),
    /** Search only these videos (ids). */
    videoIds: z.array(z.string().min(1).max(200)).max(100).optional(),
    /** Only moments where this speaker speaks: a name given to a speaker, or a label ("Speaker 2") that has none. */
    speaker: z.string().trim().min(1).max(200).optional().describe("Only moments where this speaker (a name, or a label such as \"Speaker 2\") speaks"),
  })
  .strict();
export const searchResponseSchema = z.object({ hits: z.array(hitSchema) });

export const askRequestSchema = z
  .object({
    question: z.string().trim().min(1).max(2000),
    mode: retrievalModeSchema.optional(),
    limit: limitSchema.optional(),
    /** false: answer from what is indexed now, run no deferred stage. */
    extract: z.boolean().optional(),
    /** Answer about these videos only (ids). */
    videoIds: z.array(z.string().min(1).max(200)).max(100).optional(),
  })
  .strict();

export const videoSchema = z.object({
  id: z.string(),
  path: z.string(),
  title: z.string(),
  durationSeconds: z.number(),
  kind: z.enum(["media", "transcript"]),
  sizeBytes: z.number(),
  width: z.number().optional(),
  height: z.number().optional(),
  hasAudio: z.boolean(),
  hasVideo: z.boolean(),
  timesEstimated: z.boolean(),
  ingestedAt: z.string(),
  clipCount: z.number().int(),
  /** The language it speaks or shows (ISO 639-1, "de"), where known. */
  language: z.string().optional(),
  /** True while deferred stages (speech, screen text, …) are pending on some clip. */
  pendingWork: z.boolean(),
  pendingClips: z.number().int(),
  failedClips: z.number().int(),
});
export const videoListSchema = z.object({ videos: z.array(videoSchema) });

export const stageCountsSchema = z.object({ done: z.number().int(), pending: z.number().int(), failed: z.number().int() });

export const videoDetailSchema = videoSchema.extend({
  /** Indexed segments per channel: which sources this video's text came from. */
  sources: z.record(segmentSourceSchema, z.number().int()),
  clips: z.array(z.object({ index: z.number().int(), startSecond: z.number(), endSecond: z.number() })),
  /** Deferred work on this video per stage. */
  stages: z.record(stageCountsSchema),
});

export const statusSchema = z.object({
  videos: z.number().int(),
  clips: z.number().int(),
  extractedClips: z.number().int(),
  pendingClips: z.number().int(),
  failedClips: z.number().int(),
  stages: z.record(stageCountsSchema),
});

export const segmentSchema = z.object({
  startSecond: z.number(),
  endSecond: z.number(),
  text: z.string(),
  source: segmentSourceSchema,
  /** Who speaks: the label that stays the same when the speaker is renamed ("Speaker 2", or a subtitle's name). */
  speaker: z.string().optional().describe("Who speaks: the speaker's label (\"Speaker 2\", or the name a subtitle gives), stable across renames; rename by it"),
  /** The name a user gave the speaker, when there is one: what to show instead of the label. */
  speakerName: z.string().optional().describe("The name given to the speaker, when one was: shown instead of the label"),
  /** The language the text is in (ISO 639-1), where known. */
  language: z.string().optional().describe("The language the text is in (ISO 639-1, \"de\"): its subtitle stream's, the one its speech was heard in, or the video's for screen text read in it; absent where unknown"),
});
export const transcriptSchema = z.object({ videoId: z.string(), title: z.string(), segments: z.array(segmentSchema) });

export const speakerSchema = z.object({
  /** The label the segments carry: what a rename names. */
  label: z.string(),
  /** The name given to it, when one was. */
  name: z.string().optional(),
  talkSeconds: z.number(),
  firstSecond: z.number(),
  /** The first words the speaker says. */
  firstWords: z.string(),
  /** Speakers of other videos whose voice is like this one's (a neural diarizer's voice vectors), most alike first. */
  sameVoice: z
    .array(z.object({ videoId: z.string(), title: z.string(), label: z.string(), name: z.string().optional(), similarity: z.number() }))
    .optional(),
});
export const speakersResponseSchema = z
  .object({ videoId: z.string(), title: z.string(), speakers: z.array(speakerSchema) })
  .describe("A video's speakers in order of first appearance: label, name, talk time, first second and first words");
export const renameSpeakerRequestSchema = z
  .object({
    // A cap on what is read; the library's own rule (100 characters, one line, not another speaker's label) is the one users meet.
    name: z.string().max(1000).nullable().describe("The speaker's name (at most 100 characters, one line), or null to clear it"),
  })
  .strict();

/**
 * The language of the files an ingest is given, when their subtitles cannot tell it: an ISO 639 code ("de"), a BCP 47
 * tag or an English name, as `ingest --language` takes it; one that names no language is ARGUMENT_INVALID.
 */
const ingestLanguageField = z
  .string()
  .min(1)
  .max(64)
  .optional()
  .describe("The language the files speak or show (an ISO 639 code such as de, fr or ja), when their subtitles cannot tell it; one that names no language is a 400");

export const ingestPathsRequestSchema = z
  .object({
    /** Files or folders under one of the server's media roots. */
    paths: z.array(z.string().min(1).max(4096)).min(1).max(1000),
    incremental: z.boolean().optional(),
    /** The language the files speak or show, as `ingest --language` takes it. */
    language: ingestLanguageField,
  })
  .strict();

export const jobStatusSchema = z.enum(["queued", "running", "done", "failed", "cancelled"]);

export const ingestResultSchema = z.object({
  path: z.string(),
  videoId: z.string().optional(),
  status: z.enum(["ingested", "unchanged", "skipped", "failed"]),
  error: z.object({ code: z.enum(errorCodeValues), message: z.string() }).optional(),
  durationSeconds: z.number(),
  clipCount: z.number().int(),
  notes: z.array(z.string()),
});

export const jobSchema = z.object({
  id: z.string(),
  kind: z.literal("ingest"),
  status: jobStatusSchema,
  createdAt: z.string(),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  /** What the job ingests: display names (an upload's file name, or the path given). */
  inputs: z.array(z.string()),
  incremental: z.boolean(),
  /** The language the job's files were stated to be in (ISO 639-1), when one was. */
  language: z.string().optional(),
  progress: z.object({
    /** 0-based position of the file being ingested, and how many there are. */
    position: z.number().int(),
    total: z.number().int(),
    path: z.string().optional(),
    stage: z.string().optional(),
    /** Within the current stage, 0..1. */
    fraction: z.number().optional(),
  }),
  results: z.array(ingestResultSchema),
  error: z.object({ code: z.enum(errorCodeValues), message: z.string() }).optional(),
});
export const jobCreatedSchema = z.object({ jobId: z.string() });
export const jobListSchema = z.object({ jobs: z.array(jobSchema) });

export const entityMatchSchema = z.object({ key: z.number().int(), name: z.string(), type: z.string(), score: z.number() });
export const entityListSchema = z.object({ entities: z.array(entityMatchSchema) });
export const entitySchema = z.object({
  key: z.number().int(),
  name: z.string(),
  type: z.string(),
  description: z.string(),
  sources: z.array(
    z.object({
      videoId: z.string(),
      title: z.string(),
      chunkIndex: z.number().int(),
      startSecond: z.number().optional(),
      endSecond: z.number().optional(),
      description: z.string(),
    }),
  ),
  relations: z.array(z.object({ source: z.string(), target: z.string(), description: z.string(), strength: z.number() })),
});

export type HitJson = z.infer<typeof hitSchema>;
export type AnswerJson = z.infer<typeof answerSchema>;
export type VideoJson = z.infer<typeof videoSchema>;
export type VideoDetailJson = z.infer<typeof videoDetailSchema>;
export type JobJson = z.infer<typeof jobSchema>;
export type EntityJson = z.infer<typeof entitySchema>;
export type SearchRequest = z.infer<typeof searchRequestSchema>;
export type SegmentJson = z.infer<typeof segmentSchema>;
export type SpeakersJson = z.infer<typeof speakersResponseSchema>;
export type AskRequest = z.infer<typeof askRequestSchema>;

/** A hit as the faces show it (the library's value minus nothing internal today, but fixed in shape). */
export function hitJson(hit: Hit): HitJson {
  const { videoId, path, title, startSecond, endSecond, score, text, source, retriever, provenance } = hit;
  return { videoId, path, title, startSecond, endSecond, score, text, source, retriever, ...(provenance ? { provenance } : {}) };
}

function citationJson(citation: Citation): z.infer<typeof citationSchema> {
  const { videoId, path, title, startSecond, endSecond, quote, score, timesEstimated, speaker } = citation;
  return { videoId, path, title, startSecond, endSecond, quote, score, timesEstimated, ...(speaker ? { speaker } : {}) };
}

export function preliminaryAnswerJson(answer: PreliminaryAnswer): z.infer<typeof preliminaryAnswerSchema> {
  const { text, citations, profile, warnings, timings, moments } = answer;
  return { text, citations: citations.map(citationJson), profile, warnings, timings, moments: (moments ?? []).map(hitJson) };
}

export function answerJson(question: string, answer: Answer): AnswerJson {
  return {
    question,
    ...preliminaryAnswerJson(answer),
    ...(answer.mode ? { mode: answer.mode } : {}),
    ...(answer.extraction ? { extraction: answer.extraction } : {}),
    ...(answer.intent ? { intent: answer.intent } : {}),
    ...(answer.scope ? { scope: answer.scope } : {}),
    ...(answer.count !== undefined ? { count: answer.count } : {}),
    ...(answer.preliminary ? { preliminary: preliminaryAnswerJson(answer.preliminary) } : {}),
  };
}

/**
 * A segment as the faces show it: its speaker's label, and the name given to that label (`names`, label → name) when
 * there is one, so that a face shows the name and renames by the label.
 */
export function segmentJson(segment: Segment, names: Readonly<Record<string, string>> = {}): SegmentJson {
  const { startSecond, endSecond, text, source, speaker, language } = segment;
  const inLanguage = language ? { language } : {};
  // An empty label is no speaker to show (the speakers list leaves it out too).
  if (!speaker) return { startSecond, endSecond, text, source, ...inLanguage };
  const name = Object.hasOwn(names, speaker) ? names[speaker] : undefined;
  return { startSecond, endSecond, text, source, speaker, ...(name ? { speakerName: name } : {}), ...inLanguage };
}

/** A video's speakers as the faces show them (the library's VideoSpeaker, matched structurally as summaryJson's value is). */
export function speakersJson(
  video: Pick<Video, "id" | "title">,
  speakers: readonly { label: string; name?: string; talkSeconds: number; firstSecond: number; firstWords: string; sameVoice?: SpeakersJson["speakers"][number]["sameVoice"] }[],
): SpeakersJson {
  return {
    videoId: video.id,
    title: video.title,
    speakers: speakers.map(({ label, name, talkSeconds, firstSecond, firstWords, sameVoice }) => ({
      label,
      ...(name ? { name } : {}),
      talkSeconds,
      firstSecond,
      firstWords,
      ...(sameVoice && sameVoice.length > 0 ? { sameVoice } : {}),
    })),
  };
}

/** A chapter as the faces show it: without its text, which the transcript already shows. */
export function chapterJson(chapter: Chapter): z.infer<typeof chapterSchema> {
  const { index, startSecond, endSecond, title, summary, madeBy } = chapter;
  return { index, startSecond, endSecond, title, summary, madeBy };
}

/**
 * What summaryJson reads of the library's VideoSummary (src/summary), which it matches structurally: importing that
 * module would bring Node's types (through the summary code) into the web UI's type check.
 */
interface SummaryValue {
  videoId: string;
  title: string;
  length: "short" | "medium" | "long";
  text: string;
  sentences: readonly { text: string; chapterIndex: number; citations: readonly Citation[] }[];
  chapters: readonly Chapter[];
  madeBy: string;
  warnings: Warning[];
}

export function summaryJson(summary: SummaryValue): z.infer<typeof summaryResponseSchema> {
  return {
    videoId: summary.videoId,
    title: summary.title,
    length: summary.length,
    text: summary.text,
    sentences: summary.sentences.map((sentence) => ({ text: sentence.text, chapterIndex: sentence.chapterIndex, citations: sentence.citations.map(citationJson) })),
    chapters: summary.chapters.map(chapterJson),
    madeBy: summary.madeBy,
    warnings: summary.warnings,
  };
}

/** A video with its deferred work, as `list --json` and `GET /api/videos` show it. */
export function videoJson(video: Video, work?: { pendingClips: number; failedClips: number }): VideoJson {
  const pendingClips = work?.pendingClips ?? 0;
  return { ...video, pendingWork: pendingClips > 0, pendingClips, failedClips: work?.failedClips ?? 0 };
}
