// Clip matches → moments: touching clips of one video merge into one span, which is shown by its best-matching
// sentences and cited by its start and end second.

import type { ClipMatch, Hit, Segment, SegmentSource, Store, Video } from "../spec/index.js";
import { eachMatch, keyMatcher, termKeyFor, tokenize, type AnalyzedQuery } from "./query-analyzer.js";

/** A merged span of matching clips, before it is described for display. */
export interface Moment {
  videoId: string;
  startSecond: number;
  endSecond: number;
  /** The best clip's score: a long span of weak matches should not outrank one strong clip. */
  score: number;
  clipIndexes: number[];
}

/** Longest text shown for a moment. */
const maxSnippetChars = 280;
/** Sentences quoted per moment. */
const maxSnippetSentences = 2;

/** A clip weaker than this share of its video's best clip is not shown: it would only stretch a moment. */
const minimumShareOfBest = 0.5;

/**
 * The clips worth showing: those scoring at least half their video's best clip. Without this, every clip that mentions
 * one common query word joins its neighbours and a moment spreads over a whole on-topic video.
 */
export function strongClips<T extends ClipMatch>(matches: readonly T[]): T[] {
  const best = new Map<string, number>();
  for (const match of matches) best.set(match.videoId, Math.max(best.get(match.videoId) ?? 0, match.score));
  return matches.filter((match) => match.score >= minimumShareOfBest * (best.get(match.videoId) ?? 0));
}

/** Merges matches of the same video whose spans touch or overlap; best first. */
export function mergeClipMatches(matches: ClipMatch[]): Moment[] {
  const byVideo = new Map<string, ClipMatch[]>();
  for (const match of matches) {
    const list = byVideo.get(match.videoId) ?? [];
    list.push(match);
    byVideo.set(match.videoId, list);
  }
  const moments: Moment[] = [];
  for (const [videoId, list] of byVideo) {
    list.sort((a, b) => a.startSecond - b.startSecond);
    let current: Moment | undefined;
    for (const match of list) {
      // Clip times are written as decimals; a hair of slack lets 29.999… touch 30.
      if (current && match.startSecond <= current.endSecond + 1e-6) {
        current.endSecond = Math.max(current.endSecond, match.endSecond);
        current.score = Math.max(current.score, match.score);
        current.clipIndexes.push(match.clipIndex);
        continue;
      }
      current = {
        videoId,
        startSecond: match.startSecond,
        endSecond: match.endSecond,
        score: match.score,
        clipIndexes: [match.clipIndex],
      };
      moments.push(current);
    }
  }
  return moments.sort((a, b) => b.score - a.score || a.videoId.localeCompare(b.videoId) || a.startSecond - b.startSecond);
}

function trimText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars - 1);
  const lastSpace = cut.lastIndexOf(" ");
  return `${lastSpace > maxChars / 2 ? cut.slice(0, lastSpace) : cut}…`;
}

/** Picks the sentences that carry the most query words; the opening of the span when none does. */
async function describe(
  store: Store,
  moment: Moment,
  segments: (Segment & { source: SegmentSource })[],
  termWeights: Map<string, number>,
  termKey: (word: string) => string,
): Promise<{ text: string; source: SegmentSource[]; startSecond?: number; endSecond?: number }> {
  const match = keyMatcher(new Set(termWeights.keys()), termKey);
  const found = new Set<string>();
  const scored = segments.map((segment, position) => {
    found.clear();
    let score = 0;
    eachMatch(segment.text, match, (_word, key) => {
      if (found.has(key)) return;
      found.add(key);
      score += termWeights.get(key) ?? 0;
    });
    return { segment, position, score };
  });
  // Sentences that carry at least half the best sentence's query weight: a stray shared word does not widen the moment.
  const best = Math.max(0, ...scored.map((item) => item.score));
  const matching = scored.filter((item) => item.score > 0 && item.score >= best / 2);
  if (matching.length > 0) {
    // On a tie the narrower segment wins: "bicycle" seen from 12 s to 18 s places the moment better than a caption
    // of the whole clip that also says bicycle.
    const span = (item: { segment: { startSecond: number; endSecond: number } }): number => item.segment.endSecond - item.segment.startSecond;
    const chosen = [...matching]
      .sort((a, b) => b.score - a.score || span(a) - span(b) || a.position - b.position)
      .slice(0, maxSnippetSentences)
      .sort((a, b) => a.position - b.position);
    const share = Math.floor(maxSnippetChars / chosen.length);
    const narrow = chosen.filter((item) => item.segment.source !== "caption");
    const placing = narrow.length > 0 ? narrow : chosen;
    return {
      text: chosen.map((item) => trimText(item.segment.text, share)).join(" … "),
      source: [...new Set(chosen.map((item) => item.segment.source))],
      // The moment is where the matching sentences are, not the whole clip they fell in; a caption describes its whole
      // clip, so it places the moment only when nothing narrower matched.
      startSecond: Math.max(moment.startSecond, Math.min(...placing.map((item) => item.segment.startSecond))),
      endSecond: Math.min(moment.endSecond, Math.max(...placing.map((item) => item.segment.endSecond))),
    };
  }
  if (segments.length > 0) {
    return {
      text: trimText(segments.map((segment) => segment.text).join(" "), maxSnippetChars),
      source: [...new Set(segments.map((segment) => segment.source))],
    };
  }
  // Only the clip document matched (visual words have no segments): show its own text.
  const clips = await store.getClips(moment.clipIndexes.map((clipIndex) => ({ videoId: moment.videoId, clipIndex })));
  const text = clips.map((clip) => [clip.transcript, clip.screen, clip.visual].join(" ")).join(" ").trim();
  return { text: trimText(text, maxSnippetChars), source: [] };
}

/** The query a moment is described for: its terms, matched in its language (English when it has none). */
export type MomentQuery = Pick<AnalyzedQuery, "terms" | "language">;

/** Describes moments as hits: video path and title, the matching sentences, the channels they came from. */
export async function momentsToHits(
  store: Store,
  moments: Moment[],
  query: MomentQuery,
  retriever: string,
  videos: Map<string, Video | undefined> = new Map(),
): Promise<Hit[]> {
  return (await describeMoments(store, moments, query, () => retriever, videos)).filter((hit) => hit !== undefined);
}

/** `momentsToHits` with each moment's own retriever, in the order given: undefined where its video is gone. */
export async function describeMoments(
  store: Store,
  moments: Moment[],
  query: MomentQuery,
  retrieverOf: (at: number) => string,
  videos: Map<string, Video | undefined> = new Map(),
): Promise<(Hit | undefined)[]> {
  const termKey = termKeyFor(query.language);
  const termWeights = new Map<string, number>();
  for (const term of query.terms) {
    for (const token of tokenize(term.text)) termWeights.set(termKey(token), Math.max(termWeights.get(termKey(token)) ?? 0, term.weight));
  }
  // The videos and segments of every moment in two reads (at once), not two for each moment.
  const unread = [...new Set(moments.map((moment) => moment.videoId))].filter((videoId) => !videos.has(videoId));
  const [read, segments] = await Promise.all([store.getVideos(unread), store.getSegmentRanges(moments)]);
  for (const [at, video] of read.entries()) videos.set(unread[at] as string, video);
  const hits: (Hit | undefined)[] = [];
  for (const [at, moment] of moments.entries()) {
    const video = videos.get(moment.videoId);
    if (!video) {
      hits.push(undefined);
      continue;
    }
    const { text, source, startSecond, endSecond } = await describe(store, moment, segments[at] ?? [], termWeights, termKey);
    hits.push({
      videoId: moment.videoId,
      path: video.path,
      title: video.title,
      startSecond: startSecond ?? moment.startSecond,
      endSecond: endSecond ?? moment.endSecond,
      score: moment.score,
      text,
      source,
      retriever: retrieverOf(at),
    });
  }
  return hits;
}
