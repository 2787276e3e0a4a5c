// Languages through the HTTP API, on a real loopback server whose ingest runs on its own thread: an ingest by path or
// by upload states the files' language (checked as `ingest --language` checks it: an unknown one is a 400 and queues
// nothing), the job carries it to ingest, and a video's transcript shows each line's language, in JSON and WebVTT.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { JobJson, SegmentJson, VideoJson } from "../api/index.js";
import { openLibrary, type Library } from "../library.js";
import { needsFfmpeg } from "../test-support/meeting.js";
import { startServer, type RunningServer } from "./start-server.js";

const json = (body: unknown): RequestInit => ({ method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
const srt = (lines: string[]): string => lines.map((line, index) => `${index + 1}\n00:00:0${index * 3},000 --> 00:00:0${index * 3 + 2},500\n${line}\n`).join("\n");
const germanLines = ["Wo ist der Schlüssel für das Haus?", "Ich habe ihn gestern auf den Küchentisch gelegt.", "Dann müssen wir die Häuser am Fluss durchsuchen."];

describe("languages through the HTTP API", { skip: needsFfmpeg }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "videorag-server-languages-"));
  const mediaRoot = join(scratch, "media");
  let library: Library;
  let server: RunningServer;

  let videos = 0;
  /** A 10-second still picture of its own colour in the media root, its German sidecar (named `subtitleName`) beside it. */
  const video = (name: string, subtitleName: string): string => {
    const path = join(mediaRoot, name);
    const colour = (0x204060 + 0x151515 * ++videos).toString(16);
    const made = spawnSync("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", `color=c=0x${colour}:s=160x120:r=2:d=10`, "-pix_fmt", "yuv420p", path]);
    assert.equal(made.status, 0, String(made.stderr));
    writeFileSync(join(mediaRoot, subtitleName), srt(germanLines));
    return path;
  };
  const job = async (id: string): Promise<JobJson> => {
    for (let attempt = 0; attempt < 600; attempt++) {
      const current = (await (await fetch(`${server.url}/api/jobs/${id}`)).json()) as JobJson;
      if (current.status !== "queued" && current.status !== "running") return current;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`job ${id} did not finish`);
  };
  const videoNamed = async (title: string): Promise<VideoJson | undefined> =>
    ((await (await fetch(`${server.url}/api/videos`)).json()) as { videos: VideoJson[] }).videos.find((entry) => entry.title === title);

  before(async () => {
    mkdirSync(mediaRoot);
    library = await openLibrary({ path: join(scratch, "library"), ocr: false, visual: false });
    server = await startServer({ library, port: 0, mediaRoots: [mediaRoot], threads: { libraryOptions: { ocr: false, visual: false }, queryThreads: 1 } });
  });

  after(async () => {
    await server?.close();
    await library?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test("an ingest by path states the language: a name or code is taken as --language takes it; one that names none is a 400 that queues nothing", async () => {
    const path = video("stated.mp4", "stated.srt");
    const refused = await fetch(`${server.url}/api/ingest`, json({ paths: [path], language: "elvish" }));
    assert.equal(refused.status, 400);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, "ARGUMENT_INVALID");
    assert.match(body.error.message, /"elvish" names no language videorag knows/);
    assert.equal((await fetch(`${server.url}/api/ingest`, json({ paths: [path], language: "" }))).status, 400, "an empty language is no language");
    assert.deepEqual(((await (await fetch(`${server.url}/api/jobs`)).json()) as { jobs: JobJson[] }).jobs, [], "nothing was queued");

    // The German sidecar says nothing of its language in its name: the user's word is trusted over its text.
    const started = await fetch(`${server.url}/api/ingest`, json({ paths: [path], language: "French" }));
    assert.equal(started.status, 202);
    const done = await job(((await started.json()) as { jobId: string }).jobId);
    assert.equal(done.status, "done", JSON.stringify(done));
    assert.equal(done.language, "fr", "the job shows the language as a code");
    assert.ok(done.results[0]?.notes.includes("language: fr (given)"), JSON.stringify(done.results));
    assert.equal((await videoNamed("stated.mp4"))?.language, "fr");
  });

  test("an upload states its language in a form field; one that names none is a 400 that leaves no upload behind", async () => {
    const path = video("hochgeladen.mp4", "hochgeladen.srt");
    const form = (language: string): FormData => {
      const data = new FormData();
      data.append("file", new Blob([readFileSync(path)]), "hochgeladen.mp4");
      data.append("file", new Blob([readFileSync(join(mediaRoot, "hochgeladen.srt"))]), "hochgeladen.srt");
      data.append("language", language);
      return data;
    };
    const uploads = join(library.path, "uploads");
    const before = existsSync(uploads) ? readdirSync(uploads).length : 0;
    const refused = await fetch(`${server.url}/api/ingest`, { method: "POST", body: form("Klingon") });
    assert.equal(refused.status, 400);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, "ARGUMENT_INVALID");
    assert.equal(existsSync(uploads) ? readdirSync(uploads).length : 0, before, "the refused upload's files are gone");

    const started = await fetch(`${server.url}/api/ingest`, { method: "POST", body: form("ger") });
    assert.equal(started.status, 202);
    const done = await job(((await started.json()) as { jobId: string }).jobId);
    assert.equal(done.status, "done", JSON.stringify(done));
    assert.equal(done.language, "de");
    assert.equal((await videoNamed("hochgeladen.mp4"))?.language, "de");
  });

  test("a transcript shows each line's language, in JSON and as WebVTT language spans; the OpenAPI document names the field", async () => {
    const path = video("zeilen.mp4", "zeilen.de.srt");
    const started = await fetch(`${server.url}/api/ingest`, json({ paths: [path] }));
    const done = await job(((await started.json()) as { jobId: string }).jobId);
    assert.equal(done.status, "done", JSON.stringify(done));
    const id = (await videoNamed("zeilen.mp4"))?.id ?? "";
    assert.ok(id, JSON.stringify(done));
    const { segments } = (await (await fetch(`${server.url}/api/videos/${id}/transcript`)).json()) as { segments: SegmentJson[] };
    assert.deepEqual(segments.map((segment) => [segment.text, segment.language]), germanLines.map((line) => [line, "de"]));
    const vtt = await (await fetch(`${server.url}/api/videos/${id}/transcript.vtt`)).text();
    assert.match(vtt, /00:00:00\.000 --> 00:00:02\.500\n<lang de>Wo ist der Schlüssel für das Haus\?<\/lang>/);
    const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    assert.ok(openapi.components.schemas.IngestPathsRequest?.properties?.language, "the ingest request's language");
    assert.match(JSON.stringify(openapi.components.schemas.Transcript), /"language"/, "a segment's language");
    assert.ok(openapi.components.schemas.Job?.properties?.language, "a job's language");
  });
});
