// The HTTP API, in-process with requests (and over a real loopback socket where streaming or shutdown matter), on a
// library of real media from ../shared: what a client sees of videos, media ranges, transcripts, search, ask with
// server-sent events, ingest jobs and uploads, the knowledge graph, and each security rule.

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { z } from "zod";
import type { AnswerJson, chaptersResponseSchema, HitJson, JobJson, summaryResponseSchema, topicsResponseSchema, VideoDetailJson, VideoJson } from "../api/index.js";
import { openLibrary, type Library } from "../library.js";
import { cliArguments, runCli } from "../test-support/cli.js";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { parseEvents } from "../test-support/sse.js";
import { createApp } from "./create-app.js";
import { createIngestJobs, type IngestJobs } from "./ingest-jobs.js";
import { startServer } from "./start-server.js";

type App = ReturnType<typeof createApp>;

async function waitForJob(app: App, id: string, headers: Record<string, string> = {}): Promise<JobJson> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const job = (await (await app.request(`/api/jobs/${id}`, { headers })).json()) as JobJson;
    if (job.status !== "queued" && job.status !== "running") return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job ${id} did not finish`);
}

const json = (body: unknown): RequestInit => ({ method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

type ChaptersJson = z.infer<typeof chaptersResponseSchema>;
type SummaryJson = z.infer<typeof summaryResponseSchema>;
type TopicsJson = z.infer<typeof topicsResponseSchema>;

/** The error code of a JSON failure. */
async function errorCode(response: Response): Promise<string | undefined> {
  return ((await response.json()) as { error?: { code: string } }).error?.code;
}

describe("the HTTP API on a library of real media", { skip: needsShared }, () => {
  let scratch: string;
  let library: Library;
  let jobs: IngestJobs;
  let app: App;
  let fridayId: string;
  let gridId: string;
  const logLines: string[] = [];
  let mediaRoot: string;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), "videorag-server-"));
    mediaRoot = join(scratch, "media");
    mkdirSync(mediaRoot);
    copyFileSync(sharedPath("media/audio/jfk.wav"), join(mediaRoot, "jfk.wav"));
    // MPEG-1 video in an MPEG program stream: a format browsers cannot play.
    const ingested = runCli(scratch, ["ingest", "--library", join(scratch, "lib"), "--no-visual", sharedPath("media/subtitled/friday.mp4"), sharedPath("media/speech/grid/bbaf2n.mpg")]);
    assert.equal(ingested.status, 0, ingested.stderr);
    library = await openLibrary({ path: join(scratch, "lib"), visual: false });
    jobs = createIngestJobs({ library, dir: join(library.path, "jobs") });
    app = createApp({ library, jobs, version: "test", mediaRoots: [mediaRoot], uploadLimitBytes: 5 * 2 ** 20, log: (line) => logLines.push(line) });
    jobs.start();
    const videos = await library.list();
    fridayId = videos.find((video) => video.title === "friday.mp4")?.id ?? "";
    gridId = videos.find((video) => video.title === "bbaf2n.mpg")?.id ?? "";
  });

  after(async () => {
    await jobs.shutdown();
    await library.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test("health names the version and the lite profile; /openapi.json describes every route with the shared schemas", async () => {
    const health = await app.request("/api/health");
    assert.deepEqual(await health.json(), { ok: true, version: "test", profile: "lite" });
    const document = (await (await app.request("/openapi.json")).json()) as { openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    assert.equal(document.openapi, "3.1.0");
    const described = ["/api/videos/{id}/media", "/api/ask", "/api/ingest", "/api/jobs/{id}/events", "/api/entities/{key}", "/api/videos/{id}/chapters", "/api/videos/{id}/chapters.vtt", "/api/videos/{id}/summary", "/api/topics"];
    for (const path of described) assert.ok(document.paths[path], path);
    assert.ok(document.components.schemas.Summary?.properties?.sentences, "the summary's schema carries its sentences");
    assert.ok(document.components.schemas.Answer?.properties?.citations, "the answer's schema carries citations");
  });

  test("the library lists both videos with their sources; a video's page data names where its text came from", async () => {
    const { videos } = (await (await app.request("/api/videos")).json()) as { videos: VideoJson[] };
    assert.deepEqual(videos.map((video) => video.title).sort(), ["bbaf2n.mpg", "friday.mp4"]);
    assert.equal(videos.find((video) => video.id === fridayId)?.pendingWork, false);
    const detail = (await (await app.request(`/api/videos/${fridayId}`)).json()) as VideoDetailJson;
    assert.equal(detail.sources.subtitle, 5, "five subtitle cues");
    assert.equal(detail.clips.length, 1);
    const missing = await app.request("/api/videos/0000000000000000");
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { code: string } }).error.code, "VIDEO_NOT_FOUND");
  });

  test("media is served with byte ranges and the browser's content type", async () => {
    const whole = await app.request(`/api/videos/${fridayId}/media`);
    assert.equal(whole.status, 200);
    assert.equal(whole.headers.get("content-type"), "video/mp4");
    const size = (await whole.arrayBuffer()).byteLength;
    assert.equal(size, readFileSync(sharedPath("media/subtitled/friday.mp4")).length);
    const ranged = await app.request(`/api/videos/${fridayId}/media`, { headers: { Range: "bytes=100-199" } });
    assert.equal(ranged.status, 206);
    assert.equal(ranged.headers.get("content-range"), `bytes 100-199/${size}`);
    assert.deepEqual(Buffer.from(await ranged.arrayBuffer()), readFileSync(sharedPath("media/subtitled/friday.mp4")).subarray(100, 200));
    const past = await app.request(`/api/videos/${fridayId}/media`, { headers: { Range: `bytes=${size + 10}-` } });
    assert.equal(past.status, 416);
  });

  test("an MPEG-1 video is served as H.264 MP4, transcoded once and cached", async () => {
    const first = await app.request(`/api/videos/${gridId}/media`, { headers: { Range: "bytes=0-" } });
    assert.equal(first.status, 206);
    assert.equal(first.headers.get("content-type"), "video/mp4");
    const served = join(scratch, "served.mp4");
    writeFileSync(served, Buffer.from(await first.arrayBuffer()));
    const codecs = execFileSync("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", served], { encoding: "utf8" });
    assert.match(codecs, /h264/);
    assert.match(codecs, /aac/);
    assert.ok(existsSync(join(library.path, "media-cache", `${gridId}.mp4`)), "the transcode is cached in the library");
  });

  test("a frame is a JPEG at the second asked for; the video's text is WebVTT with the cues' times", async () => {
    const frame = await app.request(`/api/videos/${fridayId}/frame?t=3.5`);
    assert.equal(frame.status, 200);
    assert.equal(frame.headers.get("content-type"), "image/jpeg");
    const bytes = Buffer.from(await frame.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
    assert.equal((await app.request(`/api/videos/${fridayId}/frame?t=-1`)).status, 400);
    const vtt = await (await app.request(`/api/videos/${fridayId}/transcript.vtt`)).text();
    assert.match(vtt, /^WEBVTT/);
    // Its subtitles name no one; the diarizer, where one runs, gives the voice span.
    assert.match(vtt, /00:00:03\.000 --> 00:00:04\.299\n(?:<lang en>)?(?:<v Speaker 1>)?Yes, he's in - in a bad humor/);
    const window = (await (await app.request(`/api/videos/${fridayId}/transcript?from=4.3&to=6`)).json()) as { segments: { text: string }[] };
    assert.deepEqual(window.segments.map((segment) => segment.text), ["Somebody must've stolen the crown jewels"]);
  });

  test("search finds the moment; a bad body is a 400 with a code", async () => {
    const response = await app.request("/api/search", json({ query: "crown jewels", limit: 3 }));
    const { hits } = (await response.json()) as { hits: HitJson[] };
    assert.equal(hits[0]?.videoId, fridayId);
    assert.ok(hits[0] && hits[0].startSecond >= 4 && hits[0].startSecond < 5);
    const bad = await app.request("/api/search", json({ query: "", mode: "psychic" }));
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { code: string } }).error.code, "ARGUMENT_INVALID");
    const notJson = await app.request("/api/search", { method: "POST", body: "{", headers: { "Content-Type": "application/json" } });
    assert.equal(notJson.status, 400);
  });

  test("ask answers as JSON, or as server-sent events: moments, text, citation, done", async () => {
    const answer = (await (await app.request("/api/ask", json({ question: "who is in a bad humor?" }))).json()) as AnswerJson;
    assert.equal(answer.citations[0]?.videoId, fridayId);
    assert.equal(answer.citations[0]?.startSecond, 3);
    assert.equal(answer.profile.profile, "lite");
    const streamed = await app.request("/api/ask", { ...json({ question: "who is in a bad humor?" }), headers: { "Content-Type": "application/json", Accept: "text/event-stream" } });
    assert.match(streamed.headers.get("content-type") ?? "", /text\/event-stream/);
    const events = parseEvents(await streamed.text());
    const names = events.map((event) => event.event);
    assert.equal(names[0], "moments");
    assert.ok(names.indexOf("text") > 0 && names.indexOf("citation") > names.indexOf("text"));
    assert.equal(names.at(-1), "done");
    const done = events.at(-1)?.data as AnswerJson;
    assert.match(done.text, /bad humor/);
    assert.equal((events.find((event) => event.event === "citation")?.data as { startSecond: number }).startSecond, 3);
  });

  test("chapters: in order from 0 to the video's end, each with a title and a summary; as WebVTT, a cue per chapter", async () => {
    const friday = await library.find(fridayId);
    const response = await app.request(`/api/videos/${fridayId}/chapters`);
    assert.equal(response.status, 200);
    const { videoId, title, chapters } = (await response.json()) as ChaptersJson;
    assert.deepEqual([videoId, title], [fridayId, "friday.mp4"]);
    assert.ok(chapters.length >= 1);
    assert.equal(chapters[0]?.startSecond, 0);
    assert.ok(Math.abs((chapters.at(-1)?.endSecond ?? 0) - friday.durationSeconds) < 0.5, `ends at ${chapters.at(-1)?.endSecond}, the video at ${friday.durationSeconds}`);
    chapters.forEach((chapter, index) => {
      assert.equal(chapter.index, index);
      assert.ok(chapter.endSecond > chapter.startSecond, JSON.stringify(chapter));
      if (index > 0) assert.equal(chapter.startSecond, chapters[index - 1]?.endSecond, "chapters follow one another");
      assert.ok(chapter.title.trim() && chapter.madeBy, JSON.stringify(chapter));
      assert.equal("text" in chapter, false, "the text is the transcript's, not repeated");
    });
    assert.match(chapters.map((chapter) => chapter.summary).join(" "), /bad humor|crown jewels/);

    const vtt = await app.request(`/api/videos/${fridayId}/chapters.vtt`);
    assert.equal(vtt.headers.get("content-type"), "text/vtt; charset=utf-8");
    const text = await vtt.text();
    assert.match(text, /^WEBVTT\n/);
    const cues = [...text.matchAll(/^(\d\d):(\d\d):(\d\d\.\d{3}) --> \d\d:\d\d:\d\d\.\d{3}\n(.+)$/gm)];
    assert.equal(cues.length, chapters.length, text);
    cues.forEach((cue, index) => {
      const startSecond = Number(cue[1]) * 3600 + Number(cue[2]) * 60 + Number(cue[3]);
      assert.ok(Math.abs(startSecond - (chapters[index]?.startSecond ?? -1)) < 0.001, cue[0]);
      assert.equal(cue[4], chapters[index]?.title);
    });

    for (const path of ["chapters", "chapters.vtt", "summary"]) {
      const missing = await app.request(`/api/videos/0000000000000000/${path}`);
      assert.equal(missing.status, 404, path);
      assert.equal(await errorCode(missing), "VIDEO_NOT_FOUND");
      assert.equal((await app.request(`/api/videos/friday.mp4/${path}`)).status, 404, "a title is not an id");
    }
  });

  test("summary: sentences each citing a moment of the video; a length it does not know is a 400", async () => {
    const friday = await library.find(fridayId);
    const response = await app.request(`/api/videos/${fridayId}/summary?length=short`);
    assert.equal(response.status, 200);
    const summary = (await response.json()) as SummaryJson;
    assert.deepEqual([summary.videoId, summary.title, summary.length, summary.madeBy], [fridayId, "friday.mp4", "short", "lite"]);
    assert.ok(summary.sentences.length >= 1);
    for (const sentence of summary.sentences) {
      assert.ok(sentence.citations.length >= 1, JSON.stringify(sentence));
      for (const citation of sentence.citations) {
        assert.equal(citation.videoId, fridayId);
        assert.ok(citation.startSecond >= 0 && citation.endSecond <= friday.durationSeconds + 0.5 && citation.endSecond > citation.startSecond, JSON.stringify(citation));
      }
    }
    assert.match(summary.text, /\[friday\.mp4 0:0\d–0:0\d\]/);
    assert.match(summary.text, /crown jewels|bad humor/);
    assert.ok(summary.chapters.length >= 1);
    assert.equal(((await (await app.request(`/api/videos/${fridayId}/summary`)).json()) as SummaryJson).length, "medium", "medium by default");
    for (const length of ["huge", "", "SHORT"]) {
      const bad = await app.request(`/api/videos/${fridayId}/summary?length=${length}`);
      assert.equal(bad.status, 400, length);
      assert.equal(await errorCode(bad), "ARGUMENT_INVALID");
    }
  });

  test("topics: every video of the library is listed under a labelled topic", async () => {
    const { topics } = (await (await app.request("/api/topics")).json()) as TopicsJson;
    assert.ok(topics.length >= 1);
    for (const topic of topics) assert.ok(topic.label.trim() && topic.videos.length > 0, JSON.stringify(topic));
    const listed = topics.flatMap((topic) => topic.videos);
    assert.deepEqual([...new Set(listed.map((video) => video.videoId))].sort(), [fridayId, gridId].sort());
    assert.equal(listed.find((video) => video.videoId === fridayId)?.title, "friday.mp4");
  });

  test("ask and search limited to videoIds cite only those videos; an unknown id is a 404", async () => {
    const question = "who is in a bad humor?";
    const inFriday = (await (await app.request("/api/ask", json({ question, videoIds: [fridayId] }))).json()) as AnswerJson;
    assert.equal(inFriday.citations[0]?.startSecond, 3);
    assert.deepEqual([...new Set(inFriday.citations.map((citation) => citation.videoId))], [fridayId]);
    assert.deepEqual(inFriday.scope, [{ videoId: fridayId, title: "friday.mp4" }]);
    // The whole library answers from friday.mp4 (the test above); limited to the other video, friday.mp4 is never cited.
    const inGrid = (await (await app.request("/api/ask", json({ question, videoIds: [gridId] }))).json()) as AnswerJson;
    assert.ok(inGrid.citations.every((citation) => citation.videoId === gridId), JSON.stringify(inGrid.citations));
    assert.ok(inGrid.moments.every((moment) => moment.videoId === gridId));
    assert.deepEqual(inGrid.scope?.map((video) => video.videoId), [gridId]);
    const streamed = await app.request("/api/ask", { ...json({ question, videoIds: [gridId] }), headers: { "Content-Type": "application/json", Accept: "text/event-stream" } });
    const done = parseEvents(await streamed.text()).at(-1);
    assert.equal(done?.event, "done");
    assert.ok((done?.data as AnswerJson).citations.every((citation) => citation.videoId === gridId));

    const { hits: everywhere } = (await (await app.request("/api/search", json({ query: "crown jewels" }))).json()) as { hits: HitJson[] };
    assert.equal(everywhere[0]?.videoId, fridayId);
    const { hits: scoped } = (await (await app.request("/api/search", json({ query: "crown jewels", videoIds: [gridId] }))).json()) as { hits: HitJson[] };
    assert.ok(scoped.every((hit) => hit.videoId === gridId), JSON.stringify(scoped.map((hit) => hit.title)));

    for (const [path, body] of [["/api/ask", { question, videoIds: [fridayId, "0000000000000000"] }], ["/api/search", { query: "jewels", videoIds: ["friday.mp4"] }]] as const) {
      const missing = await app.request(path, json(body));
      assert.equal(missing.status, 404, path);
      assert.equal(await errorCode(missing), "VIDEO_NOT_FOUND");
    }
    const streamedMissing = await app.request("/api/ask", { ...json({ question, videoIds: ["0000000000000000"] }), headers: { "Content-Type": "application/json", Accept: "text/event-stream" } });
    assert.equal(streamedMissing.status, 404, "refused before the stream starts");
    assert.equal(await errorCode(streamedMissing), "VIDEO_NOT_FOUND");
    assert.equal((await app.request("/api/ask", json({ question, videoIds: "friday" }))).status, 400);
  });

  test("unknown routes and too-large bodies are JSON errors with their status", async () => {
    const unknown = await app.request("/api/nothing-here");
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { error: { code: string } }).error.code, "ROUTE_NOT_FOUND");
    const huge = await app.request("/api/search", json({ query: "x".repeat(2 * 2 ** 20) }));
    assert.equal(huge.status, 413);
    assert.equal(((await huge.json()) as { error: { code: string } }).error.code, "BODY_TOO_LARGE");
  });

  test("media and frames are served only for videos in the library, never for a path", async () => {
    for (const id of ["..%2F..%2Fetc%2Fpasswd", encodeURIComponent(sharedPath("media/subtitled/friday.mp4")), "friday.mp4", fridayId.slice(0, 8)]) {
      const response = await app.request(`/api/videos/${id}/media`);
      assert.equal(response.status, 404, id);
      assert.equal((await app.request(`/api/videos/${id}/frame?t=1`)).status, 404, id);
    }
  });

  test("ingest by path only inside a media root, after symbolic links; the job runs and the video is searchable", async () => {
    const outside = await app.request("/api/ingest", json({ paths: [sharedPath("media/audio/jfk.wav")] }));
    assert.equal(outside.status, 403);
    assert.equal(((await outside.json()) as { error: { code: string } }).error.code, "PATH_OUTSIDE_LIBRARY");
    symlinkSync(sharedPath("media/subtitled/friday.vtt"), join(mediaRoot, "escape.vtt"));
    assert.equal((await app.request("/api/ingest", json({ paths: [join(mediaRoot, "escape.vtt")] }))).status, 403, "a link out of the root is refused");
    assert.equal((await app.request("/api/ingest", json({ paths: [join(mediaRoot, "missing.mp4")] }))).status, 404);
    assert.equal((await app.request("/api/ingest", json({ paths: ["jfk.wav"] }))).status, 400, "relative paths are refused");

    const started = await app.request("/api/ingest", json({ paths: [join(mediaRoot, "jfk.wav")] }));
    assert.equal(started.status, 202);
    const { jobId } = (await started.json()) as { jobId: string };
    const job = await waitForJob(app, jobId);
    assert.equal(job.status, "done", JSON.stringify(job));
    assert.equal(job.results[0]?.status, "ingested");
    const events = parseEvents(await (await app.request(`/api/jobs/${jobId}/events`)).text());
    assert.equal(events.at(-1)?.event, "end", "a finished job's events end at once");
    const { hits } = (await (await app.request("/api/search", json({ query: "ask not what your country can do" }))).json()) as { hits: HitJson[] };
    assert.equal(hits[0]?.title, "jfk.wav");
    const played = await app.request(`/api/videos/${hits[0]?.videoId}/media`, { headers: { Range: "bytes=0-99" } });
    assert.equal(played.headers.get("content-type"), "audio/wav");
  });

  test("an upload lands in its own folder whatever its name says, becomes a job, and a sidecar subtitle comes with it", async () => {
    const form = new FormData();
    form.append("file", new Blob([readFileSync(sharedPath("media/subtitled/friday.mp4"))]), "../../../evil/friday.mp4");
    form.append("file", new Blob([readFileSync(sharedPath("media/subtitled/friday.vtt"))]), "friday.vtt");
    const response = await app.request("/api/ingest", { method: "POST", body: form });
    assert.equal(response.status, 202);
    const { jobId } = (await response.json()) as { jobId: string };
    assert.deepEqual(readdirSync(join(library.path, "uploads", jobId)).sort(), ["friday.mp4", "friday.vtt"]);
    const job = await waitForJob(app, jobId);
    // The same content is already in the library: nothing new, and the duplicate upload is not kept.
    assert.equal(job.results.find((result) => result.path.endsWith("friday.mp4"))?.status, "unchanged");
    assert.equal(existsSync(join(library.path, "uploads", jobId)), false);
    assert.ok(!existsSync(join(scratch, "evil")));
  });

  test("an upload over the limit is a 413 and leaves nothing behind", async () => {
    const before = existsSync(join(library.path, "uploads")) ? readdirSync(join(library.path, "uploads")).length : 0;
    const form = new FormData();
    form.append("file", new Blob([Buffer.alloc(6 * 2 ** 20, 1)]), "big.mp4");
    const response = await app.request("/api/ingest", { method: "POST", body: form });
    assert.equal(response.status, 413, await response.clone().text());
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, "BODY_TOO_LARGE");
    const after = existsSync(join(library.path, "uploads")) ? readdirSync(join(library.path, "uploads")).length : 0;
    assert.equal(after, before);
  });

  test("entities: a name finds its node; a video lists what it mentions", async () => {
    const { entities } = (await (await app.request(`/api/videos/${fridayId}/entities`)).json()) as { entities: { key: number; name: string }[] };
    assert.ok(entities.length > 0);
    const jewels = entities.find((entity) => /crown jewels/i.test(entity.name));
    assert.ok(jewels, JSON.stringify(entities.map((entity) => entity.name)));
    const found = (await (await app.request(`/api/entities?q=${encodeURIComponent("crown jewels")}`)).json()) as { entities: { key: number }[] };
    assert.equal(found.entities[0]?.key, jewels.key);
    const node = (await (await app.request(`/api/entities/${jewels.key}`)).json()) as { sources: { videoId: string; title: string; startSecond?: number; endSecond?: number }[] };
    assert.equal(node.sources[0]?.videoId, fridayId);
    const friday = await library.find(fridayId);
    assert.notEqual(friday.title, fridayId);
    assert.equal(node.sources[0]?.title, friday.title, "each source names its video by title");
    assert.deepEqual([node.sources[0]?.startSecond, node.sources[0]?.endSecond], [0, 6.166], "the source's clip (the whole 6 s film), in seconds");
    assert.equal((await app.request("/api/entities/999999")).status, 404);
  });

  test("readers are answered while an ingest job commits: no request fails", async () => {
    const { jobId } = (await (await app.request("/api/ingest", json({ paths: [mediaRoot], incremental: false }))).json()) as { jobId: string };
    copyFileSync(sharedPath("media/speech/grid/lbax4n.mpg"), join(mediaRoot, "lbax4n.mpg"));
    const statuses: number[] = [];
    let finished = false;
    const done = waitForJob(app, jobId).finally(() => {
      finished = true;
    });
    while (!finished) {
      const [search, list] = await Promise.all([app.request("/api/search", json({ query: "bad humor" })), app.request("/api/videos")]);
      statuses.push(search.status, list.status);
      // In-process requests resolve without I/O: yield so the job's child processes and timers get their turn.
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await done;
    assert.ok(statuses.length >= 2);
    assert.deepEqual([...new Set(statuses)], [200]);
  });

  test("on worker threads, questions stream the same answer and an ingest job runs off the server's thread", async () => {
    const scratchOf = (): string[] => readdirSync(join(library.path, "tmp", String(process.pid))).sort();
    const scratchBefore = scratchOf();
    const server = await startServer({ library, port: 0, mediaRoots: [mediaRoot], threads: { libraryOptions: { visual: false }, queryThreads: 2 } });
    assert.equal(scratchOf().length, scratchBefore.length + 3, "each thread opens the library with a scratch folder of its own");
    try {
      const streamed = await fetch(`${server.url}/api/ask`, { ...json({ question: "who is in a bad humor?" }), headers: { "Content-Type": "application/json", Accept: "text/event-stream" } });
      const events = parseEvents(await streamed.text());
      assert.deepEqual([...new Set(events.map((event) => event.event))], ["moments", "text", "citation", "done"]);
      assert.equal((events.at(-1)?.data as AnswerJson).citations[0]?.startSecond, 3);
      const searches = await Promise.all(["crown jewels", "lord of the universe", "bad humor"].map((query) => fetch(`${server.url}/api/search`, json({ query }))));
      for (const response of searches) assert.equal(((await response.json()) as { hits: HitJson[] }).hits[0]?.videoId, fridayId);
      copyFileSync(sharedPath("media/speech/grid/bbaf2n.mpg"), join(mediaRoot, "again.mpg"));
      const started = await fetch(`${server.url}/api/ingest`, json({ paths: [join(mediaRoot, "again.mpg")] }));
      const { jobId } = (await started.json()) as { jobId: string };
      const jobEvents = parseEvents(await (await fetch(`${server.url}/api/jobs/${jobId}/events`)).text());
      const last = jobEvents.filter((event) => event.event === "job").at(-1)?.data as JobJson;
      assert.equal(last.status, "done");
      assert.equal(last.results[0]?.status, "unchanged", "the same content as bbaf2n.mpg");
      assert.ok(jobEvents.length >= 2);
      // A summary and a question limited to a video run on the threads too.
      const summary = (await (await fetch(`${server.url}/api/videos/${fridayId}/summary?length=short`)).json()) as SummaryJson;
      assert.equal(summary.sentences[0]?.citations[0]?.videoId, fridayId);
      const scoped = (await (await fetch(`${server.url}/api/ask`, json({ question: "who is in a bad humor?", videoIds: [gridId] }))).json()) as AnswerJson;
      assert.deepEqual(scoped.scope?.map((video) => video.videoId), [gridId]);
      assert.ok(scoped.citations.every((citation) => citation.videoId === gridId));
      const { hits: scopedHits } = (await (await fetch(`${server.url}/api/search`, json({ query: "crown jewels", videoIds: [gridId] }))).json()) as { hits: HitJson[] };
      assert.ok(scopedHits.every((hit) => hit.videoId === gridId));
      const bad = await fetch(`${server.url}/api/search`, json({ query: "x", mode: "psychic" }));
      assert.equal(bad.status, 400);
    } finally {
      await server.close();
    }
    assert.deepEqual(scratchOf(), scratchBefore, "the threads close their libraries and remove their scratch");
  });

  test("every request is one log line with its route pattern, status and time", () => {
    assert.ok(logLines.some((line) => /^GET \/api\/videos\/:id\/media 206 \d+ms$/.test(line)), logLines.slice(0, 5).join("\n"));
    assert.ok(logLines.every((line) => !line.includes("?")), "no query string is logged");
  });
});

describe("security of an exposed server", { skip: needsShared }, () => {
  let scratch: string;
  let library: Library;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), "videorag-server-token-"));
    library = await openLibrary({ path: join(scratch, "lib"), visual: false });
  });
  after(async () => {
    await library.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test("with a token, every API route but health needs it; the login cookie works; the token never reaches a log", async () => {
    const lines: string[] = [];
    const jobs = createIngestJobs({ library, dir: join(library.path, "jobs") });
    const app = createApp({ library, jobs, version: "test", token: "s3cret-token", log: (line) => lines.push(line) });
    assert.equal((await app.request("/api/health")).status, 200);
    for (const path of ["/api/videos", "/api/jobs", "/openapi.json", "/api/videos/abc/media"]) {
      const response = await app.request(path);
      assert.equal(response.status, 401, path);
      assert.equal(((await response.json()) as { error: { code: string } }).error.code, "AUTH_REQUIRED");
    }
    assert.equal((await app.request("/api/videos", { headers: { Authorization: "Bearer wrong" } })).status, 401);
    assert.equal((await app.request("/api/videos", { headers: { Authorization: "Bearer s3cret-token" } })).status, 200);
    assert.equal((await app.request("/api/login", json({ token: "nope" }))).status, 401);
    const login = await app.request("/api/login", json({ token: "s3cret-token" }));
    assert.equal(login.status, 204);
    const cookie = login.headers.get("set-cookie") ?? "";
    assert.match(cookie, /HttpOnly/);
    assert.ok(!cookie.includes("s3cret-token"), "the cookie is derived from the token, not the token");
    assert.equal((await app.request("/api/videos", { headers: { Cookie: cookie.split(";")[0] ?? "" } })).status, 200);
    assert.ok(lines.length >= 6 && lines.every((line) => !line.includes("s3cret")));
  });

  test("CORS is off unless origins are configured", async () => {
    const jobs = createIngestJobs({ library, dir: join(library.path, "jobs") });
    const closed = createApp({ library, jobs, version: "test" });
    const plain = await closed.request("/api/videos", { headers: { Origin: "https://elsewhere.example" } });
    assert.equal(plain.headers.get("access-control-allow-origin"), null);
    const open = createApp({ library, jobs, version: "test", corsOrigins: ["https://ui.example"] });
    const allowed = await open.request("/api/videos", { headers: { Origin: "https://ui.example" } });
    assert.equal(allowed.headers.get("access-control-allow-origin"), "https://ui.example");
  });

  test("paths are refused when the server has no media root", async () => {
    const jobs = createIngestJobs({ library, dir: join(library.path, "jobs") });
    const app = createApp({ library, jobs, version: "test" });
    const response = await app.request("/api/ingest", json({ paths: [sharedPath("media/audio/jfk.wav")] }));
    assert.equal(response.status, 403);
  });

  test("a host beyond loopback without a token does not start: startServer refuses, the CLI exits 2 with one line", async () => {
    await assert.rejects(startServer({ library, host: "0.0.0.0", port: 0 }), { code: "ARGUMENT_INVALID" });
    const result = runCli(scratch, ["serve", "--library", join(scratch, "cli-lib"), "--host", "0.0.0.0", "--port", "0"], { VIDEORAG_TOKEN: "" });
    assert.equal(result.status, 2);
    assert.equal(result.stderr.trim().split("\n").length, 1);
    assert.match(result.stderr, /ARGUMENT_INVALID .*--token or VIDEORAG_TOKEN/);
    assert.equal(existsSync(join(scratch, "cli-lib")), false, "nothing was created");
  });

  test("videorag serve answers on loopback and stops cleanly on SIGTERM", async () => {
    const child = spawn(process.execPath, cliArguments(["serve", "--library", join(scratch, "served"), "--port", "0"]), { cwd: scratch, env: { ...process.env, CI: "1" } });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((found, fail) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
        if (match?.[1]) found(match[1]);
      });
      child.once("exit", () => fail(new Error(`serve exited: ${stderr}`)));
    });
    assert.equal((await fetch(`${url}/api/health`)).status, 200);
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
    child.kill("SIGTERM");
    assert.equal(await exited, 0, stderr);
    assert.match(stderr, /GET \/api\/health 200 \d+ms/);
    assert.match(stderr, /shutting down/);
  });

  test("the server binds to 127.0.0.1 by default", async () => {
    const server = await startServer({ library, port: 0 });
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal((await fetch(`${server.url}/api/health`)).status, 200);
    } finally {
      await server.close();
    }
  });
});

describe("ingest jobs outlive the process that ran them", { skip: needsShared }, () => {
  test("a job stopped by a shutdown stays queued and finishes after the next start; a queued job can be cancelled", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "videorag-jobs-"));
    try {
      let library = await openLibrary({ path: join(scratch, "lib"), visual: false });
      let server = await startServer({ library, port: 0 });
      const started = await fetch(`${server.url}/api/ingest`, {
        method: "POST",
        body: (() => {
          const form = new FormData();
          form.append("file", new Blob([readFileSync(sharedPath("media/audio/jfk.wav"))]), "jfk.wav");
          return form;
        })(),
      });
      const { jobId } = (await started.json()) as { jobId: string };
      // Shut down as soon as the job is running: it is stopped at a stage boundary and left queued.
      for (let attempt = 0; attempt < 100; attempt++) {
        const job = (await (await fetch(`${server.url}/api/jobs/${jobId}`)).json()) as JobJson;
        if (job.status === "running") break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await server.close();
      const stored = JSON.parse(readFileSync(join(library.path, "jobs", `${jobId}.json`), "utf8")) as JobJson;
      assert.ok(stored.status === "queued" || stored.status === "done", stored.status);
      await library.close();

      library = await openLibrary({ path: join(scratch, "lib"), visual: false });
      server = await startServer({ library, port: 0 });
      const events = await (await fetch(`${server.url}/api/jobs/${jobId}/events`)).text();
      const last = parseEvents(events).filter((event) => event.event === "job").at(-1)?.data as JobJson;
      assert.equal(last.status, "done");
      assert.equal((await library.list()).length, 1, "the video is in the library exactly once");

      const second = createIngestJobs({ library, dir: join(scratch, "other-jobs") });
      const queued = second.enqueue({ paths: [sharedPath("media/audio/jfk.wav")], names: ["jfk.wav"], incremental: false });
      assert.equal(second.cancel(queued.id).status, "cancelled", "not started, so cancelled at once");
      await server.close();
      await library.close();
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  test("an upload job cancelled after its video was committed keeps the file the video plays from", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "videorag-cancel-"));
    try {
      const library = await openLibrary({ path: join(scratch, "lib"), visual: false });
      const server = await startServer({ library, port: 0 });
      // Twenty seconds of picture and tone: its light index commits first, its speech is recognised after.
      const clip = join(scratch, "clip.mp4");
      execFileSync("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=duration=20:size=320x240:rate=10", "-f", "lavfi", "-i", "sine=frequency=500:duration=20", "-shortest", clip]);
      const form = new FormData();
      form.append("file", new Blob([readFileSync(clip)]), "clip.mp4");
      const { jobId } = (await (await fetch(`${server.url}/api/ingest`, { method: "POST", body: form })).json()) as { jobId: string };
      let job: JobJson | undefined;
      for (let attempt = 0; attempt < 600; attempt++) {
        job = (await (await fetch(`${server.url}/api/jobs/${jobId}`)).json()) as JobJson;
        if (job.status !== "running" || ["speech", "screen-text", "visual"].includes(job.progress.stage ?? "")) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(job?.status, "running", JSON.stringify(job));
      await fetch(`${server.url}/api/jobs/${jobId}`, { method: "DELETE" });
      for (let attempt = 0; attempt < 600 && job?.status === "running"; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        job = (await (await fetch(`${server.url}/api/jobs/${jobId}`)).json()) as JobJson;
      }
      assert.equal(job?.status, "cancelled");
      const videos = await library.list();
      assert.equal(videos.length, 1, "the light index was committed before the cancel");
      assert.ok(existsSync(videos[0]?.path ?? ""), "the uploaded file stays with its video");
      const media = await fetch(`${server.url}/api/videos/${videos[0]?.id}/media`, { headers: { Range: "bytes=0-99" } });
      assert.equal(media.status, 206);
      await server.close();
      await library.close();
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
