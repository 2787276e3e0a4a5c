// A video's chapters from what is indexed: topic segmentation over its utterances (with pauses, slide changes and cuts
// as priors), each chapter titled by its slide title or its key phrases and summed up by its most central utterance.
// A language model, when there is one, writes the titles and one-line summaries again from each chapter's text.

import type { Chapter, Frame, LanguageModel, Segment } from "../spec/index.js";
import { toVideoRagError } from "../spec/index.js";
import { hashDistance } from "../media/index.js";
import { WordClass, wordInfo } from "../graph/lite-words.js";
import { defaultSegmentationSettings, segmentTopics, type SegmentationSettings } from "./segment-topics.js";
import { buildUtterances, contentStems, cosine, ownLanguageSegments, termCounts, type Utterance } from "./utterances.js";

export interface ChapterInput {
  segments: readonly Segment[];
  durationSeconds: number;
  /** Frames of the light index with their perceptual hashes: a new picture is a prior for a boundary. */
  frames?: readonly Frame[];
  settings?: Partial<SegmentationSettings>;
  /** The video's language: lines in another (a second subtitle stream) are left out, as `ownLanguageSegments` says. */
  language?: string;
}

/**
 * Bits of a 64-bit perceptual hash that differ between two frames of different pictures: more than the light index's
 * "same frame" tolerance (6 bits). Slides of black text on white differ by as few as 4–11 bits.
 */
const pictureChangeBits = 7;
/** A screen text is a new slide when it shares less than this with the one before. */
const slideSimilarity = 0.5;
/** Content words an utterance needs to stand for its chapter. */
const minimumStems = 2;
/** Sound tags of auto-captions ("[Music]"): never a topic. */
const soundTags: ReadonlySet<string> = new Set(["music", "applause", "laughter", "laughs", "inaudible", "foreign", "silence", "noise"]);
/** A slide title is short. */
const maxTitleWords = 10;
/** The one-line summary is a whole utterance, cut at this many words. */
const maxSummaryWords = 30;

/** The lite chapters of a video; none when it has no text. */
export function buildChapters(input: ChapterInput): Chapter[] {
  const utterances = buildUtterances(ownLanguageSegments(input.segments, input.language));
  if (utterances.length === 0) return [];
  const screens = input.segments.filter((segment) => segment.source === "screen").sort((a, b) => a.startSecond - b.startSecond);
  const starts = segmentTopics(
    utterances,
    { slideChanges: slideChanges(screens), pictureChanges: pictureChanges(input.frames ?? []) },
    { ...defaultSegmentationSettings, ...input.settings },
  );
  const bounds = [0, ...starts, utterances.length];
  const spans = bounds.slice(0, -1).map((from, position) => utterances.slice(from, bounds[position + 1]));
  const duration = Math.max(input.durationSeconds, utterances.at(-1)?.endSecond ?? 0);
  // Document frequency of stems over the chapters, for key phrases that tell one chapter from the others.
  const chapterStems = spans.map((span) => termCounts(span.flatMap((utterance) => utterance.stems)));
  const chapterFrequency = new Map<string, number>();
  for (const counts of chapterStems) for (const stem of counts.keys()) chapterFrequency.set(stem, (chapterFrequency.get(stem) ?? 0) + 1);
  return spans.map((span, index) => {
    const startSecond = index === 0 ? 0 : (span[0] as Utterance).startSecond;
    const next = spans[index + 1]?.[0];
    const endSecond = next ? next.startSecond : duration;
    const inside = input.segments
      .filter((segment) => segment.startSecond >= startSecond && segment.startSecond < endSecond && (segment.source !== "visual" && segment.source !== "caption"))
      .sort((a, b) => a.startSecond - b.startSecond);
    const counts = chapterStems[index] as Map<string, number>;
    const weights = tfIdf(counts, chapterFrequency, spans.length);
    const title =
      slideTitle(screens, startSecond, endSecond) ?? keyPhrases(span, weights) ?? `Part ${index + 1}`;
    return {
      index,
      startSecond: round(startSecond),
      endSecond: round(endSecond),
      title,
      summary: cutWords(centralUtterance(span, weights)?.text ?? "", maxSummaryWords),
      text: distinctLines(inside.map((segment) => segment.text)).join("\n"),
      madeBy: "lite",
    };
  });
}

/** Stem weights of one chapter: its counts times how rare the stem is among the video's chapters. */
export function tfIdf(counts: ReadonlyMap<string, number>, documentFrequency: ReadonlyMap<string, number>, documents: number): Map<string, number> {
  const weights = new Map<string, number>();
  for (const [stem, count] of counts) weights.set(stem, count * Math.log(1 + documents / (documentFrequency.get(stem) ?? 1)));
  return weights;
}

/** The utterance most like the chapter as a whole (of those long enough to say something). */
export function centralUtterance(span: readonly Utterance[], weights: ReadonlyMap<string, number>): Utterance | undefined {
  let best: Utterance | undefined;
  let bestScore = -1;
  for (const utterance of span) {
    // A sound cue ("[squawk]") or a word or two says nothing of the chapter.
    if (utterance.stems.length < minimumStems) continue;
    if (utterance.words < 5 && span.some((other) => other.words >= 5 && other.stems.length >= minimumStems)) continue;
    const score = cosine(termCounts(utterance.stems), weights);
    if (score > bestScore) [best, bestScore] = [utterance, score];
  }
  return best;
}

/** Times the on-screen text changed to something new. */
function slideChanges(screens: readonly Segment[]): number[] {
  const changes: number[] = [];
  let previous: Map<string, number> | undefined;
  for (const screen of screens) {
    const counts = termCounts(contentStems(screen.text));
    if (counts.size === 0) continue;
    if (previous && cosine(previous, counts) < slideSimilarity) changes.push(screen.startSecond);
    previous = counts;
  }
  return changes;
}

/** Times the picture changed, from the perceptual hashes of consecutive frames. */
function pictureChanges(frames: readonly Frame[]): number[] {
  const changes: number[] = [];
  const sorted = [...frames].filter((frame) => frame.hash).sort((a, b) => a.timeSecond - b.timeSecond);
  for (let index = 1; index < sorted.length; index++) {
    const a = sorted[index - 1]?.hash as string;
    const b = sorted[index]?.hash as string;
    if (a.length === b.length && hashDistance(a, b) >= pictureChangeBits) changes.push((sorted[index] as Frame).timeSecond);
  }
  return changes;
}

/** The first line of the on-screen text shown when the chapter starts, when it reads like a title. */
function slideTitle(screens: readonly Segment[], startSecond: number, endSecond: number): string | undefined {
  // A slide first read just after the chapter starts is its slide (frames are sampled); else the one shown at its start.
  const shown =
    screens.find((screen) => screen.startSecond >= startSecond - 2 && screen.startSecond < Math.min(endSecond, startSecond + 10)) ??
    screens.find((screen) => screen.endSecond > startSecond + 1 && screen.startSecond <= startSecond + 1);
  const line = shown?.text.split(/\n/).map((part) => part.trim()).find((part) => /\p{L}/u.test(part));
  if (!line) return undefined;
  const words = line.split(/\s+/).length;
  return words <= maxTitleWords && contentStems(line).length > 0 ? line : undefined;
}

/**
 * The chapter's key phrases: its most distinctive stems, each written as the chapter most often writes it, a pair of
 * them that stands together at least twice as one phrase.
 */
function keyPhrases(span: readonly Utterance[], weights: ReadonlyMap<string, number>): string | undefined {
  const surface = new Map<string, Map<string, number>>();
  for (const utterance of span) {
    for (const word of utterance.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      const stem = contentStems(word)[0];
      if (!stem) continue;
      const forms = surface.get(stem) ?? new Map<string, number>();
      forms.set(word, (forms.get(word) ?? 0) + 1);
      surface.set(stem, forms);
    }
  }
  const written = (stem: string): string => [...(surface.get(stem) ?? new Map([[stem, 1]]))].sort((a, b) => b[1] - a[1])[0]?.[0] ?? stem;
  const topical = (stem: string): boolean => stem.length > 2 && isTopical(written(stem));
  const top = [...weights].filter(([stem]) => topical(stem)).sort((a, b) => b[1] - a[1]).slice(0, 8).map(([stem]) => stem);
  if (top.length === 0) return undefined;
  const pairs = new Map<string, number>();
  for (const utterance of span) {
    const words = utterance.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    let previous: string | undefined;
    for (const word of words) {
      const stem = contentStems(word)[0];
      if (!stem) {
        previous = undefined;
        continue;
      }
      if (previous && top.includes(previous) && top.includes(stem) && previous !== stem) pairs.set(`${previous} ${stem}`, (pairs.get(`${previous} ${stem}`) ?? 0) + 1);
      previous = stem;
    }
  }
  const phrase = [...pairs].filter(([, seen]) => seen >= 2).sort((a, b) => b[1] - a[1])[0]?.[0];
  const parts: string[] = [];
  const used = new Set<string>();
  if (phrase) {
    parts.push(phrase.split(" ").map(written).join(" "));
    for (const stem of phrase.split(" ")) used.add(stem);
  }
  for (const stem of top) {
    if (parts.length >= 3) break;
    if (!used.has(stem)) {
      parts.push(written(stem));
      used.add(stem);
    }
  }
  const title = parts.join(", ");
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/** Whether a word can name a topic: fillers, frequent verbs and vague nouns ("guys", "get", "lot", "go") cannot. */
export function isTopical(word: string): boolean {
  const info = wordInfo(word);
  return word.length > 2 && !/^\d+$/.test(word) && !soundTags.has(word) && info.wordClass !== WordClass.Break && info.wordClass !== WordClass.Edge;
}

/** Lines once each, in order: the same screen text is read from many frames. */
function distinctLines(lines: readonly string[]): string[] {
  const seen = new Set<string>();
  return lines.filter((line) => {
    const key = line.replace(/\s+/g, " ").trim().toLowerCase();
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function cutWords(text: string, maxWords: number): string {
  const words = text.split(/\s+/).filter(Boolean);
  return words.length <= maxWords ? words.join(" ") : `${words.slice(0, maxWords).join(" ")}…`;
}

function round(second: number): number {
  return Math.round(second * 1000) / 1000;
}

/** Characters of a chapter's text a language model reads to title it. */
const maxTitlingChars = 6000;

/**
 * Titles and one-line summaries written by a language model from each chapter's text; a chapter whose answer is not
 * the JSON asked for keeps its lite title, and the failure is counted.
 */
export async function titleChapters(
  chapters: readonly Chapter[],
  model: LanguageModel,
  options: { signal?: AbortSignal } = {},
): Promise<{ chapters: Chapter[]; failures: number }> {
  let failures = 0;
  const titled: Chapter[] = [];
  for (const chapter of chapters) {
    options.signal?.throwIfAborted();
    try {
      const result = await model.chat(
        [
          {
            role: "system",
            content:
              'You title chapters of videos. Reply with a JSON object {"title": string, "summary": string}: a title of at most 8 words and a one-sentence summary of what the chapter says, both from the text given only.',
          },
          { role: "user", content: `Chapter ${chapter.index + 1}, ${Math.round(chapter.startSecond)}–${Math.round(chapter.endSecond)} s:\n${chapter.text.slice(0, maxTitlingChars)}` },
        ],
        { temperature: 0, json: model.capabilities.jsonOutput, signal: options.signal },
      );
      const parsed = parseTitle(result.text);
      if (parsed) titled.push({ ...chapter, ...parsed, madeBy: model.id });
      else {
        failures += 1;
        titled.push(chapter);
      }
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const failure = toVideoRagError(error);
      if (failure.code === "INTERRUPTED") throw failure;
      failures += 1;
      titled.push(chapter);
    }
  }
  return { chapters: titled, failures };
}

function parseTitle(text: string): { title: string; summary: string } | undefined {
  const json = text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1);
  try {
    const value = JSON.parse(json) as { title?: unknown; summary?: unknown };
    if (typeof value.title !== "string" || !value.title.trim()) return undefined;
    return { title: cutWords(value.title.trim(), 12), summary: typeof value.summary === "string" ? cutWords(value.summary.trim(), 40) : "" };
  } catch {
    return undefined;
  }
}
