// Benchmark of a library at scale: synthetic libraries of 100, 1,000 and 10,000 hours (10-minute videos of twenty 30 s
// clips; 10,000 hours is 60,000 videos and 1.2 million clips) written through the Store seam, on SQLite or Postgres.
// For each size: build time and size on disk (and size / clip-text bytes, goal ≤ 2.5x), search latency p50/p95 per
// retrieval mode through the library API, and a `videorag serve` process's resident memory (and HTTP latency per mode)
// after the same questions from 4 clients. Then how each cost grows from one size to the next, as a table.
//
//   npm run bench scale -- [--hours 100,1000] [--store sqlite | --store postgres://user@host:port/db] [--queries 100] [--keep dir]
//   node --import tsx scripts/bench-scale.ts --hours 100 --queries 30
//
// Each clip holds about 75 words, a contiguous run of lines from one of the 8,648 how-to transcripts in
// ../shared/datasets/howto-qa (as speech segments), detections and tags of a scene that persists through the video as
// visual words with a template caption (as the lite visual pass writes them), on-screen text in one clip in ten, and a
// keyframe every 5 s; the lite graph is built from the clips as a real ingest builds it. Not written: vectors (the lite
// profile has no embedder) and deferred-stage records (their keys depend on the providers configured). The text is drawn
// from a 54 MB corpus, so a 10,000-hour library repeats its lines about ten times: its vocabulary does not grow as a real
// library's would. Everything is seeded by the video's number, so the 100-hour library is the first tenth of the 1,000.
//
// On Postgres each size is built in a fresh database `bench_scale_<hours>`, created (after dropping one left by an earlier
// run) on the server of the URL given, whose user needs CREATEDB; the server then runs with `--library <its URL>`.
// --keep leaves the SQLite libraries in <dir>/sqlite-<hours>h (a library folder `videorag serve --library` opens) and the
// Postgres databases, each with its build record in <dir>/postgres-<hours>h, and reuses one already there from the same
// generator instead of building it again.
// The server's memory is VmHWM (peak resident set): SQLite's memory-mapped pages count in it once per connection
// mapping them (the server has one per thread), so `anonMB` is the part that is the process's own.

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { latencyPercentiles } from "../src/eval/index.js";
import { buildLiteVideoGraph } from "../src/graph/index.js";
import { buildClipDocuments } from "../src/ingest/clip-documents.js";
import { segmentsFromPlainText } from "../src/ingest/transcripts.js";
import { readableLabel, templateCaption, visualSegments, type FrameLabels } from "../src/ingest/visual-words.js";
import { videoIdFromHash } from "../src/ingest/content-id.js";
import { openLibrary, type Library } from "../src/library.js";
import { planClips } from "../src/media/index.js";
import { retrievalModes, type ClipSignals, type Frame, type GraphStats, type RetrievalMode, type Segment, type Store, type VideoContent } from "../src/spec/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { sharedDir } from "../src/test-support/shared.js";
import { seededRandom } from "./seeded-random.js";
import { startServe } from "./start-serve.js";

const clipSeconds = 30;
const clipsPerVideo = 20;
const videoSeconds = clipSeconds * clipsPerVideo;
/** Seconds between sampled frames of the full visual pass (the configuration's default `visualEverySeconds`). */
const visualEverySeconds = 2;
/** Seconds between kept keyframes (the configuration's default `frameGapSeconds`). */
const keyframeSeconds = 5;
/** Bumped when the synthetic content changes, so a kept library from an older generator is built again. */
const generatorVersion = 2;
const httpClients = 4;
/** The issue's goals; Postgres's (each cost within 2x of SQLite's) is read by comparing a run on each store. */
const goals = { sizeRatio: 2.5, sqliteQueryP95Ms: 200, serverRssMB: 4096, postgresVsSqlite: 2 };

export interface BenchScaleOptions {
  /** Library sizes in hours of video; default 100 and 1,000. */
  hours?: number[];
  /** "sqlite" (default) or a postgres:// URL. */
  store?: string;
  /** Questions timed per retrieval mode; default 100. */
  queries?: number;
  /** Folder to keep the built libraries in (and reuse them from); default a temporary one, removed afterwards. */
  keep?: string;
  /** Progress lines go here; default stderr. */
  log?: (line: string) => void;
}

/** The command line's options: `--hours 100,1000 --store sqlite --queries 100 --keep dir`. */
export function parseScaleArgs(args: string[]): BenchScaleOptions {
  const { values } = parseArgs({
    args,
    options: { hours: { type: "string" }, store: { type: "string" }, queries: { type: "string" }, keep: { type: "string" } },
  });
  const hours = (values.hours ?? "100,1000").split(",").map((entry) => Number(entry.trim()));
  if (hours.some((entry) => !Number.isInteger(entry) || entry <= 0)) throw new Error(`--hours takes whole hours separated by commas, not "${values.hours}"`);
  const queries = Number(values.queries ?? 100);
  if (!Number.isInteger(queries) || queries <= 0) throw new Error(`--queries takes a positive whole number, not "${values.queries}"`);
  const store = values.store ?? "sqlite";
  if (store !== "sqlite" && !/^postgres(ql)?:\/\//.test(store)) throw new Error(`--store takes sqlite or a postgres:// URL, not "${store}"`);
  return { hours, store, queries, ...(values.keep ? { keep: values.keep } : {}) };
}

/** What the synthetic clips are drawn from. */
interface Corpus {
  transcripts: string[];
  objects: string[];
  tags: string[];
}

function loadCorpus(shared: string): Corpus {
  const folder = join(shared, "datasets/howto-qa/transcripts");
  const transcripts = readdirSync(folder)
    .filter((name) => name.endsWith(".txt"))
    .sort()
    .map((name) => readFileSync(join(folder, name), "utf8"))
    .filter((text) => /\S/.test(text));
  const labels = (file: string): string[] =>
    readFileSync(join(shared, "models", file), "utf8").split("\n").map((line) => line.split(",")[0]?.trim() ?? "").filter(Boolean);
  return { transcripts, objects: labels("coco_labels.txt").map(readableLabel), tags: labels("imagenet_labels.txt") };
}

/** Draws from one video's seeded generator. */
class Draw {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  /** Uniform in [0, 1). */
  uniform(): number {
    return this.next() + 0.5;
  }
  /** A whole number in [0, count). */
  below(count: number): number {
    return Math.min(count - 1, Math.floor(this.uniform() * count));
  }
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)] as T;
  }
  /** 16 hex characters, as a frame's perceptual hash is stored. */
  hash(): string {
    return [0, 1].map(() => Math.floor(this.uniform() * 2 ** 32).toString(16).padStart(8, "0")).join("");
  }
}

/** About `words` words said in a row in one transcript, as the pieces ingest cuts plain text into. */
function transcriptRun(corpus: Corpus, draw: Draw, words: number): string[] {
  const text = corpus.transcripts[draw.below(corpus.transcripts.length)] ?? "";
  const offset = draw.below(text.length);
  // Start at a line when one starts soon, otherwise at a word (some transcripts are one long line).
  const newline = text.indexOf("\n", offset);
  const space = text.indexOf(" ", offset);
  const start = newline !== -1 && newline - offset < 200 ? newline + 1 : space === -1 ? 0 : space + 1;
  // Enough characters for the words wanted; a run that reaches the end goes on from the start of the transcript.
  const window = text.slice(start, start + 12 * words) + (start + 12 * words > text.length ? `\n${text.slice(0, 12 * words)}` : "");
  const pieces: string[] = [];
  let count = 0;
  for (const segment of segmentsFromPlainText(window)) {
    if (count >= words) break;
    pieces.push(segment.text);
    count += segment.text.split(" ").length;
  }
  return pieces;
}

/** One synthetic video: ids, clips, segments, frames, signals and the lite graph, and its clip text in bytes. */
function syntheticVideo(corpus: Corpus, number: number): { content: VideoContent; textBytes: number } {
  const sha256 = createHash("sha256").update(`synthetic-${number}`).digest();
  const id = videoIdFromHash(sha256.toString("hex"));
  const draw = new Draw(sha256.readUInt32LE(0));
  const title = `synthetic-${String(number).padStart(6, "0")}.mp4`;
  // A scene that persists through the video: a few objects, usually a person (these are how-to videos).
  const scene = new Set<string>(draw.uniform() < 0.8 ? ["person"] : []);
  for (let count = 2 + draw.below(3); scene.size < count; ) scene.add(draw.pick(corpus.objects));
  const sceneObjects = [...scene];

  const clips = planClips(videoSeconds, clipSeconds);
  const segments: Segment[] = [];
  const frames: Frame[] = [];
  const signals: ClipSignals[] = [];
  for (const clip of clips) {
    // Speech: ~75 words (60-90) spread over the clip by their length, about 2.5 words a second.
    const pieces = transcriptRun(corpus, draw, 60 + draw.below(31));
    const totalWords = pieces.reduce((sum, piece) => sum + piece.split(" ").length, 0);
    let second = clip.startSecond;
    for (const piece of pieces) {
      const durationSeconds = (clipSeconds * piece.split(" ").length) / Math.max(1, totalWords);
      segments.push({ startSecond: second, endSecond: second + durationSeconds, text: piece, source: "speech", clipIndex: clip.index });
      second += durationSeconds;
    }
    // On-screen text in one clip in ten: a few words, up for part of the clip.
    let screen = "";
    if (draw.uniform() < 0.1) {
      screen = (transcriptRun(corpus, draw, 4)[0] ?? "").split(" ").slice(0, 3 + draw.below(4)).join(" ");
      const startSecond = clip.startSecond + draw.below(20);
      segments.push({ startSecond, endSecond: startSecond + 5 + draw.below(5), text: screen, source: "screen", clipIndex: clip.index });
    }
    // What the detector and tagger see: some of the scene's objects, each for a stretch of the clip, and sometimes a tag.
    const shown = sceneObjects.filter(() => draw.uniform() < 0.6);
    if (shown.length === 0) shown.push(draw.pick(sceneObjects));
    const spans = shown.map((label) => {
      const first = draw.below(10);
      return { label, count: 1 + (draw.uniform() < 0.2 ? draw.below(3) : 0), first, last: first + 3 + draw.below(12) };
    });
    const tag = draw.uniform() < 0.3 ? draw.pick(corpus.tags) : undefined;
    const labels: FrameLabels[] = [];
    for (let step = 0; step * visualEverySeconds < clipSeconds; step++) {
      labels.push({
        timeSecond: clip.startSecond + step * visualEverySeconds,
        objects: spans.filter((span) => step >= span.first && step <= span.last).map((span) => ({ label: span.label, count: span.count, score: 0.6 })),
        tags: tag ? [{ label: tag, score: 0.4 }] : [],
      });
    }
    segments.push(...visualSegments(labels, visualEverySeconds, clip.endSecond).map((segment) => ({ ...segment, clipIndex: clip.index })));
    const caption = templateCaption(labels, screen);
    if (caption) segments.push({ startSecond: clip.startSecond, endSecond: clip.endSecond, text: caption, source: "caption", clipIndex: clip.index });
    for (let time = clip.startSecond; time < clip.endSecond; time += keyframeSeconds) frames.push({ timeSecond: time, hash: draw.hash() });
    signals.push({ clipIndex: clip.index, speechSeconds: 20 + draw.below(10), screenChanges: draw.below(4) });
  }
  segments.sort((a, b) => a.startSecond - b.startSecond);
  const documents = buildClipDocuments(id, clips, segments);
  const textBytes = documents.reduce(
    (sum, document) => sum + Buffer.byteLength(document.transcript) + Buffer.byteLength(document.screen) + Buffer.byteLength(document.visual),
    0,
  );
  return {
    content: {
      video: {
        id,
        path: `/synthetic/${title}`,
        title,
        durationSeconds: videoSeconds,
        kind: "media",
        sizeBytes: 0,
        width: 1280,
        height: 720,
        hasAudio: true,
        hasVideo: true,
        timesEstimated: false,
      },
      clips: documents,
      segments,
      frames,
      signals,
      graph: buildLiteVideoGraph(documents, { maxTokens: 1200 }),
      fingerprint: sha256.toString("hex"),
    },
    textBytes,
  };
}

/** Where one size's library lives, and what it costs on disk. */
interface Target {
  openStore(): Promise<Store>;
  /** A library folder openLibrary and `videorag serve` open (SQLite), or scratch for the library's temporary files. */
  libraryDir: string;
  /** The library's bytes on disk. */
  sizeBytes(): Promise<number>;
  /** Bytes of the largest tables, each with its indexes, largest first; undefined when they cannot be measured. */
  largestTables(): Promise<Record<string, number> | undefined>;
  /** What `videorag serve` is given to open this library: its --library value and environment. */
  serve: { library: string; env?: Record<string, string> };
  cleanup(): Promise<void>;
}

interface BuildRecord {
  generatorVersion: number;
  hours: number;
  videos: number;
  clips: number;
  textBytes: number;
  buildSeconds: number;
  /** The part of buildSeconds spent in commitVideo (the rest makes the content and its lite graph). */
  commitSeconds: number;
}

const buildRecordFile = "bench-scale.json";

function sqliteTarget(parent: string, hours: number, kept: boolean): Target {
  const libraryDir = join(parent, `sqlite-${hours}h`);
  const database = join(libraryDir, "library.sqlite");
  return {
    libraryDir,
    openStore: async () => {
      mkdirSync(libraryDir, { recursive: true });
      return openSqliteStore(database);
    },
    sizeBytes: async () => ["", "-wal", "-shm"].reduce((sum, suffix) => sum + (existsSync(database + suffix) ? statSync(database + suffix).size : 0), 0),
    largestTables: async () => {
      const db = new Database(database, { readonly: true });
      try {
        const rows = db
          .prepare("SELECT COALESCE(m.tbl_name, d.name) AS name, SUM(d.pgsize) AS bytes FROM dbstat d LEFT JOIN sqlite_master m ON m.name = d.name GROUP BY 1 ORDER BY 2 DESC LIMIT 12")
          .all() as { name: string; bytes: number }[];
        return Object.fromEntries(rows.map((row) => [row.name, row.bytes]));
      } catch {
        // A SQLite built without the dbstat table.
        return undefined;
      } finally {
        db.close();
      }
    },
    serve: { library: libraryDir },
    cleanup: async () => {
      if (!kept) rmSync(libraryDir, { recursive: true, force: true });
    },
  };
}

/** The Postgres store and `pg`, loaded only for `--store postgres://…`. */
interface Postgres {
  /** The URL given: a server where a database per size is created. */
  url: string;
  store: typeof import("../src/store/postgres/index.js");
  pg: typeof import("pg").default;
}

/** Loads the Postgres store, with a clear error before anything is built when it cannot be loaded. */
async function loadPostgres(url: string): Promise<Postgres> {
  try {
    const [store, pg] = await Promise.all([import("../src/store/postgres/index.js"), import("pg")]);
    return { url, store, pg: pg.default };
  } catch (error) {
    throw new Error(`the Postgres store is not available: src/store/postgres could not be loaded (${error instanceof Error ? error.message : String(error)})`);
  }
}

async function withClient<T>(postgres: Postgres, url: string, work: (client: InstanceType<Postgres["pg"]["Client"]>) => Promise<T>): Promise<T> {
  const client = new postgres.pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The database `bench_scale_<hours>` on the server of the URL given: a fresh one, or with --keep the one a kept build
 * record (in <dir>/postgres-<hours>h) says was built by the same generator. Dropped afterwards unless kept.
 */
async function postgresTarget(postgres: Postgres, hours: number, scratch: string, kept: boolean): Promise<Target> {
  const name = `bench_scale_${hours}`;
  const libraryDir = join(scratch, `postgres-${hours}h`);
  const reusable = kept && keptBuild(libraryDir, hours) !== undefined;
  await withClient(postgres, postgres.url, async (client) => {
    if (reusable && (await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount === 1) return;
    rmSync(join(libraryDir, buildRecordFile), { force: true });
    await client.query(`DROP DATABASE IF EXISTS ${name}`);
    await client.query(`CREATE DATABASE ${name}`);
  });
  const databaseUrl = new URL(postgres.url);
  databaseUrl.pathname = `/${name}`;
  const url = databaseUrl.toString();
  mkdirSync(libraryDir, { recursive: true });
  return {
    libraryDir,
    openStore: () => postgres.store.openPostgresStore(url),
    sizeBytes: () => withClient(postgres, url, async (client) => Number((await client.query("SELECT pg_database_size(current_database()) AS bytes")).rows[0]?.bytes)),
    largestTables: () =>
      withClient(postgres, url, async (client) => {
        const { rows } = await client.query(
          "SELECT relname AS name, pg_total_relation_size(oid) AS bytes FROM pg_class WHERE relkind IN ('r', 'm') AND relnamespace = 'public'::regnamespace ORDER BY 2 DESC LIMIT 12",
        );
        return Object.fromEntries(rows.map((row: { name: string; bytes: string }) => [row.name, Number(row.bytes)]));
      }),
    // The server keeps its scratch and caches for a Postgres library in VIDEORAG_STATE_DIR.
    serve: { library: url, env: { VIDEORAG_STATE_DIR: libraryDir } },
    cleanup: async () => {
      if (kept) return;
      await withClient(postgres, postgres.url, async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${name}`)));
      rmSync(libraryDir, { recursive: true, force: true });
    },
  };
}

/** Writes `videos` synthetic videos through the store, with a progress line every 5%. */
async function build(target: Target, hours: number, videos: number, corpus: Corpus, log: (line: string) => void): Promise<BuildRecord> {
  const store = await target.openStore();
  let textBytes = 0;
  let commitSeconds = 0;
  const started = performance.now();
  const step = Math.max(1, Math.round(videos / 20));
  try {
    for (let number = 0; number < videos; number++) {
      const video = syntheticVideo(corpus, number);
      const committing = performance.now();
      await store.commitVideo(video.content);
      commitSeconds += (performance.now() - committing) / 1000;
      textBytes += video.textBytes;
      if ((number + 1) % step === 0 || number + 1 === videos) {
        const seconds = (performance.now() - started) / 1000;
        log(`scale ${hours} h: ${number + 1}/${videos} videos (${Math.round(((number + 1) / videos) * 100)}%) in ${seconds.toFixed(1)} s`);
      }
    }
  } finally {
    await store.close();
  }
  return { generatorVersion, hours, videos, clips: videos * clipsPerVideo, textBytes, buildSeconds: (performance.now() - started) / 1000, commitSeconds };
}

/** The build record of a kept library from the same generator, or undefined. */
function keptBuild(libraryDir: string, hours: number): BuildRecord | undefined {
  const file = join(libraryDir, buildRecordFile);
  if (!existsSync(file)) return undefined;
  const record = JSON.parse(readFileSync(file, "utf8")) as BuildRecord;
  return record.generatorVersion === generatorVersion && record.hours === hours ? record : undefined;
}

/** The questions to time: a seeded shuffle of the dev questions, repeated when more are asked for. */
function pickQuestions(shared: string, count: number): string[] {
  const all = (JSON.parse(readFileSync(join(shared, "datasets/howto-qa/dev-questions.json"), "utf8")) as { question: string }[]).map((entry) => entry.question);
  const draw = new Draw(20250101);
  for (let index = all.length - 1; index > 0; index--) {
    const other = draw.below(index + 1);
    [all[index], all[other]] = [all[other] as string, all[index] as string];
  }
  return Array.from({ length: count }, (_, index) => all[index % all.length] as string);
}

type Percentiles = { p50: number; p95: number };
/** Latency of a mode's questions, and how many found nothing (all of them would mean the library was not searched). */
type Timed = Percentiles & { empty: number };

/** Search latency per mode through the library API, as `videorag search` and the server's /api/search run it. */
async function timeModes(library: Library, questions: string[], warmup: string[]): Promise<Record<RetrievalMode, Timed>> {
  const result = {} as Record<RetrievalMode, Timed>;
  for (const mode of retrievalModes) {
    for (const question of warmup) await library.search(question, { mode, limit: 10 });
    const latencies: number[] = [];
    let empty = 0;
    for (const question of questions) {
      const started = performance.now();
      const hits = await library.search(question, { mode, limit: 10 });
      latencies.push(performance.now() - started);
      if (hits.length === 0) empty++;
    }
    result[mode] = { ...latencyPercentiles(latencies), empty };
  }
  return result;
}


/** VmRSS, VmHWM (peak), RssAnon and RssFile of a process, in MB. */
function residentMemory(pid: number): { rssMB: number; peakMB: number; anonMB: number; fileMB: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string): number => Math.round(Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) / 1024);
  return { rssMB: field("VmRSS"), peakMB: field("VmHWM"), anonMB: field("RssAnon"), fileMB: field("RssFile") };
}

/** Posts each question to /api/search from `httpClients` loops; client-side latency. */
async function searchOverHttp(url: string, questions: string[], mode: RetrievalMode): Promise<Timed & { failed: number }> {
  const latencies: number[] = [];
  let failed = 0;
  let empty = 0;
  let next = 0;
  const client = async (): Promise<void> => {
    while (next < questions.length) {
      const query = questions[next++];
      const sent = performance.now();
      const response = await fetch(`${url}/api/search`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ query, mode, limit: 10 }) });
      const body = (await response.json()) as { hits?: unknown[] };
      latencies.push(performance.now() - sent);
      if (!response.ok) failed++;
      else if (!body.hits?.length) empty++;
    }
  };
  await Promise.all(Array.from({ length: httpClients }, client));
  return { ...latencyPercentiles(latencies), empty, failed };
}

/** Resident memory of the server in MB (started, after warm-up, after the timed questions) and HTTP latency per mode. */
interface ServerReport {
  startedMB: number;
  warmMB: number;
  afterMB: number;
  /** VmHWM: the most the process held at once. */
  peakMB: number;
  anonMB: number;
  fileMB: number;
  clients: number;
  httpMs: Record<RetrievalMode, Timed & { failed: number }>;
}

/** A `videorag serve` process on the library: memory after warming it, latency per mode, and its peak memory. */
async function measureServer(library: Target["serve"], questions: string[], warmup: string[]): Promise<ServerReport> {
  const { child, url } = await startServe(["--library", library.library], library.env);
  const pid = child.pid ?? 0;
  try {
    const started = residentMemory(pid);
    for (const mode of retrievalModes) await searchOverHttp(url, warmup, mode);
    const warm = residentMemory(pid);
    const httpMs = {} as Record<RetrievalMode, Timed & { failed: number }>;
    for (const mode of retrievalModes) httpMs[mode] = await searchOverHttp(url, questions, mode);
    const after = residentMemory(pid);
    return { startedMB: started.rssMB, warmMB: warm.rssMB, afterMB: after.rssMB, peakMB: after.peakMB, anonMB: after.anonMB, fileMB: after.fileMB, clients: httpClients, httpMs };
  } finally {
    const exited = new Promise((done) => child.once("exit", done));
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((done) => setTimeout(done, 10_000))]);
  }
}

const megabytes = (bytes: number): number => Math.round(bytes / 1e5) / 10;

/** What one size of library costs. */
interface SizeReport {
  hours: number;
  videos: number;
  clips: number;
  /** Clip text (transcript, screen and visual fields), the size the goal is stated against. */
  textMB: number;
  buildSeconds: number;
  commitSeconds: number;
  reusedKeptLibrary?: true;
  sizeMB: number;
  sizeRatio: number;
  largestTablesMB: Record<string, number> | null;
  /** Through the library API, one question at a time. */
  queryMs: Record<RetrievalMode, Timed>;
  /** The server's peak resident memory. */
  serverRssMB: number;
  server: ServerReport;
  graph: GraphStats;
  withinGoals: { sizeRatio: boolean; queryP95?: boolean; serverRss: boolean };
}

/** Builds and measures each size; `{ skipped }` when ../shared is absent. */
export async function benchScale(options: BenchScaleOptions = {}): Promise<Record<string, unknown>> {
  const log = options.log ?? ((line: string) => console.error(line));
  if (!sharedDir) return { skipped: "../shared (datasets/howto-qa) is not beside this checkout; nothing to benchmark" };
  const shared = sharedDir;
  const hoursList = options.hours ?? [100, 1000];
  const storeKind = options.store ?? "sqlite";
  const queries = options.queries ?? 100;
  const kept = options.keep !== undefined;
  const postgres = storeKind === "sqlite" ? undefined : await loadPostgres(storeKind);
  const corpus = loadCorpus(shared);
  const questions = pickQuestions(shared, queries + 5);
  const warmup = questions.slice(queries);
  const timed = questions.slice(0, queries);
  const parent = options.keep ? resolve(options.keep) : mkdtempSync(join(tmpdir(), "videorag-bench-scale-"));
  mkdirSync(parent, { recursive: true });
  log(`scale: ${corpus.transcripts.length} transcripts, ${corpus.objects.length} object labels, ${timed.length} questions per mode; libraries in ${parent}`);

  const sizes: SizeReport[] = [];
  try {
    for (const hours of hoursList) {
      const videos = Math.round((hours * 3600) / videoSeconds);
      const target = postgres
        ? await postgresTarget(postgres, hours, parent, kept)
        : sqliteTarget(parent, hours, kept);
      try {
        let record = keptBuild(target.libraryDir, hours);
        const reused = record !== undefined;
        if (!record) {
          if (!postgres) rmSync(target.libraryDir, { recursive: true, force: true });
          record = await build(target, hours, videos, corpus, log);
          if (kept) writeFileSync(join(target.libraryDir, buildRecordFile), `${JSON.stringify(record, null, 2)}\n`);
        }
        // A kept library from an older schema is migrated when opened: its size is measured after that.
        if (reused) await (await target.openStore()).close();
        const sizeBytes = await target.sizeBytes();
        const tables = await target.largestTables();
        log(`scale ${hours} h: ${reused ? "kept library" : `built in ${record.buildSeconds.toFixed(1)} s`}, ${megabytes(sizeBytes)} MB`);

        const library = await openLibrary({ path: target.libraryDir, ...(postgres ? { store: await target.openStore() } : {}) });
        let queryMs: Record<RetrievalMode, Timed>;
        let graph: GraphStats;
        try {
          queryMs = await timeModes(library, timed, warmup);
          graph = await library.graphStats();
        } finally {
          await library.close();
        }
        log(`scale ${hours} h: search p95 ${retrievalModes.map((mode) => `${mode} ${queryMs[mode].p95} ms`).join(", ")}`);

        const server = await measureServer(target.serve, timed, warmup);
        log(`scale ${hours} h: server peak resident memory ${server.peakMB} MB (${server.anonMB} MB its own)`);
        const queryP95 = Math.max(...retrievalModes.map((mode) => queryMs[mode].p95));
        const serverRssMB = server.peakMB;
        sizes.push({
          hours,
          videos: record.videos,
          clips: record.clips,
          textMB: megabytes(record.textBytes),
          buildSeconds: Math.round(record.buildSeconds * 10) / 10,
          commitSeconds: Math.round(record.commitSeconds * 10) / 10,
          ...(reused ? { reusedKeptLibrary: true } : {}),
          sizeMB: megabytes(sizeBytes),
          sizeRatio: Math.round((sizeBytes / record.textBytes) * 100) / 100,
          largestTablesMB: tables ? Object.fromEntries(Object.entries(tables).map(([name, bytes]) => [name, megabytes(bytes)])) : null,
          queryMs,
          serverRssMB,
          server,
          graph,
          withinGoals: {
            sizeRatio: sizeBytes / record.textBytes <= goals.sizeRatio,
            ...(postgres ? {} : { queryP95: queryP95 <= goals.sqliteQueryP95Ms }),
            serverRss: serverRssMB <= goals.serverRssMB,
          },
        });
      } finally {
        await target.cleanup();
      }
    }
  } finally {
    if (!kept) rmSync(parent, { recursive: true, force: true });
  }

  const growth = growthTable(sizes);
  log(growth.text);
  return {
    store: postgres ? postgres.store.redactUrl(postgres.url) : "sqlite",
    shape: { videoMinutes: videoSeconds / 60, clipsPerVideo, clipSeconds, wordsPerClip: "60-90 (75 on average)", visualEverySeconds, keyframeSeconds },
    queriesPerMode: queries,
    goals,
    sizes,
    growth: growth.rows,
  };
}

/** The growth table's costs, each as a number per size. */
const growthColumns = {
  buildSeconds: { heading: "build s", of: (size: SizeReport) => size.buildSeconds },
  sizeMB: { heading: "size MB", of: (size: SizeReport) => size.sizeMB },
  worstModeP95Ms: { heading: "worst p95 ms", of: (size: SizeReport) => Math.max(...retrievalModes.map((mode) => size.queryMs[mode].p95)) },
  serverRssMB: { heading: "server RSS MB", of: (size: SizeReport) => size.serverRssMB },
};
type GrowthColumn = keyof typeof growthColumns;

/** Each size's costs, and how many times those of the size before it they are (for `hours` times the hours). */
interface GrowthRow extends Record<GrowthColumn, number> {
  hours: number;
  timesPrevious: ({ hours: number } & Record<GrowthColumn, number>) | null;
}

function growthTable(sizes: SizeReport[]): { rows: GrowthRow[]; text: string } {
  const columns = Object.keys(growthColumns) as GrowthColumn[];
  const round = (value: number): number => Math.round(value * 100) / 100;
  const rows = sizes.map((size, index): GrowthRow => {
    const before = sizes[index - 1];
    const costs = Object.fromEntries(columns.map((column) => [column, growthColumns[column].of(size)])) as Record<GrowthColumn, number>;
    const times = before
      ? { hours: round(size.hours / before.hours), ...(Object.fromEntries(columns.map((column) => [column, round(growthColumns[column].of(size) / growthColumns[column].of(before))])) as Record<GrowthColumn, number>) }
      : null;
    return { hours: size.hours, ...costs, timesPrevious: times };
  });
  const text = [
    `| hours | ${columns.map((column) => growthColumns[column].heading).join(" | ")} |`,
    `|---|${columns.map(() => "---|").join("")}`,
    ...rows.map((row) => `| ${row.hours} | ${columns.map((column) => `${row[column]}${row.timesPrevious ? ` (x${row.timesPrevious[column]})` : ""}`).join(" | ")} |`),
  ].join("\n");
  return { rows, text };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    console.log(JSON.stringify(await benchScale(parseScaleArgs(process.argv.slice(2))), null, 2));
  } catch (error) {
    console.error(`bench scale: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
