// Overview answers: what a video is about from its summary, what a library covers from its topics. Lite ones are the
// summaries' own cited sentences; a language model writes from the chapters' summaries as numbered evidence.

import type { Answer, Citation, Video } from "../spec/index.js";
import type { LibraryTopic, VideoSummary } from "../summary/index.js";
import { formatCitation } from "../text/citation-format.js";
import type { Evidence } from "./evidence.js";

type Written = Pick<Answer, "text" | "citations">;

/** Videos named per topic; the rest are counted. */
const videosPerTopic = 8;

/** One video's summary as it is, several each under its title. */
export function overviewText(summaries: readonly VideoSummary[]): Written {
  const citations = summaries.flatMap((summary) => summary.sentences.flatMap((sentence) => sentence.citations));
  if (citations.length === 0) {
    const titles = summaries.map((summary) => summary.title).join(", ");
    return { text: `There is nothing to summarize in ${titles} yet: no subtitles, speech or screen text is indexed.`, citations: [] };
  }
  const text =
    summaries.length === 1
      ? (summaries[0] as VideoSummary).text
      : summaries.filter((summary) => summary.text).map((summary) => `${summary.title}:\n${summary.text}`).join("\n\n");
  return { text, citations };
}

/** Each video's chapters as numbered evidence: title, one-line summary and the summary's sentences inside it. */
export function summaryEvidence(summaries: readonly VideoSummary[], videos: readonly Video[]): Evidence[] {
  return summaries.flatMap((summary) => {
    const video = videos.find((entry) => entry.id === summary.videoId);
    if (!video) return [];
    return summary.chapters.map((chapter): Evidence => {
      const sentences = summary.sentences.filter((sentence) => sentence.chapterIndex === chapter.index).map((sentence) => sentence.text);
      return {
        videoId: video.id,
        path: video.path,
        title: video.title,
        startSecond: chapter.startSecond,
        endSecond: chapter.endSecond,
        timesEstimated: video.timesEstimated,
        kind: "transcript",
        text: [`Chapter "${chapter.title}": ${chapter.summary}`, ...sentences].join("\n"),
      };
    });
  });
}

/** The library's topics, each with its videos, each video cited at its start. */
export function topicsText(topics: readonly LibraryTopic[], videos: ReadonlyMap<string, Video>): Written {
  if (topics.length === 0) return { text: "The library has no text to find topics in yet.", citations: [] };
  const citations: Citation[] = [];
  const lines = topics.map((topic) => {
    const more = topic.videos.length - videosPerTopic;
    const listed = topic.videos.slice(0, videosPerTopic).map((entry) => {
      const video = videos.get(entry.videoId);
      if (!video) return entry.title;
      const citation: Citation = { videoId: video.id, path: video.path, title: video.title, startSecond: 0, endSecond: Math.min(video.durationSeconds, 30), quote: topic.label, score: entry.similarity, timesEstimated: video.timesEstimated };
      citations.push(citation);
      return `${video.title} ${formatCitation(citation, video.timesEstimated)}`;
    });
    return `- ${topic.label}: ${listed.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
  });
  const inTopics = topics.reduce((sum, topic) => sum + topic.videos.length, 0);
  const head =
    inTopics < videos.size
      ? `The library's ${videos.size} videos; its ${topics.length} largest topics hold ${inTopics} of them:`
      : `The library's ${videos.size} videos cover ${topics.length} topic${topics.length === 1 ? "" : "s"}:`;
  return { text: [head, ...lines].join("\n"), citations };
}
