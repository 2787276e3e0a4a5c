// The answer to "every time he says buzzard": every moment whose text holds the words asked for, counted, not the
// best eight. Exact matching on stems, in the channels the question names (said → speech and subtitles, written →
// screen text), a line shown on screen while it is said counted once.

import { isKindCue, questionKinds } from "../retrieval/index.js";
import type { Citation, Hit, SegmentSource, Store, Video } from "../spec/index.js";
import { analyzeText, termKeyFor, tokenize } from "../text/index.js";
import { formatCitation } from "../text/citation-format.js";

/** Words that only say "every time" ("each", "times", "often", "mentions"). */
const enumerationWords = new Set(
  "every each all time times moment moments place places mention mentions mentioned occurrence occurrences instance instances scene scenes whenever often many list find single".split(" "),
);
/** Moments listed in the text at most; all are cited. */
const maxListed = 200;
/** Clips read at most. */
const maxClips = 2000;

export interface EveryMoment {
  text: string;
  citations: Citation[];
  moments: Hit[];
  count: number;
  /** The words matched. */
  words: string[];
}

/** The words a question enumerates: its content words (in its `language`) without the framing ("every time", "say"). */
export function enumeratedWords(question: string, language?: string): string[] {
  const quoted = [...question.matchAll(/["“”']([^"“”']+)["“”']/g)].flatMap((match) => tokenize(match[1] ?? ""));
  if (quoted.length > 0) return quoted;
  return analyzeText(question, language).filter((word) => !enumerationWords.has(word) && !isKindCue(word));
}

/** `language`: the question's (ISO 639-1), whose stems its words are matched by; English when absent. */
export async function everyMoment(store: Store, question: string, options: { videoIds?: string[]; videos: Map<string, Video>; language?: string }): Promise<EveryMoment> {
  const { language } = options;
  const termKey = termKeyFor(language);
  const words = enumeratedWords(question, language);
  if (words.length === 0) return { text: "The question names nothing to look for; ask e.g. “every time she says budget”.", citations: [], moments: [], count: 0, words };
  const kinds = questionKinds(question);
  const sources: SegmentSource[] = kinds.includes("said") && !kinds.includes("written")
    ? ["subtitle", "speech", "transcript"]
    : kinds.includes("written") && !kinds.includes("said")
      ? ["screen"]
      : ["subtitle", "speech", "transcript", "screen"];
  const clips = await store.searchClips({
    terms: words.map((text) => ({ text, weight: 1 })),
    limit: maxClips,
    ...(options.videoIds ? { videoIds: options.videoIds } : {}),
    ...(language && language !== "en" ? { language } : {}),
  });
  const ranges = await store.getSegmentRanges(clips.map((clip) => ({ videoId: clip.videoId, startSecond: clip.startSecond, endSecond: clip.endSecond })));
  const wanted = [...new Set(words.map(termKey))];
  const found = new Map<string, { videoId: string; startSecond: number; endSecond: number; text: string; source: SegmentSource }>();
  clips.forEach((clip, position) => {
    for (const segment of ranges[position] ?? []) {
      if (!sources.includes(segment.source)) continue;
      const stems = new Set(tokenize(segment.text).map(termKey));
      if (!wanted.every((stem) => stems.has(stem))) continue;
      found.set(`${clip.videoId}@${segment.startSecond}@${segment.source}`, { videoId: clip.videoId, startSecond: segment.startSecond, endSecond: segment.endSecond, text: segment.text, source: segment.source });
    }
  });
  // A line on screen while the same words are said is one moment, the spoken one.
  const all = [...found.values()].sort((a, b) => a.videoId.localeCompare(b.videoId) || a.startSecond - b.startSecond);
  const spoken = all.filter((moment) => moment.source !== "screen");
  const moments = all.filter(
    (moment) => moment.source !== "screen" || !spoken.some((other) => other.videoId === moment.videoId && other.startSecond < moment.endSecond && other.endSecond > moment.startSecond),
  );
  const citations: Citation[] = moments.flatMap((moment) => {
    const video = options.videos.get(moment.videoId);
    if (!video) return [];
    return [{ videoId: video.id, path: video.path, title: video.title, startSecond: moment.startSecond, endSecond: moment.endSecond, quote: moment.text, score: 1, timesEstimated: video.timesEstimated }];
  });
  const hits: Hit[] = citations.map((citation, index) => ({
    videoId: citation.videoId,
    path: citation.path,
    title: citation.title,
    startSecond: citation.startSecond,
    endSecond: citation.endSecond,
    score: 1,
    text: citation.quote,
    source: [moments[index]?.source ?? "transcript"],
    retriever: "bm25",
  }));
  const phrase = words.join(" ");
  const videoCount = new Set(citations.map((citation) => citation.videoId)).size;
  if (citations.length === 0) return { text: `“${phrase}” does not come up in ${options.videoIds ? "these videos" : "the library"}.`, citations, moments: hits, count: 0, words };
  const head = `“${phrase}” comes up ${citations.length} time${citations.length === 1 ? "" : "s"}${videoCount > 1 ? ` in ${videoCount} videos` : ""}:`;
  const lines = citations.slice(0, maxListed).map((citation) => `- ${citation.quote.replace(/\s+/g, " ").trim()} ${formatCitation(citation, citation.timesEstimated)}`);
  const more = citations.length > maxListed ? [`… and ${citations.length - maxListed} more (all of them are in the citations).`] : [];
  return { text: [head, ...lines, ...more].join("\n"), citations, moments: hits, count: citations.length, words };
}
