// The HTTP API over the library API, as an app factory (tested in-process with requests): videos, media with byte
// ranges, thumbnails, transcripts, chapters, speakers (listed and renamed), summaries, topics, search, ask (JSON or
// server-sent events), ingest jobs, the knowledge graph, the OpenAPI document and the web UI. Errors are
// `{ error: { code, message } }` with the status from the one error table.

import { existsSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { extname, join, resolve, sep } from "node:path";
import { Hono, type Context } from "hono";
import { cors } from "hono/cors";
import { streamSSE, type SSEStreamingApi } from "hono/streaming";
import type { z } from "zod";
import {
  answerJson,
  askRequestSchema,
  chapterJson,
  chaptersResponseSchema,
  hitJson,
  ingestPathsRequestSchema,
  preliminaryAnswerJson,
  renameSpeakerRequestSchema,
  searchRequestSchema,
  segmentJson,
  speakersJson,
  summaryJson,
  topicsResponseSchema,
  videoJson,
  type EntityJson,
  type VideoDetailJson,
} from "../api/index.js";
import { statedLanguage } from "../ingest/index.js";
import type { Library } from "../library.js";
import { VideoRagError, toVideoRagError, type Segment, type Video } from "../spec/index.js";
import { chaptersVtt, summaryLengths, type SummaryLength } from "../summary/index.js";
import type { IngestJobs } from "./ingest-jobs.js";
import { newJobId } from "./ingest-jobs.js";
import { openApiDocument } from "./openapi.js";
import { receiveUpload } from "./receive-upload.js";
import { isInside } from "../media/index.js";
import { confinedPath, decodedPath, errorResponse, securityRules, sameSecret, sessionCookie, sessionValue } from "./security-rules.js";
import { webVtt } from "./transcript-vtt.js";
import { createVideoMedia, fileResponse } from "./video-media.js";

export interface AppOptions {
  library: Library;
  /** Where questions and summaries run; default the library on this thread (the server passes its worker threads). */
  questions?: Pick<Library, "search" | "ask" | "summarize">;
  jobs: IngestJobs;
  version: string;
  /** When set, every route but the health check and the web UI needs `Authorization: Bearer <token>` (or the login cookie). */
  token?: string;
  /** Folders whose files `POST /api/ingest { paths }` may name; none: paths are refused. */
  mediaRoots?: string[];
  /** Largest upload, all files together (default 4 GiB). */
  uploadLimitBytes?: number;
  /** Largest JSON body (default 1 MiB). */
  jsonLimitBytes?: number;
  /** Origins allowed to call the API from another site; none: CORS is off. */
  corsOrigins?: string[];
  /** The address the server listens on (default 127.0.0.1): requests must name it, loopback or an allowed host. */
  bindHost?: string;
  /** Host names clients may use beside loopback and the bound address (`--allowed-host`). */
  allowedHosts?: string[];
  /** The built web UI; absent: `/` says how to build it. */
  webRoot?: string;
  /** One line per request and job event; default nothing. */
  log?: (line: string) => void;
}

const staticTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
};

export function createApp(options: AppOptions): Hono {
  const { library, jobs } = options;
  const questions = options.questions ?? library;
  const log = options.log ?? (() => undefined);
  const uploadLimitBytes = options.uploadLimitBytes ?? 4 * 2 ** 30;
  const jsonLimitBytes = options.jsonLimitBytes ?? 2 ** 20;
  const media = createVideoMedia(library.path);
  const mediaRoots = (options.mediaRoots ?? []).map((root) => realpathSync(resolve(root)));
  const uploads = join(library.path, "uploads");
  const app = new Hono();

  // One log line per request: method, route pattern (never the query, which could carry a secret), status, ms.
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    log(`${c.req.method} ${c.req.routePath} ${c.res.status} ${Math.round(performance.now() - started)}ms`);
  });

  if (options.corsOrigins && options.corsOrigins.length > 0) {
    app.use("/api/*", cors({ origin: options.corsOrigins, allowHeaders: ["Authorization", "Content-Type", "Range"], credentials: true }));
  }

  const token = options.token;
  // Every rule that keeps the library safe, before any route (see security-rules.ts).
  app.use(
    "*",
    securityRules({ token, bindHost: options.bindHost, allowedHosts: options.allowedHosts, corsOrigins: options.corsOrigins, jsonLimitBytes, uploadLimitBytes }),
  );
  const readJson = async <T extends z.ZodTypeAny>(c: Context, schema: T): Promise<z.infer<T>> => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch (error) {
      if (VideoRagError.isInstance(error)) throw error;
      throw new VideoRagError("ARGUMENT_INVALID", "the request body is not JSON");
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new VideoRagError("ARGUMENT_INVALID", `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`);
    }
    return parsed.data;
  };
  /** Only a video in the library, by its exact id: a path or title never reaches the file system through these routes. */
  const videoById = async (id: string): Promise<Video> => {
    const notFound = new VideoRagError("VIDEO_NOT_FOUND", `no video "${id}" in the library`, { subject: id });
    if (!/^[0-9A-Za-z_-]{1,128}$/.test(id)) throw notFound;
    const video = await library.find(id);
    if (video.id !== id) throw notFound;
    return video;
  };
  /** The videos a question is limited to, by exact id as the other routes take them; none: the whole library. */
  const scope = async (ids: string[] | undefined): Promise<string[] | undefined> =>
    ids && ids.length > 0 ? [...new Set(await Promise.all(ids.map(async (id) => (await videoById(id)).id)))] : undefined;

  app.get("/api/health", async (c) => c.json({ ok: true, version: options.version, profile: await library.profile() }));

  app.post("/api/login", async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { token?: unknown };
    if (!token) return c.body(null, 204);
    if (typeof body.token !== "string" || !sameSecret(body.token, token)) throw new VideoRagError("AUTH_REQUIRED", "that token is not the server's");
    c.header("Set-Cookie", `${sessionCookie}=${sessionValue(token)}; HttpOnly; SameSite=Strict; Path=/`);
    return c.body(null, 204);
  });

  app.get("/openapi.json", (c) => c.json(openApiDocument(options.version)));

  app.get("/api/status", async (c) => {
    const { byVideo: _byVideo, ...totals } = await library.status();
    return c.json(totals);
  });

  app.get("/api/videos", async (c) => {
    const work = new Map((await library.status()).byVideo.map((entry) => [entry.videoId, entry]));
    return c.json({ videos: (await library.list()).map((video) => videoJson(video, work.get(video.id))) });
  });

  app.get("/api/videos/:id", async (c) => {
    const detail = await library.videoDetail((await videoById(c.req.param("id"))).id);
    const body: VideoDetailJson = {
      ...videoJson(detail.video, detail),
      sources: detail.sources,
      clips: detail.clips,
      stages: detail.stages,
    };
    return c.json(body);
  });

  app.delete("/api/videos/:id", async (c) => {
    const video = await library.remove((await videoById(c.req.param("id"))).id);
    media.forget(video.id);
    // A file uploaded to the server belongs to the library: it goes with its video.
    if (isInside(video.path, uploads)) rmSync(video.path, { force: true });
    return c.json({ removed: { id: video.id, path: video.path } });
  });

  app.get("/api/videos/:id/media", async (c) => {
    const file = await media.playable(await videoById(c.req.param("id")));
    return fileResponse(file.path, file.contentType, c.req.header("range"), { "Cache-Control": "private, max-age=3600" });
  });

  app.get("/api/videos/:id/frame", async (c) => {
    const video = await videoById(c.req.param("id"));
    const second = secondQuery(c, "t") ?? 0;
    const file = await media.thumbnail(video, second);
    return fileResponse(file, "image/jpeg", undefined, { "Cache-Control": "private, max-age=86400" });
  });

  /** The names given to the speakers of these segments (label → name); nothing is read when none has a speaker. */
  const speakerNames = async (video: Video, segments: readonly Segment[]): Promise<Record<string, string>> => {
    if (!segments.some((segment) => segment.speaker)) return {};
    const { speakers } = await library.speakers(video.id);
    return Object.fromEntries(speakers.flatMap((speaker) => (speaker.name ? [[speaker.label, speaker.name]] : [])));
  };

  app.get("/api/videos/:id/transcript.vtt", async (c) => {
    const video = await videoById(c.req.param("id"));
    const { segments } = await library.transcript(video.id);
    c.header("Content-Type", "text/vtt; charset=utf-8");
    return c.body(webVtt(segments, await speakerNames(video, segments)));
  });

  app.get("/api/videos/:id/transcript", async (c) => {
    const video = await videoById(c.req.param("id"));
    const { segments } = await library.transcript(video.id, secondQuery(c, "from"), secondQuery(c, "to"));
    const names = await speakerNames(video, segments);
    return c.json({ videoId: video.id, title: video.title, segments: segments.map((segment) => segmentJson(segment, names)) });
  });

  app.get("/api/videos/:id/speakers", async (c) => {
    const { video, speakers } = await library.speakers((await videoById(c.req.param("id"))).id);
    return c.json(speakersJson(video, speakers));
  });

  // By label, as the transcript's segments carry it; the name goes in the body, so any name is sent as it is.
  app.put("/api/videos/:id/speakers/:label", async (c) => {
    const video = await videoById(c.req.param("id"));
    const request = await readJson(c, renameSpeakerRequestSchema);
    const speakers = await library.renameSpeaker(video.id, c.req.param("label"), request.name);
    return c.json(speakersJson(video, speakers));
  });

  app.get("/api/videos/:id/chapters.vtt", async (c) => {
    const { chapters } = await library.chapters((await videoById(c.req.param("id"))).id);
    c.header("Content-Type", "text/vtt; charset=utf-8");
    return c.body(chaptersVtt(chapters));
  });

  app.get("/api/videos/:id/chapters", async (c) => {
    const { video, chapters } = await library.chapters((await videoById(c.req.param("id"))).id);
    const body: z.infer<typeof chaptersResponseSchema> = { videoId: video.id, title: video.title, chapters: chapters.map(chapterJson) };
    return c.json(body);
  });

  app.get("/api/videos/:id/summary", async (c) => {
    const length = c.req.query("length");
    if (length !== undefined && !summaryLengths.includes(length as SummaryLength)) {
      throw new VideoRagError("ARGUMENT_INVALID", `length must be short, medium or long, not "${length.slice(0, 40)}"`);
    }
    const video = await videoById(c.req.param("id"));
    const summary = await questions.summarize(video.id, { length: length as SummaryLength | undefined, signal: c.req.raw.signal });
    return c.json(summaryJson(summary));
  });

  app.get("/api/topics", async (c) => {
    const body: z.infer<typeof topicsResponseSchema> = {
      topics: (await library.topics()).map(({ label, terms, videos }) => ({
        label,
        terms,
        videos: videos.map(({ videoId, title, similarity }) => ({ videoId, title, similarity })),
      })),
    };
    return c.json(body);
  });

  app.get("/api/videos/:id/entities", async (c) => c.json({ entities: await library.videoEntities((await videoById(c.req.param("id"))).id, 50) }));

  app.post("/api/search", async (c) => {
    const request = await readJson(c, searchRequestSchema);
    const videos = await scope(request.videoIds);
    const hits = await questions.search(request.query, { limit: request.limit ?? 10, mode: request.mode, videos, speaker: request.speaker, signal: c.req.raw.signal });
    return c.json({ hits: hits.map(hitJson) });
  });

  app.post("/api/ask", async (c) => {
    const request = await readJson(c, askRequestSchema);
    // Clips a running ingest job is about to extract anyway are not extracted a second time for a question.
    // An unknown video is a 404 before any event is sent.
    const videos = await scope(request.videoIds);
    const askOptions = { limit: request.limit, mode: request.mode, extract: request.extract, busyPaths: jobs.busyPaths(), videos };
    if (!(c.req.header("accept") ?? "").includes("text/event-stream")) {
      const answer = await questions.ask(request.question, { ...askOptions, signal: c.req.raw.signal });
      return c.json(answerJson(request.question, answer));
    }
    return streamSSE(c, async (stream) => {
      const controller = new AbortController();
      stream.onAbort(() => controller.abort(new VideoRagError("INTERRUPTED", "the client went away")));
      const send = ordered(stream);
      let streamed = false;
      try {
        const answer = await questions.ask(request.question, {
          ...askOptions,
          signal: controller.signal,
          onMoments: (moments) => send("moments", { moments: moments.map(hitJson) }),
          // Before the first extraction event: the answer from what is indexed now, replaced by the final one.
          onPreliminary: (answer) => send("preliminary", preliminaryAnswerJson(answer)),
          onExtraction: (event) => send("extraction", event),
          onText: (delta) => {
            streamed = true;
            send("text", { delta });
          },
        });
        const body = answerJson(request.question, answer);
        // The lite answer is written at once: it arrives as one text event.
        if (!streamed) send("text", { delta: body.text });
        for (const citation of body.citations) send("citation", citation);
        send("done", body);
      } catch (error) {
        const failure = toVideoRagError(error);
        send("error", { error: { code: failure.code, message: failure.message } });
      }
      await send.drained();
    });
  });

  app.post("/api/ingest", async (c) => {
    const contentType = c.req.header("content-type") ?? "";
    if (contentType.startsWith("multipart/form-data")) {
      const id = newJobId();
      const dir = join(uploads, id);
      const upload = await receiveUpload(c.req.raw, dir, uploadLimitBytes);
      let language: string | undefined;
      try {
        // A form's empty field is no language stated.
        language = statedLanguage(upload.fields.language || undefined);
      } catch (error) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      const job = jobs.enqueue({
        id,
        paths: upload.files.map((file) => file.path),
        names: upload.files.map((file) => file.name),
        incremental: upload.fields.incremental === "true",
        ...(language ? { language } : {}),
        uploadDir: dir,
      });
      return c.json({ jobId: job.id }, 202);
    }
    const request = await readJson(c, ingestPathsRequestSchema);
    const language = statedLanguage(request.language);
    if (mediaRoots.length === 0) {
      throw new VideoRagError("PATH_OUTSIDE_LIBRARY", "this server ingests uploads only; start it with --media-root <dir> to ingest paths");
    }
    const paths = request.paths.map((path) => confinedPath(path, mediaRoots));
    // A folder is walked when the job runs: every file found there is confined to the roots too.
    const job = jobs.enqueue({ paths, names: request.paths, incremental: request.incremental ?? false, ...(language ? { language } : {}), confineTo: mediaRoots });
    return c.json({ jobId: job.id }, 202);
  });

  app.get("/api/jobs", (c) => c.json({ jobs: jobs.list() }));
  app.get("/api/jobs/:id", (c) => c.json(jobs.get(c.req.param("id"))));
  app.delete("/api/jobs/:id", (c) => c.json(jobs.cancel(c.req.param("id"))));
  app.get("/api/jobs/:id/events", (c) => {
    jobs.get(c.req.param("id"));
    return streamSSE(c, async (stream) => {
      const send = ordered(stream);
      await new Promise<void>((finish) => {
        const unsubscribe = jobs.subscribe(c.req.param("id"), (job) => {
          send("job", job);
          if (job.status === "done" || job.status === "failed" || job.status === "cancelled") {
            send("end", { status: job.status });
            queueMicrotask(() => unsubscribe());
            finish();
          }
        });
        stream.onAbort(() => {
          unsubscribe();
          finish();
        });
      });
      await send.drained();
    });
  });

  app.get("/api/entities", async (c) => {
    const query = c.req.query("q")?.trim();
    if (!query) throw new VideoRagError("ARGUMENT_INVALID", "q= needs a name to look for");
    return c.json({ entities: await library.searchEntities(query, 20) });
  });

  app.get("/api/entities/:key", async (c) => {
    const key = Number(c.req.param("key"));
    const found = Number.isInteger(key) ? await library.entityByKey(key) : undefined;
    if (!found) throw new VideoRagError("ENTITY_NOT_FOUND", `no entity ${c.req.param("key")} in the graph`);
    const titles = new Map(found.videos.map((video) => [video.id, video]));
    const body: EntityJson = {
      key: found.entity.key,
      name: found.entity.name,
      type: found.entity.type,
      description: found.entity.description,
      sources: found.entity.sources.map((source) => {
        const moment = found.moments.find((candidate) => candidate.videoId === source.videoId && candidate.chunkIndex === source.chunkIndex);
        return {
          videoId: source.videoId,
          title: titles.get(source.videoId)?.title ?? source.videoId,
          chunkIndex: source.chunkIndex,
          ...(moment ? { startSecond: moment.startSecond, endSecond: moment.endSecond } : {}),
          description: source.description,
        };
      }),
      relations: found.relations,
    };
    return c.json(body);
  });

  app.all("/api/*", () => {
    throw new VideoRagError("ROUTE_NOT_FOUND", "no such route (see /openapi.json)");
  });

  // The web UI: built files, and index.html for anything else (the UI routes with the URL's hash).
  app.get("*", (c) => {
    const root = options.webRoot;
    if (!root || !existsSync(join(root, "index.html"))) {
      return c.text("The web UI is not built: run `npm run build` in the videorag package. The API is at /api/.", 404);
    }
    const requested = resolve(root, `.${decodedPath(new URL(c.req.url).pathname)}`);
    const file = isInside(requested, root) && existsSync(requested) && !requested.endsWith(sep) && extname(requested) ? requested : join(root, "index.html");
    const type = staticTypes[extname(file)] ?? "application/octet-stream";
    const immutable = file.includes(`${sep}assets${sep}`);
    return c.body(readFileSync(file), 200, { "Content-Type": type, "Cache-Control": immutable ? "public, max-age=31536000, immutable" : "no-cache" });
  });

  app.onError((error, c) => errorResponse(error, c, log));
  app.notFound(() => {
    throw new VideoRagError("ROUTE_NOT_FOUND", "no such route");
  });
  return app;
}

/** Server-sent events written in the order they were sent, from callbacks that cannot wait. */
function ordered(stream: SSEStreamingApi): ((event: string, data: unknown) => void) & { drained(): Promise<void> } {
  let chain = Promise.resolve();
  const send = (event: string, data: unknown): void => {
    chain = chain.then(() => (stream.aborted ? undefined : stream.writeSSE({ event, data: JSON.stringify(data) }))).catch(() => undefined);
  };
  return Object.assign(send, { drained: () => chain });
}

/** A query value that must be a second ≥ 0; absent: undefined. */
function secondQuery(c: Context, name: string): number | undefined {
  const value = c.req.query(name);
  if (value === undefined) return undefined;
  const second = value.trim() === "" ? Number.NaN : Number(value);
  if (!Number.isFinite(second) || second < 0) throw new VideoRagError("ARGUMENT_INVALID", `${name} must be a second ≥ 0, not "${value.slice(0, 40)}"`);
  return second;
}
