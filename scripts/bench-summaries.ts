// Chapters and summaries of the lite profile, measured where the true chapters are known by construction:
// - chapters: long "videos" joined from 4–10 random how-to transcripts of ../shared, the joins being the true
//   boundaries; boundary precision, recall and F1 within ±10 s and ±30 s, Pk, and `chapterPenalty` and
//   `minChapterSeconds` cross-validated over 5 folds of those videos;
// - narrated: short slide videos made here (title and lines drawn by ffmpeg, narration by espeak-ng, a sidecar .srt),
//   3–5 topics each, ingested into a library and scored by the chapters it stores;
// - coverage: the share of a joined video's true chapters that its summary cites, at each summary length;
// - cost: chapters and summary of one-hour joined videos, the `chapters` stage's share of ingest, `library.summarize`.
//
//   npm run bench summaries [-- --only chapters,narrated,coverage,cost] [--videos 60] [--seed 1] [--out file] [--keep dir]
//
// The readable report goes to stderr, the JSON to stdout and to --out (default bench-results/summaries-<date>.json).

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { bestOf, crossValidate, foldsByGroup, meanAndSpread, percentile, type Fold } from "../src/eval/index.js";
import { openLibrary, type Chapter, type IngestReport, type Library, type Segment, type Video } from "../src/index.js";
import { segmentsFromPlainText } from "../src/ingest/transcripts.js";
import { buildChapters, buildUtterances, defaultSegmentationSettings, liteSummary, summaryLengths, type SegmentationSettings, type VideoSummary } from "../src/summary/index.js";
import { sharedDir } from "../src/test-support/shared.js";
import { openSqliteStore } from "../src/store/index.js";
import { measureHumanQuestions } from "./bench-human-answers.js";
// @ts-expect-error the sample generator is plain JavaScript, shared with the demo
import { makeSlideVideo } from "./make-sample-media.mjs";
import { seededRandom } from "./seeded-random.js";

/** The sections `--only` picks from; `human` (the how-to answers against people's) ingests the 8,648 transcripts first. */
const sectionNames = ["chapters", "narrated", "coverage", "cost", "human"] as const;
type SectionName = (typeof sectionNames)[number];

const folds = 5;
/** A transcript shorter than this (60 s at the estimated 2.5 words/s) is not a chapter anyone would mark. */
const minPartWords = 150;
const grid = {
  chapterPenalty: [1, 1.5, 2, 3, 4],
  minChapterSeconds: [10, 20, 40],
};

export interface BenchSummariesOptions {
  only: SectionName[];
  /** Joined videos for the boundary and coverage measures. */
  videos: number;
  /** One-hour joined videos for the cost measure. */
  hourVideos: number;
  seed: number;
  /** Where the JSON goes besides stdout. */
  out: string;
  /** Keep the generated narrated videos (reused by the next run) and their library in this folder, not a temporary one. */
  keep?: string;
  /** The transcript library for the human questions: reused when it exists, made there otherwise (kept). */
  library?: string;
  log: (line: string) => void;
}

export function parseSummariesArgs(args: string[]): Omit<BenchSummariesOptions, "log"> {
  const { values } = parseArgs({
    args,
    options: { only: { type: "string" }, videos: { type: "string" }, "hour-videos": { type: "string" }, seed: { type: "string" }, out: { type: "string" }, keep: { type: "string" }, library: { type: "string" } },
  });
  const only = (values.only ?? sectionNames.join(",")).split(",").map((name) => name.trim()).filter(Boolean);
  const unknown = only.filter((name) => !(sectionNames as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`--only takes ${sectionNames.join(", ")}, not "${unknown.join(",")}"`);
  const whole = (name: string, value: string | undefined, fallback: number, least: number): number => {
    const parsed = Number(value ?? fallback);
    if (!Number.isInteger(parsed) || parsed < least) throw new Error(`--${name} takes a whole number of at least ${least}, not "${value}"`);
    return parsed;
  };
  return {
    only: only as SectionName[],
    videos: whole("videos", values.videos, 60, folds),
    hourVideos: whole("hour-videos", values["hour-videos"], 10, 1),
    seed: whole("seed", values.seed, 1, 0),
    out: values.out ?? join("bench-results", `summaries-${new Date().toISOString().slice(0, 10)}.json`),
    ...(values.keep ? { keep: values.keep } : {}),
    ...(values.library ? { library: values.library } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Joined transcripts

/** A long video made of whole how-to transcripts one after the other; each join is a true chapter boundary. */
interface JoinedVideo {
  id: string;
  parts: string[];
  segments: Segment[];
  durationSeconds: number;
  /** Where each part after the first starts. */
  boundaries: number[];
}

/** Joins random transcripts, `parts` of them or until `minSeconds`, no transcript twice in one video. */
function joinedVideos(folder: string, count: number, seed: number, size: { minParts: number; maxParts: number } | { minSeconds: number }): JoinedVideo[] {
  const files = readdirSync(folder).filter((name) => name.endsWith(".txt")).sort();
  const raw = seededRandom(seed);
  const uniform = (): number => raw() + 0.5;
  const parsed = new Map<string, Segment[] | undefined>();
  const segmentsOf = (name: string): Segment[] | undefined => {
    if (!parsed.has(name)) {
      const segments = segmentsFromPlainText(readFileSync(join(folder, name), "utf8"));
      const words = segments.reduce((sum, segment) => sum + segment.text.split(/\s+/).length, 0);
      parsed.set(name, words >= minPartWords ? segments : undefined);
    }
    return parsed.get(name);
  };
  const videos: JoinedVideo[] = [];
  for (let index = 0; index < count; index++) {
    const parts = "minParts" in size ? size.minParts + Math.floor(uniform() * (size.maxParts - size.minParts + 1)) : Infinity;
    const video: JoinedVideo = { id: `joined-${seed}-${index + 1}`, parts: [], segments: [], durationSeconds: 0, boundaries: [] };
    while (video.parts.length < parts && !("minSeconds" in size && video.durationSeconds >= size.minSeconds)) {
      const name = files[Math.floor(uniform() * files.length)] as string;
      const segments = segmentsOf(name);
      if (!segments || video.parts.includes(name)) continue;
      if (video.parts.length > 0) video.boundaries.push(video.durationSeconds);
      const offset = video.durationSeconds;
      for (const segment of segments) video.segments.push({ ...segment, startSecond: segment.startSecond + offset, endSecond: segment.endSecond + offset });
      video.durationSeconds = offset + (segments.at(-1)?.endSecond ?? 0);
      video.parts.push(name);
    }
    videos.push(video);
  }
  return videos;
}

/** The joined video as one plain-text transcript, for ingest (its times come out as the joined segments' did). */
function joinedText(folder: string, video: JoinedVideo): { id: string; text: string } {
  return { id: video.id, text: video.parts.map((name) => readFileSync(join(folder, name), "utf8").replace(/^\uFEFF/, "").trim()).join("\n") };
}

function videoOf(video: JoinedVideo): Video {
  return {
    id: video.id, path: `${video.id}.txt`, title: video.id, durationSeconds: video.durationSeconds, kind: "transcript", sizeBytes: 0,
    hasAudio: false, hasVideo: false, timesEstimated: true, ingestedAt: new Date(0).toISOString(), clipCount: 0,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Boundary scores

/**
 * Predicted boundaries matched one-to-one to true ones within `toleranceSeconds`: the largest such matching. A sweep in
 * time order (each true boundary takes the earliest unmatched prediction in its window) finds it, because the windows all
 * have one width and so are ordered alike by start and by end.
 */
export function matchedBoundaries(predicted: readonly number[], truth: readonly number[], toleranceSeconds: number): number {
  const guesses = [...predicted].sort((a, b) => a - b);
  let next = 0;
  let matched = 0;
  for (const boundary of [...truth].sort((a, b) => a - b)) {
    while (next < guesses.length && (guesses[next] as number) < boundary - toleranceSeconds) next++;
    if (next < guesses.length && (guesses[next] as number) <= boundary + toleranceSeconds) {
      matched++;
      next++;
    }
  }
  return matched;
}

/**
 * Beeferman's Pk over time in 1-second steps: the share of probes t, t+k (k half the mean true chapter, in seconds) on
 * which the prediction and the truth disagree about being in one chapter.
 */
export function pk(predicted: readonly number[], truth: readonly number[], durationSeconds: number): number {
  const k = Math.max(1, Math.round(durationSeconds / (truth.length + 1) / 2));
  const chapterAt = (boundaries: readonly number[], second: number): number => boundaries.filter((boundary) => boundary <= second).length;
  let probes = 0;
  let disagreements = 0;
  for (let second = 0; second + k <= durationSeconds; second++) {
    const sameTruth = chapterAt(truth, second) === chapterAt(truth, second + k);
    const samePrediction = chapterAt(predicted, second) === chapterAt(predicted, second + k);
    if (sameTruth !== samePrediction) disagreements++;
    probes++;
  }
  return probes === 0 ? 0 : disagreements / probes;
}

interface VideoScore {
  predicted: number;
  truth: number;
  /** Matched boundaries within ±10 s and ±30 s. */
  matched: Record<10 | 30, number>;
  pk: number;
}

function scoreVideo(predicted: readonly number[], truth: readonly number[], durationSeconds: number): VideoScore {
  return {
    predicted: predicted.length,
    truth: truth.length,
    matched: { 10: matchedBoundaries(predicted, truth, 10), 30: matchedBoundaries(predicted, truth, 30) },
    pk: pk(predicted, truth, durationSeconds),
  };
}

type BoundaryMetrics = {
  precisionAt10: number;
  recallAt10: number;
  f1At10: number;
  precisionAt30: number;
  recallAt30: number;
  f1At30: number;
  pk: number;
  predictedPerVideo: number;
};

/** Micro-averaged precision, recall and F1 (matches, predictions and true boundaries summed over videos); mean Pk. */
function aggregate(scores: readonly VideoScore[]): BoundaryMetrics {
  const sum = (pick: (score: VideoScore) => number): number => scores.reduce((total, score) => total + pick(score), 0);
  const predicted = sum((score) => score.predicted);
  const truth = sum((score) => score.truth);
  const at = (tolerance: 10 | 30) => {
    const matched = sum((score) => score.matched[tolerance]);
    const precision = predicted === 0 ? 0 : matched / predicted;
    const recall = truth === 0 ? 0 : matched / truth;
    return { precision, recall, f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall) };
  };
  const [ten, thirty] = [at(10), at(30)];
  return {
    precisionAt10: round(ten.precision), recallAt10: round(ten.recall), f1At10: round(ten.f1),
    precisionAt30: round(thirty.precision), recallAt30: round(thirty.recall), f1At30: round(thirty.f1),
    pk: round(sum((score) => score.pk) / Math.max(1, scores.length)),
    predictedPerVideo: round(predicted / Math.max(1, scores.length)),
  };
}

const chapterStarts = (chapters: readonly Chapter[]): number[] => chapters.slice(1).map((chapter) => chapter.startSecond);

// ---------------------------------------------------------------------------------------------------------------------
// 1. Chapter boundaries on joined transcripts

type Tuned = Pick<SegmentationSettings, "chapterPenalty" | "minChapterSeconds">;

function measureChapters(videos: readonly JoinedVideo[], log: (line: string) => void): Record<string, unknown> {
  const settings: Tuned[] = grid.chapterPenalty.flatMap((chapterPenalty) => grid.minChapterSeconds.map((minChapterSeconds) => ({ chapterPenalty, minChapterSeconds })));
  const key = (setting: Tuned): string => `${setting.chapterPenalty}/${setting.minChapterSeconds}`;
  const shipped: Tuned = { chapterPenalty: defaultSegmentationSettings.chapterPenalty, minChapterSeconds: defaultSegmentationSettings.minChapterSeconds };
  if (!settings.some((setting) => key(setting) === key(shipped))) settings.unshift(shipped);
  // Every video is segmented once per setting; folds then only add up scores.
  const scores = new Map<string, Map<JoinedVideo, VideoScore>>();
  const started = performance.now();
  for (const setting of settings) {
    scores.set(key(setting), new Map(videos.map((video) => [video, scoreVideo(chapterStarts(buildChapters({ segments: video.segments, durationSeconds: video.durationSeconds, settings: setting })), video.boundaries, video.durationSeconds)])));
  }
  log(`chapters: ${videos.length} joined videos × ${settings.length} settings segmented in ${Math.round((performance.now() - started) / 1000)} s`);
  const metricsOf = (setting: Tuned, items: readonly JoinedVideo[]): BoundaryMetrics =>
    aggregate(items.map((video) => scores.get(key(setting))?.get(video) as VideoScore));

  // A baseline that knows only the training videos' mean part length: a boundary every that many seconds.
  const uniformScores = (items: readonly JoinedVideo[], everySeconds: number): BoundaryMetrics =>
    aggregate(items.map((video) => {
      const predicted: number[] = [];
      for (let second = everySeconds; second < video.durationSeconds - everySeconds / 2; second += everySeconds) predicted.push(second);
      return scoreVideo(predicted, video.boundaries, video.durationSeconds);
    }));
  const meanPartSeconds = (items: readonly JoinedVideo[]): number =>
    items.reduce((sum, video) => sum + video.durationSeconds, 0) / items.reduce((sum, video) => sum + video.parts.length, 0);

  const split: Fold<JoinedVideo>[] = foldsByGroup(videos, folds, (video) => video.id);
  const tuned = crossValidate({
    folds: split,
    tune: (train) => bestOf(settings, (setting) => metricsOf(setting, train).f1At30 + metricsOf(setting, train).f1At10 / 1000),
    measure: (setting, test) => metricsOf(setting, test),
  });
  const perFold = (measure: (test: JoinedVideo[], train: JoinedVideo[]) => BoundaryMetrics) => {
    const held = split.map((fold) => measure(fold.test, fold.train));
    const names = Object.keys(held[0] ?? {}) as (keyof BoundaryMetrics)[];
    return Object.fromEntries(names.map((name) => [name, meanAndSpread(held.map((metrics) => metrics[name]))])) as Record<keyof BoundaryMetrics, { mean: number; spread: number }>;
  };
  const shippedFolds = perFold((test) => metricsOf(shipped, test));
  const uniformFolds = perFold((test, train) => uniformScores(test, meanPartSeconds(train)));
  const gain = meanAndSpread(split.map((fold, index) => (tuned.folds[index]?.held.f1At30 ?? 0) - metricsOf(shipped, fold.test).f1At30));

  const all = metricsOf(shipped, videos);
  // Chapters start at utterances (up to 40 words, 16 s, of caption text without punctuation), which may straddle a
  // join: the share of joins with an utterance start within ±10 s is the most a ±10 s recall can be.
  const reachable = videos.flatMap((video) => {
    const starts = buildUtterances(video.segments).map((utterance) => utterance.startSecond);
    return video.boundaries.map((boundary) => Math.min(...starts.map((start) => Math.abs(start - boundary))));
  });
  const reachableAt10 = round(reachable.filter((distance) => distance <= 10).length / reachable.length);
  const byPenalty = grid.chapterPenalty.map((chapterPenalty) => ({ chapterPenalty, ...metricsOf({ chapterPenalty, minChapterSeconds: shipped.minChapterSeconds }, videos) }));
  const truthPerVideo = videos.reduce((sum, video) => sum + video.boundaries.length, 0) / videos.length;
  log(`chapters, shipped defaults (chapterPenalty ${shipped.chapterPenalty}, minChapterSeconds ${shipped.minChapterSeconds}), all ${videos.length} videos, ` +
    `${round(truthPerVideo)} true and ${all.predictedPerVideo} predicted boundaries per video:`);
  log(table(["tolerance", "precision", "recall", "F1"], [["±10 s", all.precisionAt10, all.recallAt10, all.f1At10], ["±30 s", all.precisionAt30, all.recallAt30, all.f1At30]]));
  log(`  Pk ${all.pk}; joins with an utterance start within ±10 s (the most recall ±10 s can be): ${reachableAt10}; ` +
    `median distance from a join to the nearest utterance start ${round(percentile(reachable, 50))} s`);
  log(`chapters, by chapterPenalty (minChapterSeconds ${shipped.minChapterSeconds}), all videos (in-sample):`);
  log(table(["chapterPenalty", "F1 ±10 s", "F1 ±30 s", "Pk", "boundaries per video"], byPenalty.map((row) => [row.chapterPenalty, row.f1At10, row.f1At30, row.pk, row.predictedPerVideo])));
  const show = (metric: { mean: number; spread: number }): string => `${metric.mean.toFixed(3)} ± ${metric.spread.toFixed(3)}`;
  log(`chapters, ${folds} folds, held-out mean ± spread over folds:`);
  log(table(["settings", "F1 ±10 s", "F1 ±30 s", "Pk"], [
    ["shipped", show(shippedFolds.f1At10), show(shippedFolds.f1At30), show(shippedFolds.pk)],
    ["tuned per fold", show(tuned.metrics.f1At10), show(tuned.metrics.f1At30), show(tuned.metrics.pk)],
    ["a boundary every mean part length", show(uniformFolds.f1At10), show(uniformFolds.f1At30), show(uniformFolds.pk)],
  ]));
  log(`  chosen per fold (chapterPenalty/minChapterSeconds): ${tuned.folds.map((fold) => key(fold.chosen)).join(", ")}; ` +
    `tuned − shipped F1 ±30 s per fold: ${show(gain)}`);
  return {
    videos: videos.length,
    truePerVideo: round(truthPerVideo),
    meanPartSeconds: round(meanPartSeconds(videos)),
    matching: "maximum one-to-one matching within the tolerance (a sweep in time order); micro-averaged over videos",
    pkUnit: "seconds, 1-second steps; k = half the video's mean true chapter length",
    shipped: { settings: shipped, all, folds: shippedFolds },
    utteranceStartWithin10Seconds: reachableAt10,
    byPenalty,
    crossValidated: { grid, objective: "F1 ±30 s on the training folds", folds: tuned.folds.map((fold) => ({ chosen: fold.chosen, f1At30: fold.held.f1At30, f1At10: fold.held.f1At10, pk: fold.held.pk })), metrics: tuned.metrics, gainOverShippedF1At30: gain },
    uniformBaseline: uniformFolds,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// 2. Generated narrated videos

interface NarratedSlide {
  title: string;
  lines: [string, string];
  say: string[];
}

/** Three videos of distinct chapters on one theme each, as a tutorial would be cut. */
const narratedVideos: { name: string; slides: NarratedSlide[] }[] = [
  {
    name: "espresso-at-home",
    slides: [
      { title: "Choosing coffee beans", lines: ["Roasted in the last month", "Medium roast to start"], say: [
        "Good espresso starts with fresh beans roasted within the last few weeks.",
        "Look for the roast date on the bag, not a best before date.",
        "A medium roast is forgiving while you learn, because dark roasts turn bitter quickly.",
        "Single origin beans taste fruity, while blends give a rounder, chocolate flavour.",
        "Buy small bags and keep them sealed, away from light and heat.",
        "Never keep coffee in the fridge, where it soaks up moisture and smells.",
        "Let freshly roasted beans rest for a few days so the gas can escape before you brew.",
      ] },
      { title: "Grinding and dosing", lines: ["Fine, like table salt", "18 grams in the basket"], say: [
        "Espresso needs a fine and even grind, close to the texture of table salt.",
        "A burr grinder crushes the beans evenly, while a blade grinder leaves dust and boulders.",
        "Weigh eighteen grams of ground coffee into a double basket.",
        "Tap the portafilter to settle the bed, then tamp firmly and level.",
        "An uneven tamp lets water channel through the weak side of the puck.",
      ] },
      { title: "Pulling the shot", lines: ["About 36 grams out", "25 to 30 seconds"], say: [
        "Lock the portafilter into the group head and start the pump straight away.",
        "Aim for about thirty six grams of liquid in twenty five to thirty seconds.",
        "If the shot runs too fast and tastes sour, grind finer.",
        "If it drips slowly and tastes harsh, grind coarser.",
        "Change one thing at a time and write down every adjustment.",
        "Watch the stream: it should start dark, turn golden, and thin out near the end.",
        "A pale, watery stream early in the shot means the puck has cracked.",
      ] },
      { title: "Steaming milk", lines: ["Cold milk, cold jug", "Stretch, then swirl"], say: [
        "For a latte, start with cold whole milk in a cold stainless steel jug.",
        "Hold the steam wand just under the surface to stretch the milk into foam.",
        "When the jug feels warm, sink the wand deeper so the milk spins in a smooth vortex.",
        "Stop at about sixty degrees, before the milk starts to taste cooked.",
        "Wipe and purge the wand at once so dried milk never blocks it.",
      ] },
    ],
  },
  {
    name: "bicycle-maintenance",
    slides: [
      { title: "Tyre pressure", lines: ["Check it every week", "Range printed on the sidewall"], say: [
        "Tyres lose air slowly, so check the pressure with a gauge every week.",
        "The safe range is printed on the sidewall of every tyre.",
        "Road tyres run hard, while mountain bike tyres run much softer for grip.",
        "Heavier riders should stay near the top of the range to avoid pinch flats.",
      ] },
      { title: "Fixing a puncture", lines: ["Two tyre levers", "Find the cause first"], say: [
        "To fix a puncture, open the quick release lever and take the wheel out.",
        "Hook two tyre levers under the bead and run them around the rim.",
        "Pump a little air into the tube and listen for the hiss to find the hole.",
        "Run your fingers inside the tyre to find the thorn or glass that caused it.",
        "Fit the new tube slightly inflated so it does not twist under the bead.",
        "Push the bead back on with your thumbs rather than levers, so you do not pinch the new tube.",
      ] },
      { title: "Cleaning the chain", lines: ["Degrease and rinse", "One drop per link"], say: [
        "A dirty chain wears out the cassette and chainrings much faster.",
        "Brush the chain with degreaser while you turn the pedals backwards.",
        "Rinse with water and dry it completely with a clean rag.",
        "Put one drop of lubricant on every roller, then wipe off the excess.",
        "Too much oil only collects grit and turns into a black paste.",
        "Measure chain stretch with a chain checker and replace the chain before it ruins the cassette.",
      ] },
      { title: "Adjusting the brakes", lines: ["Pads flat on the rim", "Barrel adjuster"], say: [
        "Squeeze the brake lever; it should stop well before it touches the handlebar.",
        "If the lever pulls too far, turn the barrel adjuster to take up cable slack.",
        "Rim brake pads should meet the rim flat and never rub the tyre.",
        "Replace the pads when the grooves in the rubber have worn away.",
      ] },
      { title: "Indexing the gears", lines: ["Limit screws first", "Quarter turns"], say: [
        "If the chain hesitates between sprockets, the rear derailleur needs indexing.",
        "Shift to the smallest sprocket and check the cable tension first.",
        "Turn the barrel adjuster a quarter turn at a time while you shift up and down.",
        "The limit screws stop the chain falling off either end of the cassette, so set them before the cable.",
      ] },
    ],
  },
  {
    name: "vegetable-garden",
    slides: [
      { title: "Preparing the soil", lines: ["Clear the weeds", "Dig in compost"], say: [
        "Choose a bed that gets at least six hours of direct sunlight.",
        "Clear the weeds, roots and all, before you dig.",
        "Loosen the soil to the depth of a spade and work in a thick layer of compost.",
        "Compost feeds the soil life and helps sandy soil hold water.",
        "Rake the surface fine and level so small seeds are not buried too deep.",
      ] },
      { title: "Sowing seeds", lines: ["Twice the seed's width deep", "Label every row"], say: [
        "Sow seeds at a depth of about twice their width.",
        "Carrots and lettuce go in shallow drills, while beans go deeper.",
        "Water the drills before sowing, then cover the seeds with dry soil.",
        "Label every row with the variety and the date you sowed it.",
        "Thin the seedlings once they have their first true leaves.",
        "Sow a short row every two weeks for a steady harvest instead of a glut.",
        "Cover early sowings with fleece if a late frost is forecast.",
      ] },
      { title: "Watering and pests", lines: ["Water deeply, less often", "Look under the leaves"], say: [
        "Water deeply twice a week rather than a little every day, so roots grow down.",
        "Water in the morning at the base of the plants and keep the leaves dry.",
        "Slugs come out at night, so check under the leaves with a torch after rain.",
        "A ring of copper tape or crushed shells around young plants keeps them away.",
        "Aphids wash off with a strong spray of water.",
      ] },
    ],
  },
];

const font = ["/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"].find((path) => existsSync(path));

/** A narrated video as the demo's generator makes them (scripts/make-sample-media.mjs); its slide changes are the truth. */
function makeNarratedVideo(directory: string, video: (typeof narratedVideos)[number]): { path: string; durationSeconds: number; boundaries: number[] } {
  const made = makeSlideVideo(directory, { ...video, subtitles: true }) as { path: string; seconds: number; slideStarts: number[] };
  return { path: made.path, durationSeconds: made.seconds, boundaries: made.slideStarts.slice(1) };
}

/** The narrated videos ingested once, shared by the narrated and cost sections. */
interface NarratedLibrary {
  library: Library;
  report: IngestReport;
  videos: { name: string; path: string; videoId: string; durationSeconds: number; boundaries: number[] }[];
  close(): Promise<void>;
}

function missingPrograms(): string[] {
  return ["ffmpeg", "espeak-ng"].filter((program) => spawnSync(program, ["--version"]).error !== undefined);
}

async function ingestNarrated(folder: string, log: (line: string) => void): Promise<NarratedLibrary> {
  const media = join(folder, "media");
  const manifestPath = join(media, "narrated.json");
  // A kept folder's videos are made again only when the scripts above changed; the library is always made anew.
  const recipe = JSON.stringify(narratedVideos);
  const saved = existsSync(manifestPath) ? (JSON.parse(readFileSync(manifestPath, "utf8")) as { recipe: string; made: (ReturnType<typeof makeNarratedVideo> & { name: string })[] }) : undefined;
  let made = saved?.recipe === recipe && saved.made.every((video) => existsSync(video.path)) ? saved.made : undefined;
  if (made) log(`narrated: ${made.length} videos reused from ${media}`);
  else {
    mkdirSync(media, { recursive: true });
    const started = performance.now();
    made = narratedVideos.map((video) => ({ name: video.name, ...makeNarratedVideo(media, video) }));
    writeFileSync(manifestPath, JSON.stringify({ recipe, made }));
    log(`narrated: ${made.length} videos, ${Math.round(made.reduce((sum, video) => sum + video.durationSeconds, 0))} s in all, made in ${Math.round((performance.now() - started) / 1000)} s`);
  }
  rmSync(join(folder, "library"), { recursive: true, force: true });
  // The sidecar .srt is the narration, so no speech recognition; OCR reads the slide titles, which is what they are for.
  // The detector and tagger stay off: they cost CPU, and make the chapters stage's share of ingest look smaller than it is.
  const library = await openLibrary({ path: join(folder, "library"), speech: false, visual: false });
  const report = await library.ingest(made.map((video) => video.path));
  const videos = made.map((video) => {
    const result = report.results.find((entry) => entry.path === resolve(video.path));
    if (!result?.videoId || result.status === "failed") throw new Error(`ingest of ${video.path} failed: ${result?.error?.message ?? "no result"}`);
    return { ...video, videoId: result.videoId };
  });
  log(`narrated: ingested in ${report.wallSeconds.toFixed(1)} s`);
  return { library, report, videos, close: () => library.close() };
}

async function measureNarrated(narrated: NarratedLibrary, log: (line: string) => void): Promise<Record<string, unknown>> {
  const variants = {
    library: [] as VideoScore[],
    narrationAlone: [] as VideoScore[],
    exactSlides: [] as VideoScore[],
  };
  const perVideo: Record<string, unknown>[] = [];
  for (const video of narrated.videos) {
    const { chapters } = await narrated.library.chapters(video.videoId);
    const { segments } = await narrated.library.transcript(video.videoId);
    const spokenSegments = segments.filter((segment) => segment.source !== "screen" && segment.source !== "caption");
    // The same narration without what is on screen: what the slides add, or take away.
    const spoken = buildChapters({ segments: spokenSegments, durationSeconds: video.durationSeconds });
    // The narration with each slide's text where the slide really is: what exact screen-text timing would give.
    const slides = narratedVideos.find((made) => made.name === video.name)?.slides ?? [];
    const starts = [0, ...video.boundaries];
    const exact = buildChapters({
      segments: [...spokenSegments, ...slides.map((slide, index): Segment => ({
        startSecond: starts[index] ?? 0, endSecond: starts[index + 1] ?? video.durationSeconds, text: [slide.title, ...slide.lines].join("\n"), source: "screen",
      }))],
      durationSeconds: video.durationSeconds,
    });
    variants.library.push(scoreVideo(chapterStarts(chapters), video.boundaries, video.durationSeconds));
    variants.narrationAlone.push(scoreVideo(chapterStarts(spoken), video.boundaries, video.durationSeconds));
    variants.exactSlides.push(scoreVideo(chapterStarts(exact), video.boundaries, video.durationSeconds));
    perVideo.push({
      name: video.name, durationSeconds: round(video.durationSeconds), trueBoundaries: video.boundaries.map(round),
      predicted: chapterStarts(chapters), titles: chapters.map((chapter) => chapter.title),
      narrationAlone: chapterStarts(spoken), exactSlides: chapterStarts(exact),
    });
    const seconds = (list: readonly number[]): string => list.map((second) => Math.round(second)).join(", ");
    log(`  ${video.name}: true ${seconds(video.boundaries)} | library.chapters ${seconds(chapterStarts(chapters))} (${chapters.map((chapter) => chapter.title).join(" / ")}) | ` +
      `narration alone ${seconds(chapterStarts(spoken))} | exact slides ${seconds(chapterStarts(exact))}`);
  }
  const metrics = {
    library: aggregate(variants.library),
    narrationAlone: aggregate(variants.narrationAlone),
    exactSlides: aggregate(variants.exactSlides),
  };
  const row = (name: string, value: BoundaryMetrics): (string | number)[] => [name, value.precisionAt10, value.recallAt10, value.f1At10, value.f1At30, value.pk];
  log(`narrated: ${narrated.videos.length} videos, ${narrated.videos.reduce((sum, video) => sum + video.boundaries.length, 0)} true boundaries:`);
  log(table(["chapters from", "P ±10 s", "R ±10 s", "F1 ±10 s", "F1 ±30 s", "Pk"], [
    row("library.chapters (narration, screen text, pictures)", metrics.library),
    row("buildChapters, the narration alone", metrics.narrationAlone),
    row("buildChapters, narration + slide text at the true times", metrics.exactSlides),
  ]));
  return { ...metrics, videos: perVideo };
}

// ---------------------------------------------------------------------------------------------------------------------
// 3. Coverage of the true chapters by summary citations

function measureCoverage(videos: readonly JoinedVideo[], log: (line: string) => void): Record<string, unknown> {
  const covered = (summary: VideoSummary, video: JoinedVideo): number => {
    const starts = [0, ...video.boundaries];
    const cited = new Set<number>();
    for (const citation of summary.sentences.flatMap((sentence) => sentence.citations)) {
      // A citation is in the part its middle is in (an utterance may run a few seconds over a join).
      const middle = (citation.startSecond + citation.endSecond) / 2;
      cited.add(starts.filter((start) => start <= middle).length - 1);
    }
    return cited.size / starts.length;
  };
  const trueChapters = (video: JoinedVideo): Chapter[] =>
    [0, ...video.boundaries].map((startSecond, index, starts) => ({
      index, startSecond, endSecond: starts[index + 1] ?? video.durationSeconds, title: video.parts[index] ?? "", summary: "", text: "", madeBy: "truth",
    }));
  const rows: Record<string, { coverage: number; trueChaptersCoverage: number; sentences: number; words: number }> = {};
  for (const length of summaryLengths) {
    const coverage: number[] = [];
    const withTruth: number[] = [];
    const sentences: number[] = [];
    const words: number[] = [];
    for (const video of videos) {
      const chapters = buildChapters({ segments: video.segments, durationSeconds: video.durationSeconds });
      const summary = liteSummary({ video: videoOf(video), chapters, segments: video.segments, length });
      coverage.push(covered(summary, video));
      withTruth.push(covered(liteSummary({ video: videoOf(video), chapters: trueChapters(video), segments: video.segments, length }), video));
      sentences.push(summary.sentences.length);
      words.push(summary.sentences.reduce((sum, sentence) => sum + sentence.text.split(/\s+/).length, 0));
    }
    const mean = (values: number[]): number => round(values.reduce((sum, value) => sum + value, 0) / values.length);
    rows[length] = { coverage: mean(coverage), trueChaptersCoverage: mean(withTruth), sentences: mean(sentences), words: mean(words) };
  }
  log(`coverage: share of the true chapters (joined transcripts) a summary cites, mean over ${videos.length} videos:`);
  log(table(["length", "over buildChapters' chapters", "over the true chapters", "sentences", "words"],
    summaryLengths.map((length) => [length, rows[length]?.coverage ?? 0, rows[length]?.trueChaptersCoverage ?? 0, rows[length]?.sentences ?? 0, rows[length]?.words ?? 0])));
  return { videos: videos.length, rule: "a citation counts for the true chapter its middle second falls in", ...rows };
}

// ---------------------------------------------------------------------------------------------------------------------
// 4. Cost

function measureHourCost(videos: readonly JoinedVideo[], log: (line: string) => void): Record<string, unknown> {
  const chaptersMs: number[] = [];
  const summaryMs: number[] = [];
  const totalMs: number[] = [];
  // One untimed pass first, so the timings are not of the compiler warming up.
  const first = videos[0];
  if (first) liteSummary({ video: videoOf(first), chapters: buildChapters({ segments: first.segments, durationSeconds: first.durationSeconds }), segments: first.segments });
  for (const video of videos) {
    const started = performance.now();
    const chapters = buildChapters({ segments: video.segments, durationSeconds: video.durationSeconds });
    const built = performance.now();
    liteSummary({ video: videoOf(video), chapters, segments: video.segments, length: "medium" });
    const done = performance.now();
    chaptersMs.push(built - started);
    summaryMs.push(done - built);
    totalMs.push(done - started);
  }
  const median = (values: number[]): number => Math.round(percentile(values, 50));
  const result = {
    videos: videos.length,
    meanMinutes: round(videos.reduce((sum, video) => sum + video.durationSeconds, 0) / videos.length / 60),
    buildChaptersMs: { median: median(chaptersMs), max: Math.round(Math.max(...chaptersMs)) },
    liteSummaryMs: { median: median(summaryMs), max: Math.round(Math.max(...summaryMs)) },
    bothMs: { median: median(totalMs), max: Math.round(Math.max(...totalMs)) },
  };
  log(`cost: ${videos.length} joined videos of ${result.meanMinutes} minutes on average (medium summaries):`);
  log(table(["step", "median ms", "max ms"], [
    ["buildChapters", result.buildChaptersMs.median, result.buildChaptersMs.max],
    ["liteSummary", result.liteSummaryMs.median, result.liteSummaryMs.max],
    ["both", result.bothMs.median, result.bothMs.max],
  ]));
  return result;
}

async function measureIngestCost(narrated: NarratedLibrary, hourVideo: { id: string; text: string } | undefined, log: (line: string) => void): Promise<Record<string, unknown>> {
  const chapterSeconds = narrated.report.results.reduce((sum, result) => sum + (result.stageSeconds.chapters ?? 0), 0);
  const stagesSeconds = narrated.report.results.reduce((sum, result) => sum + Object.values(result.stageSeconds).reduce((total, seconds) => total + (seconds ?? 0), 0), 0);
  const recorded = narrated.report.results.some((result) => result.stageSeconds.chapters !== undefined);
  const ingest = {
    chaptersStageRecorded: recorded,
    chaptersSeconds: round(chapterSeconds),
    ingestWallSeconds: round(narrated.report.wallSeconds),
    shareOfIngest: round(chapterSeconds / narrated.report.wallSeconds),
    stagesSeconds: round(stagesSeconds),
  };
  log(recorded
    ? `cost: the chapters stage took ${ingest.chaptersSeconds} s of ${ingest.ingestWallSeconds} s of ingest (${(100 * ingest.shareOfIngest).toFixed(2)}%)`
    : "cost: ingest records no chapters stage yet (stageSeconds.chapters); share not measured");
  const timeSummaries = async (videoIds: readonly string[]): Promise<{ firstCallMs: number; laterCallsMs: number }> => {
    const firstMs: number[] = [];
    const laterMs: number[] = [];
    for (const videoId of videoIds) {
      for (let call = 0; call < 4; call++) {
        const started = performance.now();
        await narrated.library.summarize(videoId, { length: "medium" });
        (call === 0 ? firstMs : laterMs).push(performance.now() - started);
      }
    }
    const median = (values: number[]): number => Math.round(percentile(values, 50) * 10) / 10;
    return { firstCallMs: median(firstMs), laterCallsMs: median(laterMs) };
  };
  const summarize: Record<string, unknown> = { narrated: await timeSummaries(narrated.videos.map((video) => video.videoId)) };
  log(`cost: library.summarize (medium), median over the ${narrated.videos.length} narrated videos: ` +
    `first call ${(summarize.narrated as { firstCallMs: number }).firstCallMs} ms, later calls ${(summarize.narrated as { laterCallsMs: number }).laterCallsMs} ms`);
  if (hourVideo) {
    // A one-hour joined transcript in the same library: summarize reads its stored chapters and an hour of segments.
    const folder = join(dirname(narrated.library.path), "transcripts");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `${hourVideo.id}.txt`), hourVideo.text);
    const report = await narrated.library.ingestTranscripts(folder, { describeEntities: false });
    const videoId = report.results[0]?.videoId;
    if (videoId) {
      summarize.oneHourTranscript = { minutes: round((report.results[0]?.durationSeconds ?? 0) / 60), ...(await timeSummaries([videoId])) };
      const timed = summarize.oneHourTranscript as { minutes: number; firstCallMs: number; laterCallsMs: number };
      log(`cost: library.summarize (medium) of a ${timed.minutes.toFixed(0)}-minute joined transcript: first call ${timed.firstCallMs} ms, later calls ${timed.laterCallsMs} ms`);
    }
  }
  return { ingest, summarize };
}

// ---------------------------------------------------------------------------------------------------------------------

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** A Markdown table, for the log and for docs/benchmarks.md. */
function table(header: string[], rows: (string | number)[][]): string {
  return [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((row) => `| ${row.join(" | ")} |`)].join("\n");
}

export async function benchSummaries(options: BenchSummariesOptions): Promise<Record<string, unknown>> {
  const { log } = options;
  const transcripts = sharedDir ? join(sharedDir, "datasets/howto-qa/transcripts") : undefined;
  const results: Record<string, unknown> = { seed: options.seed, sections: options.only };
  const wanted = (section: SectionName): boolean => options.only.includes(section);
  const textSections = wanted("chapters") || wanted("coverage") || wanted("cost");
  let joined: JoinedVideo[] = [];
  if (textSections && (!transcripts || !existsSync(transcripts))) {
    results.skipped = "../shared/datasets/howto-qa/transcripts is not beside this checkout; chapters, coverage and the cost of one-hour videos are not measured";
    log(String(results.skipped));
  } else if (textSections && transcripts) {
    joined = joinedVideos(transcripts, options.videos, options.seed, { minParts: 4, maxParts: 10 });
  }

  if (wanted("chapters") && joined.length > 0) results.chapters = measureChapters(joined, log);
  if (wanted("coverage") && joined.length > 0) results.coverage = measureCoverage(joined, log);

  // The narrated videos are made and ingested once for both sections that read them.
  let narrated: NarratedLibrary | undefined;
  let folder: string | undefined;
  if (wanted("narrated") || wanted("cost")) {
    const missing = missingPrograms();
    if (missing.length > 0 || !font) {
      const why = `${[...missing, ...(font ? [] : ["a DejaVu font"])].join(" and ")} not found; the narrated videos are not made`;
      results.narrated = { skipped: why };
      log(`narrated: ${why}`);
    } else {
      folder = options.keep ? resolve(options.keep) : mkdtempSync(join(tmpdir(), "videorag-summaries-"));
      mkdirSync(folder, { recursive: true });
      narrated = await ingestNarrated(folder, log);
    }
  }
  try {
    if (wanted("narrated") && narrated) results.narrated = await measureNarrated(narrated, log);
    if (wanted("cost")) {
      const hourVideos = transcripts && existsSync(transcripts) ? joinedVideos(transcripts, options.hourVideos, options.seed + 1000, { minSeconds: 3600 }) : [];
      results.cost = {
        ...(hourVideos.length > 0 ? { oneHourVideos: measureHourCost(hourVideos, log) } : {}),
        ...(narrated ? await measureIngestCost(narrated, hourVideos[0] && transcripts ? joinedText(transcripts, hourVideos[0]) : undefined, log) : {}),
      };
    }
    if (wanted("human")) results.human = await measureHuman(options, log);
  } finally {
    await narrated?.close();
    if (folder && !options.keep) rmSync(folder, { recursive: true, force: true });
    else if (folder) log(`narrated videos and their library kept in ${folder}`);
  }

  mkdirSync(dirname(resolve(options.out)), { recursive: true });
  writeFileSync(options.out, JSON.stringify(results, null, 2));
  log(`written to ${options.out}`);
  return results;
}

/** The human how-to questions over the transcript library (ingested here when `--library` does not hold it yet). */
async function measureHuman(options: BenchSummariesOptions, log: (line: string) => void): Promise<Record<string, unknown>> {
  const transcripts = sharedDir ? join(sharedDir, "datasets/howto-qa/transcripts") : undefined;
  if (!transcripts || !existsSync(transcripts)) return { skipped: "../shared/datasets/howto-qa is missing" };
  const folder = options.library ? resolve(options.library) : mkdtempSync(join(tmpdir(), "videorag-human-"));
  mkdirSync(folder, { recursive: true });
  const store = openSqliteStore(join(folder, "library.sqlite"));
  const library = await openLibrary({ path: folder, store });
  try {
    const started = performance.now();
    await library.ingestTranscripts(transcripts);
    log(`human: transcript library ready in ${Math.round((performance.now() - started) / 1000)} s`);
    return await measureHumanQuestions(library, store, log);
  } finally {
    await library.close();
    if (!options.library) rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  console.log(JSON.stringify(await benchSummaries({ ...parseSummariesArgs(process.argv.slice(2)), log: (line) => console.error(line) }), null, 2));
}
