// The HTTP API's JSON shapes the UI reads: types only, from the zod schemas the server validates with (erased at
// build time, so no zod reaches the browser bundle).

import type {
  AnswerJson,
  EntityJson,
  HitJson,
  JobJson,
  SpeakersJson,
  VideoDetailJson,
  VideoJson,
} from "../../src/api/schemas";
import type { z } from "zod";
import type {
  chapterSchema,
  chaptersResponseSchema,
  citationSchema,
  entityMatchSchema,
  errorBodySchema,
  healthSchema,
  ingestResultSchema,
  provenanceSchema,
  segmentSchema,
  speakerSchema,
  summaryResponseSchema,
  topicsResponseSchema,
  transcriptSchema,
  warningSchema,
} from "../../src/api/schemas";

export type RetrievalMode = NonNullable<AnswerJson["mode"]>;
export type SegmentSource = z.infer<typeof segmentSchema>["source"];
/** Every failure: a stable code and one line for people. */
export type ErrorBody = z.infer<typeof errorBodySchema>;
export type Health = z.infer<typeof healthSchema>;
/** How one retriever found a moment: what `ask --explain` prints. */
export type Provenance = z.infer<typeof provenanceSchema>;
/** A ranked moment of a video. */
export type Hit = HitJson;
/** A moment the answer cites. */
export type Citation = z.infer<typeof citationSchema>;
export type Warning = z.infer<typeof warningSchema>;
export type Answer = AnswerJson;
/** The answer from what was indexed, shown while the clips a question needs are extracted, then replaced. */
export type PreliminaryAnswer = NonNullable<AnswerJson["preliminary"]>;
export type Video = VideoJson;
export type VideoDetail = VideoDetailJson;
export type Segment = z.infer<typeof segmentSchema>;
export type Transcript = z.infer<typeof transcriptSchema>;
/** One voice of a video: its label (what a rename names), the name given to it, its talk time and first words. */
export type Speaker = z.infer<typeof speakerSchema>;
export type Speakers = SpeakersJson;
export type JobStatus = JobJson["status"];
export type IngestResult = z.infer<typeof ingestResultSchema>;
/** An ingest job, as its event stream reports it. */
export type Job = JobJson;
export type EntityMatch = z.infer<typeof entityMatchSchema>;
export type Entity = EntityJson;
/** A part of a video: start and end second, a title and a one-line summary. */
export type Chapter = z.infer<typeof chapterSchema>;
export type Chapters = z.infer<typeof chaptersResponseSchema>;
/** A video's summary: sentences, each with the moments it cites. */
export type Summary = z.infer<typeof summaryResponseSchema>;
export type SummaryLength = Summary["length"];
/** A group of the library's videos that say similar things, labelled by their words. */
export type Topic = z.infer<typeof topicsResponseSchema>["topics"][number];

/** Progress of question-time extraction: a round's plan, then the extractor's own events. */
export type ExtractionEvent =
  | { type: "plan"; round: number; stages: string[]; clips: unknown[] }
  | { type: "extract-start"; clips: number }
  | { type: "extract-stage"; path: string; stage: string; clipIndexes: number[] }
  | { type: "extract-clip"; path: string; clipIndex: number; stage: string; done: number; total: number }
  | { type: "extract-batch"; path: string; clipIndexes: number[]; seconds: number }
  | { type: "extract-done"; clips: number; seconds: number };
