// Incremental extraction measured the iRAG way, side by side in one run on a ≥30-minute speech library without subtitles
// (real GRID, LibriVox and JFK recordings concatenated with known offsets, plus generated narrated video):
// - light ingest and full ingest, as x real time each, and their ratio;
// - the same full ingest without voice-activity detection, as full ingest ran before the light index existed;
// - recall of the right moment (a citation of the answer within ±2 s of the spoken answer; also the first citation, and
//   the top five moments of search) for the full library and for the incremental one asked the same questions in
//   order, extracting as it goes, then asked them again;
// - the fraction of clips extracted after the whole question set (the paper's Table 6);
// - question latency p50/p95 with extraction, and without (the same questions asked again); where a question waited for
//   extraction, the time to its first answer (the preliminary one, from what was indexed).
// `--no-baseline` leaves out the full ingest without voice-activity detection (the slowest part). `--think <seconds>`:
// after each question of the incremental library, the time a person reads the answer before the next one, during which
// the background extracts what questions left for later (default 0: questions back to back). `--budget <seconds>`: the
// incremental library's `extraction.budgetSeconds` (default: the configuration's default).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { configSchema } from "../src/config/index.js";
import { openLibrary, type Library } from "../src/index.js";
import { needsShared, sharedPath } from "../src/test-support/shared.js";
import { answerToleranceSeconds, makeSpeechLibrary, type SpeechQuestion } from "./bench-incremental-media.js";

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

/** Whether the answer's first citation (or the search's best moment) lands on the spoken answer, within ±2 s. */
function hitsMoment(question: SpeechQuestion, moment: { path: string; startSecond: number; endSecond: number } | undefined): boolean {
  if (!moment || basename(moment.path) !== basename(question.file)) return false;
  return moment.startSecond <= question.endSecond + answerToleranceSeconds && moment.endSecond >= question.startSecond - answerToleranceSeconds;
}

interface AskRun {
  /** The right moment among the answer's citations. */
  recall: number;
  /** The answer's first citation is the right moment. */
  topCitation: number;
  searchRecallAt5: number;
  latencyMs: number[];
  /** When the first answer was shown: the preliminary one where the question waited for extraction, else the answer. */
  firstAnswerMs: number[];
  extractedPerQuestion: number[];
  /**
   * Per question that extracted: when its final answer came, when the clip where the answer is spoken was written back
   * by its extraction (null: not by this question's), and whether the answer cites the moment. The time a stopping rule
   * that knew the answer would have answered at, given the planner's order.
   */
  waited: { question: number; ms: number; answerClipAtMs: number | null; cited: boolean }[];
  /** The questions (by position) whose answer cites the moment. */
  citedQuestions: number[];
}

async function askAll(library: Library, questions: SpeechQuestion[], thinkSeconds = 0): Promise<AskRun> {
  const run: AskRun = { recall: 0, topCitation: 0, searchRecallAt5: 0, latencyMs: [], firstAnswerMs: [], extractedPerQuestion: [], waited: [], citedQuestions: [] };
  let cited = 0;
  let first = 0;
  let found = 0;
  for (const question of questions) {
    const started = performance.now();
    let firstAt: number | undefined;
    const written: { path: string; clipIndexes: number[]; atMs: number }[] = [];
    const answer = await library.ask(question.question, {
      onPreliminary: () => (firstAt = performance.now()),
      onExtraction: (event) => {
        if (event.type === "extract-batch") written.push({ path: event.path, clipIndexes: event.clipIndexes, atMs: performance.now() - started });
      },
    });
    const finished = performance.now();
    run.latencyMs.push(finished - started);
    run.firstAnswerMs.push((firstAt ?? finished) - started);
    run.extractedPerQuestion.push(answer.extraction?.clips.length ?? 0);
    const hit = answer.citations.some((citation) => hitsMoment(question, citation));
    if ((answer.extraction?.clips.length ?? 0) > 0) {
      const spoken = await library.transcript(question.file, question.startSecond - answerToleranceSeconds, question.endSecond + answerToleranceSeconds);
      const answerClips = new Set(spoken.segments.flatMap((segment) => (segment.source === "speech" && segment.clipIndex !== undefined ? [segment.clipIndex] : [])));
      const heard = written.find((batch) => basename(batch.path) === basename(question.file) && batch.clipIndexes.some((clipIndex) => answerClips.has(clipIndex)));
      run.waited.push({ question: run.latencyMs.length - 1, ms: Math.round(finished - started), answerClipAtMs: heard ? Math.round(heard.atMs) : null, cited: hit });
    }
    if (hit) {
      cited++;
      run.citedQuestions.push(run.latencyMs.length - 1);
    }
    if (hitsMoment(question, answer.citations[0])) first++;
    const hits = await library.search(question.question, { limit: 5 });
    if (hits.some((hit) => hitsMoment(question, hit))) found++;
    if (thinkSeconds > 0) await new Promise((resolve) => setTimeout(resolve, thinkSeconds * 1000));
  }
  run.recall = cited / questions.length;
  run.topCitation = first / questions.length;
  run.searchRecallAt5 = found / questions.length;
  return run;
}

const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

export async function benchIncremental(args: string[] = []): Promise<Record<string, unknown>> {
  const baseline = !args.includes("--no-baseline");
  const think = args.includes("--think") ? Number(args[args.indexOf("--think") + 1]) : 0;
  const budget = args.includes("--budget") ? Number(args[args.indexOf("--budget") + 1]) : undefined;
  if (needsShared) return { skipped: needsShared };
  const mediaDir = process.env.BENCH_SPEECH_DIR ?? join(tmpdir(), "videorag-bench-speech");
  const speech = await makeSpeechLibrary(mediaDir);
  const files = speech.files.map((file) => file.path);
  const modelsDir = sharedPath("models");
  const scratch = mkdtempSync(join(tmpdir(), "videorag-bench-incremental-"));
  try {
    const full = await openLibrary({ path: join(scratch, "full"), modelsDir });
    const light = await openLibrary({
      path: join(scratch, "light"),
      modelsDir,
      ...(budget ? { config: configSchema.parse({ extraction: { budgetSeconds: budget } }) } : {}),
    });
    // The full ingest as it was before the light index: speech recognition over all the audio, not only where the
    // voice-activity detector heard speech.
    const before = baseline ? await openLibrary({ path: join(scratch, "before"), modelsDir, config: configSchema.parse({ allowDownloads: false, models: { vad: { provider: "off" } } }) }) : undefined;
    try {
      const fullReport = await full.ingest(files);
      const lightReport = await light.ingest(files, { incremental: true });
      const beforeReport = before ? await before.ingest(files) : undefined;
      await before?.close();
      if (fullReport.failed + lightReport.failed + (beforeReport?.failed ?? 0) > 0) throw new Error("bench ingest failed");
      const mediaSeconds = fullReport.hours * 3600;
      const lightStatus = await light.status();

      const fullRun = await askAll(full, speech.questions);
      const incrementalRun = await askAll(light, speech.questions, think);
      const extractedAfter = await light.status();
      // Asked again: everything these questions need was extracted the first time.
      const againRun = await askAll(light, speech.questions);
      const extracted = (values: number[]): number[] => values.filter((_, index) => (incrementalRun.extractedPerQuestion[index] ?? 0) > 0);
      const withExtraction = extracted(incrementalRun.latencyMs);
      const firstAnswers = extracted(incrementalRun.firstAnswerMs);
      const answerClipTimes = incrementalRun.waited.flatMap((entry) => (entry.answerClipAtMs === null ? [] : [entry.answerClipAtMs]));
      return {
        media: { files: files.length, minutes: round(mediaSeconds / 60, 1), questions: speech.questions.length, clips: lightStatus.clips, thinkSeconds: think },
        extractionBudgetSeconds: budget ?? configSchema.parse({}).extraction.budgetSeconds,
        ingest: {
          fullSeconds: round(fullReport.wallSeconds),
          fullRealTime: round(mediaSeconds / fullReport.wallSeconds, 1),
          lightSeconds: round(lightReport.wallSeconds),
          lightRealTime: round(mediaSeconds / lightReport.wallSeconds, 1),
          speedup: round(fullReport.wallSeconds / lightReport.wallSeconds, 1),
          ...(beforeReport
            ? {
                fullWithoutVadSeconds: round(beforeReport.wallSeconds),
                fullWithoutVadRealTime: round(mediaSeconds / beforeReport.wallSeconds, 1),
                speedupOverFullWithoutVad: round(beforeReport.wallSeconds / lightReport.wallSeconds, 1),
              }
            : {}),
          fullStageSeconds: Object.fromEntries(Object.entries(fullReport.stageSeconds).map(([stage, seconds]) => [stage, round(seconds ?? 0)])),
          lightStageSeconds: Object.fromEntries(Object.entries(lightReport.stageSeconds).map(([stage, seconds]) => [stage, round(seconds ?? 0)])),
        },
        recall: {
          full: round(fullRun.recall, 3),
          incremental: round(incrementalRun.recall, 3),
          ratio: fullRun.recall > 0 ? round(incrementalRun.recall / fullRun.recall, 3) : null,
          fullTopCitation: round(fullRun.topCitation, 3),
          incrementalTopCitation: round(incrementalRun.topCitation, 3),
          fullSearchAt5: round(fullRun.searchRecallAt5, 3),
          incrementalSearchAt5: round(incrementalRun.searchRecallAt5, 3),
          incrementalAskedAgain: round(againRun.recall, 3),
          askedAgainRatio: fullRun.recall > 0 ? round(againRun.recall / fullRun.recall, 3) : null,
          // By question: which answers cite the moment in each run (a clip heard alone is cut across the cores, and
          // side by side is not, so the same clip's words can differ between runs).
          citedQuestions: { full: fullRun.citedQuestions, incremental: incrementalRun.citedQuestions, askedAgain: againRun.citedQuestions },
        },
        extraction: {
          stages: extractedAfter.stages,
          clipsExtracted: extractedAfter.extractedClips,
          clips: extractedAfter.clips,
          fraction: round(extractedAfter.extractedClips / Math.max(1, extractedAfter.clips), 3),
          questionsThatExtracted: withExtraction.length,
          clipsPerQuestion: incrementalRun.extractedPerQuestion,
          waited: incrementalRun.waited,
        },
        latencyMs: {
          fullP50: round(quantile(fullRun.latencyMs, 0.5), 0),
          fullP95: round(quantile(fullRun.latencyMs, 0.95), 0),
          withExtractionP50: round(quantile(withExtraction, 0.5), 0),
          withExtractionP95: round(quantile(withExtraction, 0.95), 0),
          firstAnswerWithExtractionP50: round(quantile(firstAnswers, 0.5), 0),
          firstAnswerWithExtractionP95: round(quantile(firstAnswers, 0.95), 0),
          // Where the question's own extraction wrote back the answer's clip: when it did, p50 / p95.
          answerClipWrittenP50: round(quantile(answerClipTimes, 0.5), 0),
          answerClipWrittenP95: round(quantile(answerClipTimes, 0.95), 0),
          extractedAlreadyP50: round(quantile(againRun.latencyMs, 0.5), 0),
          extractedAlreadyP95: round(quantile(againRun.latencyMs, 0.95), 0),
        },
      };
    } finally {
      await full.close();
      await light.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
