// The lite profile's ranking and answers on the how-to dev questions, each change cross-validated: 5 folds grouped by
// source video, every fold's setting tuned on the other four only, the mean and spread over the held-out folds.
//
//   npm run bench lite [-- --library dir]
//
// --library reuses (or creates) the transcript library folder, so a second run skips ingest.

import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { defaultExtractiveSettings, extractiveAnswer, readExtractiveInput, stripCitations, type ExtractiveInput, type ExtractiveSettings } from "../src/answer/index.js";
import { bestOf, crossValidate, foldsByGroup, latencyPercentiles, loadQuestions, percentile, rougeL, type EvalQuestion, type Fold } from "../src/eval/index.js";
import { openLibrary } from "../src/index.js";
import { ingestTranscripts } from "../src/ingest/transcripts.js";
import { analyzeQuery, analyzeText, rankVideos } from "../src/retrieval/index.js";
import type { Hit, Store } from "../src/spec/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { sharedDir } from "../src/test-support/shared.js";
import { seededRandom } from "./seeded-random.js";

const folds = 5;
/** Candidate videos a ranker re-orders. */
const pool = 50;

/** One candidate video's lexical evidence for a question. */
interface Candidate {
  videoId: string;
  /** BM25 over the whole video, its best clip, the query expanded by relevance feedback, and question bigrams as phrases. */
  video: number;
  clip: number;
  feedback: number;
  phrases: number;
  /** BM25 of the question expanded by its terms' nearest neighbours in word vectors trained on the library's text. */
  neighbours: number;
  /** Cosine between the question's and the video's idf-weighted mean word vectors. */
  meaning: number;
  clipCount: number;
}

interface RankingItem {
  question: EvalQuestion;
  candidates: Candidate[];
}

const byVideo = (matches: { videoId: string; score: number }[]) => new Map(matches.map((match) => [match.videoId, match.score]));

/** RM3-style expansion: the terms most probable in the top videos, each video weighted by its share of their scores. */
function feedbackTerms(library: LibraryText, top: { videoId: string; score: number }[], exclude: Set<string>, count: number): string[] {
  const total = top.reduce((sum, match) => sum + match.score, 0);
  const relevance = new Map<string, number>();
  for (const match of top) {
    const words = library.words.get(match.videoId) ?? [];
    const counts = new Map<string, number>();
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    for (const [word, seen] of counts) relevance.set(word, (relevance.get(word) ?? 0) + (match.score / total) * (seen / words.length));
  }
  return [...relevance].filter(([word]) => !exclude.has(word)).sort((a, b) => b[1] - a[1]).slice(0, count).map(([word]) => word);
}

/**
 * Word vectors trained on the library's own text by random indexing (Sahlgren 2005): each word of the vocabulary gets a
 * sparse random ±1 index vector, and a word's vector sums the index vectors of the words around each of its
 * occurrences (±4 words), weighted by their idf, less the mean over the vocabulary. Cheap enough to train at ingest
 * (one pass over the text), which is the point of the candidate.
 */
class LibraryWordVectors {
  private readonly vectors = new Map<string, Float32Array>();
  private readonly idf = new Map<string, number>();
  private readonly vocabulary: string[];
  private readonly nearest = new Map<string, string[]>();

  constructor(videoWords: string[][], dimensions = 256, window = 4) {
    const documents = new Map<string, number>();
    const counts = new Map<string, number>();
    for (const words of videoWords) {
      for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
      for (const word of new Set(words)) documents.set(word, (documents.get(word) ?? 0) + 1);
    }
    this.vocabulary = [...counts].filter(([, count]) => count >= 5).map(([word]) => word);
    for (const word of this.vocabulary) this.idf.set(word, Math.log(videoWords.length / (documents.get(word) ?? 1)));
    const random = seededRandom(1);
    const index = new Map<string, { at: Int32Array; sign: Float32Array }>();
    for (const word of this.vocabulary) {
      const at = Int32Array.from({ length: 8 }, () => Math.floor(random() * dimensions));
      index.set(word, { at, sign: Float32Array.from({ length: 8 }, () => (random() < 0.5 ? -1 : 1)) });
      this.vectors.set(word, new Float32Array(dimensions));
    }
    for (const words of videoWords) {
      for (const [position, word] of words.entries()) {
        const vector = this.vectors.get(word);
        if (!vector) continue;
        for (let other = Math.max(0, position - window); other <= Math.min(words.length - 1, position + window); other++) {
          const context = other === position ? undefined : index.get(words[other] as string);
          if (!context) continue;
          const weight = this.idf.get(words[other] as string) ?? 0;
          for (let k = 0; k < 8; k++) vector[context.at[k] as number] = (vector[context.at[k] as number] ?? 0) + weight * (context.sign[k] as number);
        }
      }
    }
    const mean = new Float32Array(dimensions);
    for (const vector of this.vectors.values()) normalise(vector).forEach((value, k) => (mean[k] = (mean[k] ?? 0) + value / this.vocabulary.length));
    for (const vector of this.vectors.values()) normalise(vector.map((value, k) => value - (mean[k] ?? 0))).forEach((value, k) => (vector[k] = value));
  }

  /** The `count` words nearest `word` by cosine, nearest first. */
  neighbours(word: string, count: number): string[] {
    const vector = this.vectors.get(word);
    if (!vector) return [];
    const known = this.nearest.get(word);
    if (known && known.length >= count) return known.slice(0, count);
    const found = this.vocabulary
      .filter((other) => other !== word)
      .map((other) => ({ other, cosine: dot(vector, this.vectors.get(other) as Float32Array) }))
      .sort((x, y) => y.cosine - x.cosine)
      .slice(0, count)
      .map((entry) => entry.other);
    this.nearest.set(word, found);
    return found;
  }

  /** The idf-weighted mean of the words' vectors, unit length (zeros when none is known). */
  meanOf(words: string[]): Float32Array {
    const sum = new Float32Array(this.vectors.values().next().value?.length ?? 0);
    for (const word of words) {
      const vector = this.vectors.get(word);
      if (vector) vector.forEach((value, k) => (sum[k] = (sum[k] ?? 0) + value * (this.idf.get(word) ?? 0)));
    }
    return normalise(sum);
  }
}

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((sum, value, k) => sum + value * (b[k] ?? 0), 0);

function normalise(vector: Float32Array): Float32Array {
  const length = Math.sqrt(dot(vector, vector)) || 1;
  return vector.map((value) => value / length);
}

/** The library's text as words per video, read once for relevance feedback and word vectors alike. */
interface LibraryText {
  words: Map<string, string[]>;
  vectors: LibraryWordVectors;
  /** Each video's idf-weighted mean word vector. */
  meaning: Map<string, Float32Array>;
}

async function readLibraryText(store: Store): Promise<LibraryText> {
  const words = new Map<string, string[]>();
  for (const video of await store.listVideos()) {
    words.set(video.id, analyzeText((await store.getSegments(video.id, 0, Number.MAX_SAFE_INTEGER)).map((segment) => segment.text).join(" ")));
  }
  const vectors = new LibraryWordVectors([...words.values()]);
  return { words, vectors, meaning: new Map([...words].map(([videoId, said]) => [videoId, vectors.meanOf(said)])) };
}

async function rankingItem(store: Store, question: EvalQuestion, library: LibraryText): Promise<RankingItem> {
  const query = analyzeQuery(question.question);
  const videos = await store.searchVideos({ terms: query.terms, phrases: query.phrases, limit: pool });
  const videoIds = videos.map((video) => video.videoId);
  const bestClip = new Map<string, number>();
  for (const clip of await store.searchClips({ terms: query.terms, limit: videoIds.length * 240, videoIds })) {
    bestClip.set(clip.videoId, Math.max(bestClip.get(clip.videoId) ?? 0, clip.score));
  }
  const expansion = feedbackTerms(library, videos.slice(0, 10), new Set(query.terms.map((term) => term.text)), 10);
  const expanded = [...query.terms.map((term) => ({ text: term.text, weight: Math.min(8, 3 * term.weight) })), ...expansion.map((text) => ({ text, weight: 1 }))];
  const feedback = byVideo(await store.searchVideos({ terms: expanded, limit: videoIds.length, videoIds }));
  const words = analyzeText(question.question);
  const bigrams = words.slice(1).map((word, index) => `${words[index]} ${word}`);
  const phrases = bigrams.length > 0 ? byVideo(await store.searchVideos({ terms: [], phrases: bigrams, limit: videoIds.length, videoIds })) : new Map<string, number>();
  const own = new Set(query.terms.map((term) => term.text));
  const near = [...new Set(query.terms.flatMap((term) => library.vectors.neighbours(term.text, 3)))].filter((word) => !own.has(word));
  const withNeighbours = [...query.terms.map((term) => ({ text: term.text, weight: Math.min(8, 3 * term.weight) })), ...near.map((text) => ({ text, weight: 1 }))];
  const neighbours = byVideo(await store.searchVideos({ terms: withNeighbours, limit: videoIds.length, videoIds }));
  const questionMeaning = library.vectors.meanOf(words);
  const candidates: Candidate[] = [];
  for (const match of videos) {
    candidates.push({
      videoId: match.videoId,
      video: match.score,
      clip: bestClip.get(match.videoId) ?? 0,
      feedback: feedback.get(match.videoId) ?? 0,
      phrases: phrases.get(match.videoId) ?? 0,
      neighbours: neighbours.get(match.videoId) ?? 0,
      meaning: dot(questionMeaning, library.meaning.get(match.videoId) ?? new Float32Array(0)),
      clipCount: (await store.getVideo(match.videoId))?.clipCount ?? 1,
    });
  }
  return { question, candidates };
}

const featureNames = ["video", "clip", "feedback", "phrases", "length", "neighbours", "meaning"] as const;

/** Each feature scaled to the question's best candidate, so one weight serves every question; length as log clips. */
function features(item: RankingItem): number[][] {
  const most = (key: "video" | "clip" | "feedback" | "phrases" | "neighbours") => Math.max(1e-9, ...item.candidates.map((candidate) => candidate[key]));
  const scale = { video: most("video"), clip: most("clip"), feedback: most("feedback"), phrases: most("phrases"), neighbours: most("neighbours") };
  return item.candidates.map((candidate) => [
    candidate.video / scale.video,
    candidate.clip / scale.clip,
    candidate.feedback / scale.feedback,
    candidate.phrases / scale.phrases,
    Math.log(candidate.clipCount) / 6,
    candidate.neighbours / scale.neighbours,
    candidate.meaning,
  ]);
}

/** The 1-based rank of the question's source video under the weights; Infinity outside the pool. */
function rankOf(weights: readonly number[], item: RankingItem, matrix: number[][]): number {
  const relevant = item.candidates.findIndex((candidate) => candidate.videoId === item.question.relevantVideos[0]);
  if (relevant === -1) return Infinity;
  const scores = matrix.map((row) => row.reduce((sum, value, index) => sum + value * (weights[index] ?? 0), 0));
  const own = scores[relevant] ?? 0;
  return 1 + scores.filter((score, index) => score > own || (score === own && index < relevant)).length;
}

type RankingMetrics = { recallAt1: number; recallAt5: number; recallAt10: number; mrr: number };

/** Recall@1/5/10 and MRR from the source video's 1-based rank per question (Infinity when not returned). */
function metricsOfRanks(ranks: number[]): RankingMetrics {
  const count = Math.max(1, ranks.length);
  const at = (k: number) => ranks.filter((rank) => rank <= k).length / count;
  return { recallAt1: at(1), recallAt5: at(5), recallAt10: at(10), mrr: ranks.reduce((sum, rank) => sum + 1 / rank, 0) / count };
}

function rankingMetrics(weights: readonly number[], items: RankingItem[], matrices: Map<RankingItem, number[][]>): RankingMetrics {
  return metricsOfRanks(items.map((item) => rankOf(weights, item, matrices.get(item) ?? [])));
}

type MetricSummary = Record<keyof RankingMetrics, { mean: number; spread: number }>;

const describeRanking = (name: string, metrics: MetricSummary) =>
  `${name}: recall@1 ${metrics.recallAt1.mean} ± ${metrics.recallAt1.spread}, @5 ${metrics.recallAt5.mean} ± ${metrics.recallAt5.spread}, @10 ${metrics.recallAt10.mean} ± ${metrics.recallAt10.spread}`;

/** Coordinate ascent (as RankLib's) on recall@1 + recall@10 + MRR, the video BM25 weight fixed at 1; only `free` features move. */
function coordinateAscent(items: RankingItem[], matrices: Map<RankingItem, number[][]>, free: number[], start: number[]): number[] {
  const objective = (weights: number[]) => {
    const metrics = rankingMetrics(weights, items, matrices);
    return metrics.recallAt1 + metrics.recallAt10 + metrics.mrr;
  };
  let weights = [...start];
  let best = objective(weights);
  for (let round = 0; round < 6; round++) {
    let improved = false;
    for (const index of free) {
      for (const step of [-1, -0.5, -0.25, -0.1, -0.05, 0.05, 0.1, 0.25, 0.5, 1]) {
        const trial = [...weights];
        trial[index] = (trial[index] ?? 0) + step;
        const value = objective(trial);
        if (value > best + 1e-9) {
          [weights, best] = [trial, value];
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return weights;
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** The shipped ranking (`rankVideos`: video BM25 + 0.5 × best clip over 20 candidates) measured fold by fold; nothing is tuned. */
function evaluateShipped(ranks: Map<EvalQuestion, number>, split: Fold<RankingItem>[], log: (line: string) => void): Record<string, unknown> {
  const report = crossValidate({
    folds: split,
    tune: () => undefined,
    measure: (_, test) => metricsOfRanks(test.map((item) => ranks.get(item.question) ?? Infinity)),
  });
  log(describeRanking("shipped ranking", report.metrics));
  return { ranking: "shipped: video BM25 + 0.5 x best clip (fixed, chosen on all dev questions before)", ...report.metrics };
}

function evaluateRanking(items: RankingItem[], split: Fold<RankingItem>[], log: (line: string) => void): Record<string, unknown>[] {
  const matrices = new Map(items.map((item) => [item, features(item)]));
  const index = (name: (typeof featureNames)[number]) => featureNames.indexOf(name);
  const base = featureNames.map((name) => (name === "video" ? 1 : 0));
  const rows: { name: string; tune: (train: RankingItem[]) => number[] }[] = [
    { name: "video BM25 alone", tune: () => base },
    { name: "video BM25 + best clip, its weight tuned", tune: (train) => coordinateAscent(train, matrices, [index("clip")], base) },
    { name: "+ relevance feedback (RM3: 10 videos, 10 terms)", tune: (train) => coordinateAscent(train, matrices, [index("clip"), index("feedback")], base) },
    { name: "+ question bigrams as phrases", tune: (train) => coordinateAscent(train, matrices, [index("clip"), index("feedback"), index("phrases")], base) },
    { name: "+ video length (learned linear ranker, all features)", tune: (train) => coordinateAscent(train, matrices, [1, 2, 3, 4], base) },
    { name: "video BM25 + best clip + the question expanded by word-vector neighbours (3 a term)", tune: (train) => coordinateAscent(train, matrices, [index("clip"), index("neighbours")], base) },
    { name: "video BM25 + best clip + question-video word-vector cosine", tune: (train) => coordinateAscent(train, matrices, [index("clip"), index("meaning")], base) },
    { name: "learned linear ranker over every feature, word vectors included", tune: (train) => coordinateAscent(train, matrices, [1, 2, 3, 4, 5, 6], base) },
  ];
  return rows.map(({ name, tune }) => {
    const report = crossValidate({ folds: split, tune, measure: (weights, test) => rankingMetrics(weights, test, matrices) });
    const weights = report.folds.map((fold) => Object.fromEntries(featureNames.map((feature, at) => [feature, round3(fold.chosen[at] ?? 0)])));
    log(describeRanking(name, report.metrics));
    return { ranking: name, ...report.metrics, weightsPerFold: weights };
  });
}

interface AnswerItem {
  question: EvalQuestion;
  input: ExtractiveInput;
}

function evaluateAnswers(items: AnswerItem[], split: Fold<AnswerItem>[], log: (line: string) => void): Record<string, unknown> {
  const grid: ExtractiveSettings[] = [];
  for (const targetWords of [15, 20, 30, 45, 60, 90]) {
    for (const centralityWeight of [0, 0.5, 1]) {
      for (const redundancyWeight of [0, 0.5]) {
        for (const momentDiscount of [0.15, 1]) {
          for (const minimumCoverage of [0.1, 0.25]) grid.push({ targetWords, centralityWeight, redundancyWeight, momentDiscount, minimumCoverage });
        }
      }
    }
  }
  const scores = new Map<ExtractiveSettings, Map<AnswerItem, number>>();
  const scoreOf = (settings: ExtractiveSettings, item: AnswerItem): number => {
    let perItem = scores.get(settings);
    if (!perItem) scores.set(settings, (perItem = new Map()));
    let score = perItem.get(item);
    if (score === undefined) {
      score = rougeL(stripCitations(extractiveAnswer({ ...item.input, settings }).text), item.question.answer ?? "");
      perItem.set(item, score);
    }
    return score;
  };
  const mean = (settings: ExtractiveSettings, subset: AnswerItem[]) => subset.reduce((sum, item) => sum + scoreOf(settings, item), 0) / Math.max(1, subset.length);
  const defaults = crossValidate({ folds: split, tune: () => defaultExtractiveSettings, measure: (settings, test) => ({ rougeL: mean(settings, test) }) });
  const tuned = crossValidate({ folds: split, tune: (train) => bestOf(grid, (settings) => mean(settings, train)), measure: (settings, test) => ({ rougeL: mean(settings, test) }) });
  const words = items.map((item) => extractiveAnswer(item.input).citations.reduce((sum, citation) => sum + citation.quote.split(/\s+/).length, 0));
  log(`answers, shipped defaults: ROUGE-L ${defaults.metrics.rougeL.mean} ± ${defaults.metrics.rougeL.spread}; tuned per fold: ${tuned.metrics.rougeL.mean} ± ${tuned.metrics.rougeL.spread}`);
  return {
    shippedDefaults: { settings: defaultExtractiveSettings, rougeL: defaults.metrics.rougeL, medianWords: percentile(words, 50) },
    tunedPerFold: { rougeL: tuned.metrics.rougeL, chosen: tuned.folds.map((fold) => fold.chosen) },
    referenceWordsMean: round3(items.reduce((sum, item) => sum + (item.question.answer ?? "").split(/\s+/).length, 0) / Math.max(1, items.length)),
  };
}

export async function benchLite(options: { library?: string; log?: (line: string) => void } = {}): Promise<Record<string, unknown>> {
  const log = options.log ?? ((line: string) => console.error(line));
  if (!sharedDir) return { skipped: "../shared (datasets/howto-qa) is not beside this checkout; nothing to benchmark" };
  const transcripts = join(sharedDir, "datasets/howto-qa/transcripts");
  if (!existsSync(transcripts)) return { skipped: `${transcripts} is missing` };
  const folder = options.library ? resolve(options.library) : mkdtempSync(join(tmpdir(), "videorag-lite-"));
  mkdirSync(folder, { recursive: true });
  const store = openSqliteStore(join(folder, "library.sqlite"));
  try {
    await ingestTranscripts(store, transcripts);
    const questions = loadQuestions(join(sharedDir, "datasets/howto-qa/dev-questions.json"));
    const group = (question: EvalQuestion) => question.relevantVideos[0] ?? question.id;

    const trainStarted = performance.now();
    const libraryText = await readLibraryText(store);
    log(`word vectors trained on the library's text in ${Math.round((performance.now() - trainStarted) / 1000)} s; ` +
      ["knife", "paint", "guitar", "chicken"].map((word) => `${word}: ${libraryText.vectors.neighbours(word, 5).join(", ")}`).join("; "));
    const latencies: number[] = [];
    const shippedRanks = new Map<EvalQuestion, number>();
    const rankingItems: RankingItem[] = [];
    for (const question of questions) {
      const started = performance.now();
      const ranked = await rankVideos(store, question.question, { limit: 10 });
      latencies.push(performance.now() - started);
      const position = ranked.findIndex((hit) => hit.videoId === question.relevantVideos[0]);
      shippedRanks.set(question, position === -1 ? Infinity : position + 1);
      rankingItems.push(await rankingItem(store, question, libraryText));
    }
    const split = foldsByGroup(rankingItems, folds, (item) => group(item.question));
    const ranking = [evaluateShipped(shippedRanks, split, log), ...evaluateRanking(rankingItems, split, log)];

    const library = await openLibrary({ path: folder, store });
    const answerItems: AnswerItem[] = [];
    const asked: number[] = [];
    for (const question of questions.filter((candidate) => candidate.answer)) {
      let moments: Hit[] = [];
      const started = performance.now();
      await library.ask(question.question, { onMoments: (found) => (moments = found) });
      asked.push(performance.now() - started);
      answerItems.push({ question, input: await readExtractiveInput(store, question.question, moments, async () => false) });
    }
    const answers = evaluateAnswers(answerItems, foldsByGroup(answerItems, folds, (item) => group(item.question)), log);
    return {
      questions: questions.length,
      folds,
      searchLatencyMs: latencyPercentiles(latencies),
      askLatencyMs: latencyPercentiles(asked),
      ranking,
      answers,
    };
  } finally {
    await store.close();
    if (!options.library) rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({ options: { library: { type: "string" } } });
  console.log(JSON.stringify(await benchLite(values), null, 2));
}
