// Soak test of the HTTP server: `videorag serve` for --minutes (default 10) under --clients (default 16) concurrent
// clients that search, ask, fetch media with byte ranges, list, upload good, truncated and cancelled files and cancel
// jobs, while an ingest job by path runs the whole time (each one, when it finishes, removes its videos and starts again).
// The goals: 0 crashes, 0 5xx, every good upload ingested, resident memory at the end within 10% of after the first
// minute, no file left outside the library. Checked beside them: nothing left in the library's tmp/ once the server has
// stopped, no file in its uploads/ that is not a video's, and no uploaded video whose file is gone.
//
//   npm run bench soak -- [--minutes 10] [--clients 16] [--keep <dir>]
//
// The server runs as its own process (`videorag serve`, worker threads inside it): its resident memory is VmRSS from
// /proc/<pid>/status. Its TMPDIR is a folder of the scratch one, so whatever the server or a program it starts leaves in
// "the temporary folder" is its own and cannot be confused with another process's; new `videorag-*` entries in the
// system's temporary folder are listed too (`newInSystemTmp`), for a path written there by name, but other processes on
// the machine make them, so they are not a goal. --keep <dir> builds everything in <dir> and leaves it there.

import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { parseArgs } from "node:util";
import type { JobJson } from "../src/api/index.js";
import { latencyPercentiles } from "../src/eval/index.js";
import { openLibrary } from "../src/library.js";
import { isInside } from "../src/media/index.js";
import { errorOutcomes, type ErrorCode } from "../src/spec/index.js";
import { sharedDir } from "../src/test-support/shared.js";
import { startServe } from "./start-serve.js";

const run = promisify(execFile);

export interface SoakOptions {
  minutes: number;
  clients: number;
  /** Build in this folder and keep it; default a fresh temporary folder, removed at the end. */
  keep?: string;
}

export function parseSoakArgs(args: string[]): SoakOptions {
  const { values } = parseArgs({ args, options: { minutes: { type: "string" }, clients: { type: "string" }, keep: { type: "string" } } });
  const minutes = Number(values.minutes ?? 10);
  if (!Number.isFinite(minutes) || minutes <= 0) throw new Error(`--minutes takes a positive number, not "${values.minutes}"`);
  const clients = Number(values.clients ?? 16);
  if (!Number.isInteger(clients) || clients <= 0) throw new Error(`--clients takes a positive whole number, not "${values.clients}"`);
  return { minutes, clients, ...(values.keep ? { keep: values.keep } : {}) };
}

type Action = "search" | "ask" | "media" | "list" | "goodUpload" | "truncatedUpload" | "cancelledUpload" | "cancelJob" | "ingestByPath" | "watchJobs";
interface VideoEntry {
  id: string;
  path: string;
}
interface Failure {
  action: Action;
  route: string;
  status?: number;
  detail: string;
}

/** Weights of what a client does next; uploads are few because each one becomes an ingest job that has to finish. */
const clientActions: [Action, number][] = [
  ["search", 30],
  ["ask", 15],
  ["media", 20],
  ["list", 12],
  ["goodUpload", 6],
  ["truncatedUpload", 5],
  ["cancelledUpload", 5],
  ["cancelJob", 5],
];
/** Good uploads and jobs made to be cancelled that may wait in the queue at once: beyond it, the queue would only grow. */
const maxQueuedUploads = 6;
const requestTimeoutMs = 60_000;
const drainLimitMs = 5 * 60_000;
const rssGoalRatio = 1.1;
const jobEnded = new Set(["done", "failed", "cancelled"]);
const streetFiles = ["car-detection.mp4", "bottle-detection.mp4", "person-bicycle-car-detection.mp4"];

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
const sleep = (ms: number): Promise<void> => new Promise((wake) => setTimeout(wake, ms));
const round1 = (value: number): number => Number(value.toFixed(1));

/** Resident memory of a process in MB, from /proc (Linux); undefined once it has exited. */
function rssMb(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : round1(Number(kb) / 1024);
  } catch {
    return undefined;
  }
}

/** Every file and folder below `dir`, relative to it (empty when it does not exist). */
function listTree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

function systemTmpEntries(except: string): Set<string> {
  return new Set(readdirSync(tmpdir()).filter((name) => name.startsWith("videorag-") && join(tmpdir(), name) !== except));
}

/** A small media file no other upload has: a test pattern with a tone of its own frequency and length. */
async function makeClip(dir: string, serial: number): Promise<string> {
  const path = join(dir, `soak-${serial}.mp4`);
  const seconds = (2 + (serial % 10) / 10).toFixed(1);
  const hertz = 200 + ((serial * 37) % 1800);
  await run("ffmpeg", [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", `testsrc=size=160x120:rate=10:duration=${seconds}`, "-f", "lavfi", "-i", `sine=frequency=${hertz}:duration=${seconds}`],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", "-metadata", `comment=soak ${serial} ${Math.random()}`, path],
  ]);
  return path;
}

/** A multipart/form-data body with one file part named `file`; `closed: false` leaves out the closing boundary. */
function multipartBody(boundary: string, name: string, bytes: Buffer, closed = true): Buffer {
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: video/mp4\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), bytes, Buffer.from(closed ? `\r\n--${boundary}--\r\n` : "\r\n")]);
}

/**
 * POST /api/ingest over a raw socket, so the body can break in ways fetch will not send: `end` half-closes the socket
 * after `sendBytes` of the declared length, `destroy` resets it there, `complete` sends all it declared. Resolves with
 * the status the server answered, if any.
 */
function rawUpload(
  url: URL,
  boundary: string,
  body: Buffer,
  sendBytes: number,
  how: "end" | "destroy" | "complete",
): Promise<{ status?: number; hung?: boolean }> {
  return new Promise((resolveUpload) => {
    let answer = "";
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const finish = (hung = false): void => {
      clearTimeout(timer);
      socket.destroy();
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1];
      resolveUpload({ ...(status ? { status: Number(status) } : {}), ...(hung ? { hung } : {}) });
    };
    const timer = setTimeout(() => finish(true), 30_000);
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    // Resets are what these uploads are for.
    socket.on("error", () => finish());
    socket.on("close", () => finish());
    socket.on("connect", () => {
      socket.write(`POST /api/ingest HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
      socket.write(body.subarray(0, sendBytes));
      // A pause first, so the server is writing the part to disk when the body breaks off.
      setTimeout(() => {
        if (how === "end") socket.end();
        if (how === "destroy") finish();
      }, 50 + Math.random() * 250);
    });
  });
}

export async function benchSoak(options: SoakOptions): Promise<Record<string, unknown>> {
  if (!sharedDir) throw new Error("bench soak needs ../shared (media and models)");
  const shared = sharedDir;
  const scratch = options.keep ? resolve(options.keep) : mkdtempSync(join(tmpdir(), "videorag-bench-soak-"));
  const libraryDir = join(scratch, "library");
  const mediaRoot = join(scratch, "media-root");
  const clipsDir = join(scratch, "clips");
  const serverTmp = join(scratch, "server-tmp");
  for (const dir of [mediaRoot, clipsDir, serverTmp]) mkdirSync(dir, { recursive: true });
  const tmpBefore = systemTmpEntries(scratch);
  const setupStarted = performance.now();

  // A small library, so search, ask and media have something: one subtitled film clip and two GRID talking heads.
  const library = await openLibrary({ path: libraryDir, visual: false, modelsDir: join(shared, "models") });
  const grid = ["bbaf2n.mpg", "lbax4n.mpg"].map((file) => join(shared, "media/speech/grid", file));
  const built = await library.ingest([join(shared, "media/subtitled/friday.mp4"), ...grid]);
  const words = new Set(["humor", "jewels", "universe", "blue", "bin", "lord", "crown", "car", "bottle", "person"]);
  for (const video of await library.list()) {
    for (const segment of (await library.transcript(video.id)).segments) {
      for (const word of segment.text.toLowerCase().match(/[a-z']{3,}/g) ?? []) words.add(word);
    }
  }
  await library.close();
  if (built.failed > 0) throw new Error("the starting library could not be built");
  const vocabulary = [...words];
  for (const file of streetFiles) copyFileSync(join(shared, "media/surveillance", file), join(mediaRoot, file));
  const rawBytes = readFileSync(join(shared, "media/subtitled/friday.mp4"));

  const { child, url } = await startServe(["--library", libraryDir, "--media-root", mediaRoot, "--models-dir", join(shared, "models")], { TMPDIR: serverTmp });
  const pid = child.pid ?? 0;
  const base = new URL(url);
  const setupSeconds = round1((performance.now() - setupStarted) / 1000);
  let crash: { code: number | null; signal: string | null } | undefined;
  let stopping = false;
  child.once("exit", (code, signal) => {
    if (!stopping) crash = { code, signal };
  });
  // A soak that throws must not leave the server running.
  const killServer = (): void => void child.kill("SIGKILL");
  process.once("exit", killServer);

  const requests: Partial<Record<Action, number>> = {};
  const statuses: Partial<Record<Action, Record<string, number>>> = {};
  const latencies: Partial<Record<Action, number[]>> = {};
  const fiveHundreds: Failure[] = [];
  const requestErrors: Failure[] = [];
  /** Error events of streamed answers that are not 5xx, kept to show what they said. */
  const streamErrors: Failure[] = [];
  const count = (action: Action, status: number | string, sentAt?: number): void => {
    requests[action] = (requests[action] ?? 0) + 1;
    if (sentAt !== undefined) (latencies[action] ??= []).push(performance.now() - sentAt);
    const byStatus = (statuses[action] ??= {});
    byStatus[String(status)] = (byStatus[String(status)] ?? 0) + 1;
  };

  /** One request, counted; the whole body is read. Undefined when it failed without a status (also counted). */
  const send = async (action: Action, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown; text: string } | undefined> => {
    const init: RequestInit = { method, headers, signal: AbortSignal.timeout(requestTimeoutMs) };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) Object.assign(init, { body: JSON.stringify(body), headers: { ...headers, "Content-Type": "application/json" } });
    const sentAt = performance.now();
    try {
      const response = await fetch(`${url}${path}`, init);
      const text = await response.text();
      count(action, response.status, sentAt);
      if (response.status >= 500) fiveHundreds.push({ action, route: `${method} ${path}`, status: response.status, detail: text.slice(0, 300) });
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: response.status, json, text };
    } catch (error) {
      count(action, "error");
      requestErrors.push({ action, route: `${method} ${path}`, detail: error instanceof Error ? `${error.name}: ${error.message} ${String((error as { cause?: unknown }).cause ?? "")}` : String(error) });
      return undefined;
    }
  };

  // The clock of the soak starts once the server is up.
  const startedAt = performance.now();
  const durationMs = options.minutes * 60_000;
  const deadline = startedAt + durationMs;
  const running = (): boolean => performance.now() < deadline && !crash;
  const elapsed = (): string => `${Math.floor((performance.now() - startedAt) / 60_000)}:${String(Math.floor(((performance.now() - startedAt) / 1000) % 60)).padStart(2, "0")}`;

  // What the clients know of the library and its jobs.
  let videos: VideoEntry[] = [];
  const mediaSizes = new Map<string, number>();
  const refreshVideos = async (action: Action): Promise<VideoEntry[]> => {
    const answer = await send(action, "GET", "/api/videos");
    const listed = (answer?.json as { videos?: VideoEntry[] } | undefined)?.videos;
    if (listed) videos = listed.map(({ id, path }) => ({ id, path }));
    return videos;
  };
  const goodUploads = new Map<string, { name: string; job?: JobJson }>();
  const goodRefused: { name: string; status?: number }[] = [];
  const sacrificial = new Set<string>();
  let clipSerial = 0;
  let truncatedUploads = 0;
  let cancelledUploads = 0;
  let cancelledJobs = 0;
  const pathJobs: string[] = [];
  const truncatedResponses: Record<string, number> = {};
  let jobsSeen: JobJson[] = [];
  const waiting = (): number => jobsSeen.filter((job) => !jobEnded.has(job.status) && (goodUploads.has(job.id) || sacrificial.has(job.id))).length;

  const uploadClip = async (action: Action, incremental: boolean): Promise<{ jobId?: string; name: string; status?: number }> => {
    const path = await makeClip(clipsDir, clipSerial++);
    const form = new FormData();
    form.append("file", new Blob([await readFile(path)], { type: "video/mp4" }), basename(path));
    if (incremental) form.append("incremental", "true");
    const answer = await send(action, "POST", "/api/ingest", form);
    rmSync(path, { force: true });
    return { name: basename(path), status: answer?.status, jobId: (answer?.json as { jobId?: string } | undefined)?.jobId };
  };

  // Half the jobs made to be cancelled go within 3 s, mostly while queued; the other half once seen running, at a random
  // moment of their run (in the background, so the client goes on meanwhile).
  const cancels: Promise<void>[] = [];
  const cancel = async (jobId: string): Promise<void> => {
    if (Math.random() < 0.5) await sleep(Math.random() * 3000);
    else {
      let status = "queued";
      while (status === "queued" && performance.now() < deadline + drainLimitMs) {
        await sleep(250);
        status = ((await send("watchJobs", "GET", `/api/jobs/${jobId}`))?.json as JobJson | undefined)?.status ?? status;
      }
      if (status !== "running") return;
      await sleep(Math.random() * 1000);
    }
    const answer = await send("cancelJob", "DELETE", `/api/jobs/${jobId}`);
    if (answer?.status === 200) cancelledJobs++;
  };

  const perform: Record<Exclude<Action, "ingestByPath" | "watchJobs">, () => Promise<void>> = {
    search: async () => {
      const query = Array.from({ length: 1 + Math.floor(Math.random() * 3) }, () => pick(vocabulary)).join(" ");
      await send("search", "POST", "/api/search", { query, limit: 1 + Math.floor(Math.random() * 20) });
    },
    ask: async () => {
      const question = `${pick(["What about", "Who said", "Where is", "When does"])} ${pick(vocabulary)} ${pick(vocabulary)}?`;
      // One ask in four streams its answer as server-sent events, as the web UI asks. A failure there is an error event
      // in a 200 response: it is counted as the status its code has in a JSON answer ("404 (event)"), and with the 5xx
      // when that is one.
      if (Math.random() < 0.75) return void (await send("ask", "POST", "/api/ask", { question }));
      const answer = await send("ask", "POST", "/api/ask", { question }, { Accept: "text/event-stream" });
      if (answer?.status !== 200 || /^event: done$/m.test(answer.text)) return;
      const code = /^event: error\ndata: .*"code":"([A-Z_]+)"/m.exec(answer.text)?.[1] as ErrorCode | undefined;
      const status = (code && errorOutcomes[code]?.httpStatus) || 500;
      // send counted it as a 200.
      const byStatus = (statuses.ask ??= {});
      byStatus["200"] = (byStatus["200"] ?? 1) - 1;
      byStatus[`${status} (event)`] = (byStatus[`${status} (event)`] ?? 0) + 1;
      const failure = { action: "ask" as const, route: "POST /api/ask (text/event-stream)", status, detail: answer.text.slice(-300) };
      if (status >= 500) fiveHundreds.push(failure);
      else streamErrors.push(failure);
    },
    media: async () => {
      const video = videos.length > 0 ? pick(videos) : undefined;
      if (!video) return;
      // Ranges inside the file once its size is known (one in ten past its end, for a 416), anywhere before.
      const size = mediaSizes.get(video.id) ?? 2 ** 20;
      const start = Math.floor(Math.random() * size * (Math.random() < 0.1 ? 2 : 1));
      const range = pick([`bytes=${start}-`, `bytes=${start}-${start + Math.floor(Math.random() * 2 ** 18)}`, `bytes=-${1 + Math.floor(Math.random() * size)}`, undefined]);
      const path = `/api/videos/${video.id}/media`;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new Error("timed out")), requestTimeoutMs);
      // One fetch in four leaves after the first chunk, as a video player seeking elsewhere does.
      const leaveEarly = Math.random() < 0.25;
      const sentAt = performance.now();
      try {
        const response = await fetch(`${url}${path}`, { headers: range ? { Range: range } : {}, signal: controller.signal });
        count("media", response.status, sentAt);
        const total = /\/(\d+)$/.exec(response.headers.get("content-range") ?? "")?.[1] ?? (response.status === 200 ? response.headers.get("content-length") : undefined);
        if (total) mediaSizes.set(video.id, Number(total));
        if (response.status >= 500) {
          fiveHundreds.push({ action: "media", route: `GET ${path} (${range ?? "no range"})`, status: response.status, detail: (await response.text()).slice(0, 300) });
          return;
        }
        const reader = response.body?.getReader();
        for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
          if (leaveEarly) {
            controller.abort(new Error("left early"));
            break;
          }
        }
      } catch (error) {
        if (!(leaveEarly && controller.signal.aborted)) {
          count("media", "error");
          requestErrors.push({ action: "media", route: `GET ${path} (${range ?? "no range"})`, detail: error instanceof Error ? error.message : String(error) });
        }
      } finally {
        clearTimeout(timer);
      }
    },
    list: async () => {
      const video = videos.length > 0 ? pick(videos) : undefined;
      const job = jobsSeen.length > 0 ? pick(jobsSeen) : undefined;
      const routes = ["/api/videos", "/api/jobs", "/api/status", "/api/health"];
      if (video) routes.push(`/api/videos/${video.id}`, `/api/videos/${video.id}/transcript`);
      if (job) routes.push(`/api/jobs/${job.id}`);
      const route = pick(routes);
      if (route === "/api/videos") await refreshVideos("list");
      else await send("list", "GET", route);
    },
    goodUpload: async () => {
      if (waiting() >= maxQueuedUploads) return perform.search();
      const upload = await uploadClip("goodUpload", Math.random() < 0.5);
      if (upload.jobId && upload.status === 202) goodUploads.set(upload.jobId, { name: upload.name });
      else goodRefused.push(upload);
    },
    truncatedUpload: async () => {
      truncatedUploads++;
      // Either the socket ends halfway through the declared length, or all of it comes but without the closing boundary.
      const complete = Math.random() < 0.5;
      const boundary = `soak${Math.random().toString(16).slice(2)}`;
      const body = multipartBody(boundary, "truncated.mp4", rawBytes, !complete);
      const outcome = await rawUpload(base, boundary, body, complete ? body.length : Math.floor(body.length / 2), complete ? "complete" : "end");
      const key = outcome.status ? String(outcome.status) : outcome.hung ? "no answer in 30 s" : "closed without answer";
      truncatedResponses[key] = (truncatedResponses[key] ?? 0) + 1;
      count("truncatedUpload", key);
      if ((outcome.status ?? 0) >= 500) fiveHundreds.push({ action: "truncatedUpload", route: "POST /api/ingest (raw)", status: outcome.status, detail: "" });
      if (complete && !outcome.status) requestErrors.push({ action: "truncatedUpload", route: "POST /api/ingest (raw, no closing boundary)", detail: key });
    },
    cancelledUpload: async () => {
      cancelledUploads++;
      const boundary = `soak${Math.random().toString(16).slice(2)}`;
      const body = multipartBody(boundary, "cancelled.mp4", rawBytes);
      await rawUpload(base, boundary, body, Math.floor(body.length * Math.random()), "destroy");
      count("cancelledUpload", "sent");
    },
    cancelJob: async () => {
      if (waiting() >= maxQueuedUploads) return perform.list();
      // Only jobs made to be cancelled: a fresh upload, or one street video by path.
      const started =
        Math.random() < 0.5
          ? (await uploadClip("cancelJob", Math.random() < 0.5)).jobId
          : ((await send("cancelJob", "POST", "/api/ingest", { paths: [join(mediaRoot, pick(streetFiles))], incremental: true }))?.json as { jobId?: string } | undefined)?.jobId;
      if (!started) return;
      sacrificial.add(started);
      cancels.push(cancel(started));
    },
  };

  // The ingest job that runs through the whole soak: the street videos by path, again and again (every other time
  // incremental), their videos removed before each round so there is work to do.
  const keepIngesting = async (): Promise<void> => {
    for (let round = 0; running(); round++) {
      for (const video of await refreshVideos("ingestByPath")) {
        if (isInside(video.path, mediaRoot)) await send("ingestByPath", "DELETE", `/api/videos/${video.id}`);
      }
      const jobId = ((await send("ingestByPath", "POST", "/api/ingest", { paths: [mediaRoot], incremental: round % 2 === 1 }))?.json as { jobId?: string } | undefined)?.jobId;
      if (!jobId) {
        await sleep(1000);
        continue;
      }
      pathJobs.push(jobId);
      while (running() && !jobEnded.has(jobsSeen.find((job) => job.id === jobId)?.status ?? "queued")) await sleep(500);
    }
  };

  // One loop keeps the list of jobs (good uploads' fate, how full the queue is, whether a job runs at all).
  let busySamples = 0;
  let samples = 0;
  let watching = true;
  const watchJobs = async (): Promise<void> => {
    while (watching) {
      const listed = ((await send("watchJobs", "GET", "/api/jobs"))?.json as { jobs?: JobJson[] } | undefined)?.jobs;
      if (listed) {
        jobsSeen = listed;
        samples++;
        if (listed.some((job) => job.status === "running")) busySamples++;
        for (const job of listed) {
          const good = goodUploads.get(job.id);
          if (good) good.job = job;
        }
      }
      await sleep(1000);
    }
  };

  const rssSamples: { second: number; mb: number }[] = [];
  let afterFirstMinute: number | undefined;
  let atEnd: number | undefined;
  const sampleRss = (): number | undefined => {
    const mb = rssMb(pid);
    if (mb !== undefined) rssSamples.push({ second: Math.round((performance.now() - startedAt) / 1000), mb });
    return mb;
  };
  sampleRss();
  const sampler = setInterval(sampleRss, 10_000);
  const firstMinute = setTimeout(() => (afterFirstMinute = rssMb(pid)), Math.min(60_000, durationMs));
  const progress = setInterval(() => {
    const total = Object.values(requests).reduce((sum, value) => sum + value, 0);
    process.stderr.write(`soak ${elapsed()}: ${total} requests, ${fiveHundreds.length} 5xx, ${requestErrors.length} errors, rss ${rssMb(pid) ?? "-"} MB, ${goodUploads.size} good uploads, ${pathJobs.length} path jobs\n`);
  }, 30_000);

  const client = async (): Promise<void> => {
    const totalWeight = clientActions.reduce((sum, [, weight]) => sum + weight, 0);
    while (running()) {
      let draw = Math.random() * totalWeight;
      const [action] = clientActions.find(([, weight]) => (draw -= weight) < 0) ?? clientActions[0]!;
      await perform[action as keyof typeof perform]();
      // A little jitter, so the clients do not move in step.
      await sleep(Math.random() * 50);
    }
  };

  process.stderr.write(`soak: ${options.clients} clients for ${options.minutes} min against ${url} (pid ${pid}, library ${libraryDir})\n`);
  await refreshVideos("list");
  const watcher = watchJobs();
  const ingesting = keepIngesting();
  const endOfSoak = sleep(durationMs).then(() => (atEnd = rssMb(pid)));
  await Promise.all([...Array.from({ length: options.clients }, client), ingesting, endOfSoak]);
  clearTimeout(firstMinute);
  atEnd ??= rssMb(pid);

  // Every job finishes (bounded), so each good upload has its verdict and nothing is mid-write when the server stops.
  process.stderr.write(`soak ${elapsed()}: clients stopped; waiting for the queued jobs\n`);
  const drainStarted = performance.now();
  const unfinished = (): boolean =>
    jobsSeen.some((job) => !jobEnded.has(job.status)) || [...goodUploads.values()].some((upload) => !upload.job || !jobEnded.has(upload.job.status));
  while (!crash && performance.now() < drainStarted + drainLimitMs && unfinished()) await sleep(1000);
  await Promise.all(cancels);
  const drainSeconds = round1((performance.now() - drainStarted) / 1000);
  watching = false;
  await watcher;
  const finalVideos = crash ? videos : await refreshVideos("list");
  clearInterval(sampler);
  clearInterval(progress);

  // Stop the server as a user does (SIGTERM), bounded.
  stopping = true;
  const exited = new Promise<void>((done) => (child.exitCode !== null || child.signalCode !== null ? done() : child.once("exit", () => done())));
  child.kill("SIGTERM");
  const stoppedInTime = await Promise.race([exited.then(() => true), sleep(60_000).then(() => false)]);
  if (!stoppedInTime) {
    child.kill("SIGKILL");
    await exited;
  }
  process.off("exit", killServer);

  // What the library folder holds now, against the videos the server ended with.
  const uploadsDir = join(libraryDir, "uploads");
  const videoPaths = new Set(finalVideos.map((video) => video.path));
  const videoStems = new Set([...videoPaths].map((path) => path.replace(/\.[^./]+$/, "")));
  const leftInUploads = listTree(uploadsDir)
    .map((entry) => join(uploadsDir, entry))
    .filter((path) => statSync(path).isFile() && !videoPaths.has(path) && !videoStems.has(path.replace(/\.[^./]+$/, "")))
    .map((path) => relative(libraryDir, path));
  for (const folder of existsSync(uploadsDir) ? readdirSync(uploadsDir) : []) {
    if (![...videoPaths].some((path) => dirname(path) === join(uploadsDir, folder))) leftInUploads.push(`uploads/${folder}/ (no video)`);
  }
  const videosWithoutFile = finalVideos.filter((video) => isInside(video.path, uploadsDir) && !existsSync(video.path)).map((video) => `${video.id} ${relative(libraryDir, video.path)}`);
  const leftInLibraryTmp = listTree(join(libraryDir, "tmp"));
  // tsx keeps its compile cache in the temporary folder: that is the runner's, not the server's.
  const leftOutside = listTree(serverTmp)
    .filter((entry) => !entry.split("/")[0]?.startsWith("tsx-"))
    .map((entry) => join(serverTmp, entry));
  const newInSystemTmp = [...systemTmpEntries(scratch)].filter((name) => !tmpBefore.has(name)).map((name) => join(tmpdir(), name));

  const notIngested = [
    ...goodRefused.map((upload) => ({ name: upload.name, problem: `upload answered ${upload.status ?? "nothing"}` })),
    ...[...goodUploads].flatMap(([jobId, upload]) => {
      const result = upload.job?.results[0];
      if (upload.job?.status === "done" && result?.status === "ingested") return [];
      return [{ name: upload.name, jobId, jobStatus: upload.job?.status ?? "unknown", resultStatus: result?.status, error: result?.error ?? upload.job?.error }];
    }),
  ];
  const sent = goodUploads.size + goodRefused.length;
  const ratio = afterFirstMinute && atEnd ? Number((atEnd / afterFirstMinute).toFixed(3)) : undefined;
  const checks = {
    noCrash: !crash && stoppedInTime,
    no5xx: fiveHundreds.length === 0,
    noRequestErrors: requestErrors.length === 0,
    everyGoodUploadIngested: sent > 0 && notIngested.length === 0,
    rssWithin10Percent: ratio !== undefined && ratio <= rssGoalRatio,
    nothingLeftOutside: leftOutside.length === 0,
    nothingLeftInLibraryTmp: leftInLibraryTmp.length === 0,
    noStrayUpload: leftInUploads.length === 0,
    noVideoWithoutFile: videosWithoutFile.length === 0,
  };
  if (!options.keep) rmSync(scratch, { recursive: true, force: true });
  return {
    minutes: options.minutes,
    clients: options.clients,
    setupSeconds,
    drainSeconds,
    requests,
    statuses,
    latencyMs: Object.fromEntries(
      Object.entries(latencies).map(([action, values]) => [action, { ...latencyPercentiles(values), max: Math.round(Math.max(...values)) }]),
    ),
    fiveHundreds: fiveHundreds.length,
    fiveHundredSamples: fiveHundreds.slice(0, 5),
    requestErrors: requestErrors.length,
    requestErrorSamples: requestErrors.slice(0, 5),
    askStreamErrorSamples: streamErrors.slice(0, 3),
    crashes: crash ? 1 : 0,
    ...(crash ? { crash } : {}),
    ...(stoppedInTime ? {} : { stop: "did not exit within 60 s of SIGTERM; killed" }),
    goodUploads: { sent, ingested: sent - notIngested.length, notIngested },
    truncatedUploads,
    truncatedResponses,
    cancelledUploads,
    cancelledJobs,
    ingestJobsByPath: {
      started: pathJobs.length,
      // How long each ran (not counting its wait in the queue), in seconds.
      secondsEach: pathJobs.flatMap((id) => {
        const job = jobsSeen.find((candidate) => candidate.id === id);
        return job?.startedAt && job.finishedAt && job.status === "done" ? [round1((Date.parse(job.finishedAt) - Date.parse(job.startedAt)) / 1000)] : [];
      }),
    },
    ingestBusyFraction: samples > 0 ? Number((busySamples / samples).toFixed(2)) : 0,
    rssMb: { afterFirstMinute, atEnd, ratio, samples: rssSamples },
    leftOutside,
    leftInLibraryTmp,
    leftInUploads,
    videosWithoutFile,
    newInSystemTmp,
    checks,
    ok: Object.values(checks).every(Boolean),
  };
}
