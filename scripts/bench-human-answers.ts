// How-to answers against people's answers: ROUGE-L and recall@1/5/10 on the 267 human "How to …" questions, the step
// answer's settings cross-validated (5 folds grouped by source video, each fold's settings tuned on the other four),
// beside the answer shipped before (the extractive fact answer) and the 40-line baseline (the 90 densest words of the
// best video). Part of `npm run bench summaries` (`--only human`).

import { existsSync } from "node:fs";
import { join } from "node:path";
import { defaultStepSettings, stepAnswer, stripCitations, type StepInput, type StepSettings } from "../src/answer/index.js";
import { bestOf, crossValidate, foldsByGroup, loadQuestions, percentile, recallAtK, rougeL, type EvalQuestion } from "../src/eval/index.js";
import type { Library } from "../src/library.js";
import type { Hit, Store } from "../src/spec/index.js";
import { analyzeText, termKey } from "../src/text/index.js";
import { sharedDir } from "../src/test-support/shared.js";

const folds = 5;

interface HumanItem {
  question: EvalQuestion;
  /** The answer shipped before this release: extractive sentences of the best moments. */
  factRouge: number;
  /** The answer as shipped now (the question's intent read from it), with its strategy. */
  shippedRouge: number;
  shippedWords: number;
  strategy: string;
  densestRouge: number;
  ranked: string[];
  steps: StepInput;
}

/** The 40-line baseline: the window of 90 words of the best video holding most of the question's words. */
function densestWords(words: string[], wanted: Set<string>, size = 90): string {
  if (words.length <= size) return words.join(" ");
  const hits: number[] = words.map((word) => (wanted.has(termKey(word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, ""))) ? 1 : 0));
  let count = hits.slice(0, size).reduce((sum, hit) => sum + hit, 0);
  let best = count;
  let at = 0;
  for (let start = 1; start + size <= words.length; start++) {
    count += (hits[start + size - 1] ?? 0) - (hits[start - 1] ?? 0);
    if (count > best) [best, at] = [count, start];
  }
  return words.slice(at, at + size).join(" ");
}

/** The mean, rounded; ROUGE-L is 0..100 already. */
const mean = (values: number[]): number => Number((values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length)).toFixed(2));
/** Recall as a percentage, as the papers write it. */
const percent = (values: number[]): number => Number(((100 * values.reduce((sum, value) => sum + value, 0)) / Math.max(1, values.length)).toFixed(2));
const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

export async function measureHumanQuestions(library: Library, store: Store, log: (line: string) => void): Promise<Record<string, unknown>> {
  if (!sharedDir) return { skipped: "../shared is missing" };
  const file = join(sharedDir, "datasets/howto-qa/human-questions.json");
  if (!existsSync(file)) return { skipped: `${file} is missing` };
  const questions = loadQuestions(file).filter((question) => question.answer);
  const items: HumanItem[] = [];
  for (const [position, question] of questions.entries()) {
    const reference = question.answer ?? "";
    const fact = await library.ask(question.question, { intent: "fact", extract: false });
    let moments: Hit[] = [];
    const shipped = await library.ask(question.question, { extract: false, onMoments: (found) => (moments = found) });
    const ranked = [...new Set(moments.map((moment) => moment.videoId))];
    const videos: StepInput["videos"] = [];
    for (const videoId of ranked.slice(0, 3)) {
      const { video, segments } = await library.transcript(videoId);
      videos.push({ video, segments, chapters: (await library.chapters(videoId)).chapters });
    }
    const words = analyzeText(question.question);
    const best = videos[0];
    const densest = best ? densestWords(best.segments.map((segment) => segment.text).join(" ").split(/\s+/), new Set(words.map(termKey))) : "";
    items.push({
      question,
      factRouge: rougeL(stripCitations(fact.text), reference),
      shippedRouge: rougeL(stripCitations(shipped.text), reference),
      shippedWords: wordCount(stripCitations(shipped.text)),
      strategy: shipped.profile.strategy,
      densestRouge: rougeL(densest, reference),
      ranked,
      steps: { question: question.question, videos, questionStems: words.map(termKey), stemWeight: () => 1 },
    });
    if ((position + 1) % 50 === 0) log(`human questions: ${position + 1}/${questions.length}`);
  }
  // Stem weights as the library gives them (idf over clips), read once per question for the grid below.
  for (const item of items) {
    const weights = await stemWeights(store, item.question.question);
    item.steps.stemWeight = (stem) => weights.get(stem) ?? 1;
  }

  const grid: StepSettings[] = [];
  for (const targetWords of [50, 70, 90])
    for (const centralityWeight of [0.5, 1, 2])
      for (const videos of [2, 3])
        for (const span of ["video", "relevant-chapters", "chapter"] as const)
          for (const format of ["numbered", "connected"] as const) grid.push({ ...defaultStepSettings, targetWords, centralityWeight, videos, span, format });
  const stepsRouge = (settings: StepSettings, list: readonly HumanItem[]): number =>
    mean(list.map((item) => rougeL(stripCitations(stepAnswer({ ...item.steps, settings }).text), item.question.answer ?? "")));
  const split = foldsByGroup(items, folds, (item) => item.question.relevantVideos[0] ?? item.question.id);
  const measure = (pick: (item: HumanItem) => number) => (_: unknown, test: readonly HumanItem[]) => ({ rougeL: mean(test.map(pick)) });
  const fact = crossValidate({ folds: split, tune: () => undefined, measure: measure((item) => item.factRouge) });
  const shipped = crossValidate({ folds: split, tune: () => undefined, measure: measure((item) => item.shippedRouge) });
  const densest = crossValidate({ folds: split, tune: () => undefined, measure: measure((item) => item.densestRouge) });
  const defaults = crossValidate({ folds: split, tune: () => defaultStepSettings, measure: (settings, test) => ({ rougeL: stepsRouge(settings, test) }) });
  const tuned = crossValidate({ folds: split, tune: (train) => bestOf(grid, (settings) => stepsRouge(settings, train)), measure: (settings, test) => ({ rougeL: stepsRouge(settings, test) }) });
  const spans = Object.fromEntries(
    (["video", "relevant-chapters", "chapter"] as const).map((span) => [span, stepsRouge({ ...defaultStepSettings, span }, items)]),
  );
  const formats = Object.fromEntries((["numbered", "connected"] as const).map((format) => [format, stepsRouge({ ...defaultStepSettings, format }, items)]));
  const recall = Object.fromEntries([1, 5, 10].map((k) => [`recall@${k}`, percent(items.map((item) => recallAtK(item.ranked, item.question.relevantVideos, k)))]));
  const hit = Object.fromEntries([1, 5, 10].map((k) => [`anyRelevant@${k}`, percent(items.map((item) => (recallAtK(item.ranked, item.question.relevantVideos, k) > 0 ? 1 : 0)))]));
  const strategies: Record<string, number> = {};
  for (const item of items) strategies[item.strategy] = (strategies[item.strategy] ?? 0) + 1;
  const report = {
    questions: items.length,
    folds,
    rougeL: {
      factAnswerShippedBefore: fact.metrics.rougeL,
      densest90WordsBaseline: densest.metrics.rougeL,
      shippedNow: shipped.metrics.rougeL,
      stepsWithDefaults: defaults.metrics.rougeL,
      stepsTunedPerFold: tuned.metrics.rougeL,
      chosenPerFold: tuned.folds.map((fold) => fold.chosen),
    },
    retrieval: { ...recall, ...hit },
    /** All questions, the defaults with one setting changed (in-sample, for reading, not for choosing). */
    defaultsBySpan: spans,
    defaultsByFormat: formats,
    strategies,
    medianWords: { shippedNow: percentile(items.map((item) => item.shippedWords), 50), references: percentile(items.map((item) => wordCount(item.question.answer ?? "")), 50) },
  };
  log(
    `human how-to questions (${items.length}, ${folds} folds by source video): ROUGE-L fact answer (before) ${fact.metrics.rougeL.mean}, ` +
      `densest 90 words ${densest.metrics.rougeL.mean}, shipped now ${shipped.metrics.rougeL.mean} ± ${shipped.metrics.rougeL.spread}, ` +
      `steps tuned per fold ${tuned.metrics.rougeL.mean} ± ${tuned.metrics.rougeL.spread}; ${JSON.stringify(report.retrieval)}`,
  );
  return report;
}

/** The idf of each of the question's stems among the library's clips, the rarest spelling of a stem counting. */
async function stemWeights(store: Store, question: string): Promise<Map<string, number>> {
  const words = analyzeText(question);
  const { frequencies, documentCount } = await store.termDocumentFrequency(words);
  const weights = new Map<string, number>();
  for (const word of words) {
    const weight = Math.log(1 + (documentCount + 1) / ((frequencies.get(word) ?? 0) + 1));
    weights.set(termKey(word), Math.max(weights.get(termKey(word)) ?? 0, weight));
  }
  return weights;
}
