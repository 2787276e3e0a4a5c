// What kind of answer a question wants, and which videos it is about. The intent picks the answer's strategy: a fact
// is a moment, an overview is made from summaries, a procedure is ordered steps as long as people write them, an
// enumeration is every matching moment, counted. A video named in the question ("in the bread video") scopes it.

import type { QuestionIntent, Video } from "../spec/index.js";
import { analyzeText, termKey, tokenize } from "../text/index.js";

const enumerationCues =
  /\b(every (time|single time|mention|moment|occurrence|place|scene)|each (time|mention|moment|occurrence)|all (the )?(times|places|moments|mentions|occurrences|scenes|instances)|how many times|how often|whenever|list (all|every)|find all)\b/i;
const overviewCues =
  /\b(summar(y|ise|ize|ies|ised|ized)|overview|gist|recap|outline|main (points?|ideas?|topics?|themes?|takeaways?)|key (points|ideas|takeaways|topics)|takeaways|what topics|which topics|topics? (do|does|did|are|is)|what (is|are|was|were) (this|that|these|those|the|it|they)\b.*\babout\b|what('s| is| are) .* about\??$|what (do|does|did) .* (cover|discuss|talk about)\??$|tell me about (this|that|the) (video|talk|lecture|film|movie|clip|episode|library))/i;
const procedureCues =
  /^\s*(how (to|do|does|can|should|would|could) (i|you|we|one|they|he|she|people)?\b|how to\b)|\b(steps?|step-by-step|instructions?|procedure|walk me through|the process (of|for)|guide to)\b/i;
/** "How do I …" and "how to …" ask for a procedure; "how did she feel" or "how many" do not. */
const notProcedure = /^\s*how (many|much|long|old|far|big|often|come|did|was|were|is|are)\b/i;

/** The answer a question asks for. */
export function questionIntent(question: string): QuestionIntent {
  if (enumerationCues.test(question)) return "enumeration";
  if (overviewCues.test(question)) return "overview";
  if (!notProcedure.test(question) && procedureCues.test(question)) return "procedure";
  return "fact";
}

/** Words that say "a video" without naming one. */
const videoWords = new Set(["video", "videos", "talk", "lecture", "film", "movie", "clip", "episode", "recording", "presentation", "tutorial", "one"]);
/** Words that ask about the whole library rather than one video. */
const libraryWords = /\b(library|collection|these videos|the videos|all (the |of the )?videos|my videos|every video|each video)\b/i;

/** True when an overview question asks about the library as a whole ("what topics do these videos cover?"). */
export function asksAboutLibrary(question: string): boolean {
  return libraryWords.test(question) || /\bwhat topics\b|\bwhich topics\b/i.test(question);
}

/** The stems that name a video: its title's content words, without the extension and the words every title has. */
function titleStems(video: Video): readonly string[] {
  let stems = stemsByTitle.get(video.title);
  if (!stems) {
    if (stemsByTitle.size >= maxTitles) stemsByTitle.clear();
    const title = video.title.replace(/\.[a-z0-9]{2,4}$/i, "");
    stems = [...new Set(analyzeText(title.replace(/[_\-.]+/g, " ")).filter((word) => !videoWords.has(word) && !/^\d+$/.test(word)).map(termKey))];
    stemsByTitle.set(video.title, stems);
  }
  return stems;
}

/** `titleStems` by title: a pure function of the title, so never stale. */
const stemsByTitle = new Map<string, readonly string[]>();
const maxTitles = 100_000;

/** The videos of a list by the stems of their titles, and how many stems each title has. */
interface TitleIndex {
  videos: readonly Video[];
  byStem: Map<string, number[]>;
  stemCounts: number[];
}

/**
 * The title index of the last list of videos asked about. Every question reads every title (8,648 in the how-to
 * library); a store that keeps its list hands out the same video objects each time, so the index is built once per
 * list and found again by comparing the objects, which costs far less than reading the titles.
 */
let lastTitleIndex: TitleIndex | undefined;

function titleIndex(videos: readonly Video[]): TitleIndex {
  const last = lastTitleIndex;
  if (last && last.videos.length === videos.length && last.videos.every((video, at) => video === videos[at])) return last;
  const byStem = new Map<string, number[]>();
  const stemCounts = videos.map((video, at) => {
    const stems = titleStems(video);
    for (const stem of stems) {
      const list = byStem.get(stem);
      if (list) list.push(at);
      else byStem.set(stem, [at]);
    }
    return stems.length;
  });
  lastTitleIndex = { videos: [...videos], byStem, stemCounts };
  return lastTitleIndex;
}

/**
 * The videos a question names: a video whose title's words the question says, together with a word that means "a
 * video" ("the bread video", "in the sqlite talk") or all of its title's words. The best-named first; none when the
 * question names no video.
 */
export function namedVideos(question: string, videos: readonly Video[]): Video[] {
  const words = tokenize(question);
  const stems = new Set(words.map(termKey));
  const saysVideo = words.some((word) => videoWords.has(word) && word !== "one");
  const index = titleIndex(videos);
  // Only the titles sharing a stem with the question are counted.
  const matchedCounts = new Map<number, number>();
  for (const stem of stems) for (const at of index.byStem.get(stem) ?? []) matchedCounts.set(at, (matchedCounts.get(at) ?? 0) + 1);
  let best = 0;
  let named: number[] = [];
  for (const [at, matched] of matchedCounts) {
    const share = matched / (index.stemCounts[at] as number);
    if (share < 1 && !(saysVideo && share >= 0.5)) continue;
    const score = share * 10 + matched;
    if (score > best) {
      best = score;
      named = [at];
    } else if (score === best) named.push(at);
  }
  // In the order of the list, as a pass over it would give them.
  return named.sort((a, b) => a - b).map((at) => videos[at] as Video);
}
