// Understanding a video as a whole: its chapters (topic segmentation), summaries of a video, and the library's topics.
export { buildChapters, titleChapters, type ChapterInput } from "./build-chapters.js";
export { defaultSegmentationSettings, segmentTopics, type BoundaryPriors, type SegmentationSettings } from "./segment-topics.js";
export { liteSummary, summaryLengths, type SummaryInput, type SummaryLength, type SummarySentence, type VideoSummary } from "./summarize-video.js";
export { buildUtterances, contentStems, cosine, ownLanguageSegments, termCounts, type Utterance } from "./utterances.js";

/** The lite segmentation's version: part of the chapter stage's key, so a better one re-chapters old libraries. */
export const chapterSegmentationId = "u00-priors@1";
export { defaultTopicSettings, libraryTopics, type LibraryTopic, type TopicSettings } from "./library-topics.js";
export { chaptersVtt } from "./chapters-vtt.js";
export { chapterText, chapterVectors } from "./chapter-vectors.js";
