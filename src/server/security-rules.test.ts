// The server's security rules, each against a real server on loopback (bytes over a socket where fetch would not send
// them): a broken upload, a folder that leads out of its media root, a chunked body past its limit, a path that does not
// decode, a foreign Host or Origin, JSON sent as text/plain, a look-alike loopback name, a transcript range that is
// not a number. Each case is one a user found could stop the server or get past its rules.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { JobJson, VideoJson } from "../api/index.js";
import { openLibrary, type Library } from "../library.js";
import { multipartBody, rawRequest } from "../test-support/raw-http.js";
import { decodedPath, hostName, isLoopback } from "./security-rules.js";
import { checkExposure, startServer, type RunningServer } from "./start-server.js";

describe("loopback and host names", () => {
  test("only 127.0.0.0/8, ::1 and localhost names are loopback; a name that merely starts with 127. is not", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST", "app.localhost", "::ffff:127.0.0.1"]) assert.ok(isLoopback(host), host);
    for (const host of ["127.evil.example", "127.0.0.1.evil.example", "127.0.0.256", "128.0.0.1", "0.0.0.0", "localhost.evil.example", "evil-localhost", ""]) {
      assert.ok(!isLoopback(host), host);
    }
    assert.throws(() => checkExposure("127.evil.example", undefined), { code: "ARGUMENT_INVALID" });
  });

  test("a Host header's name is read without its port; garbage is no name", () => {
    assert.equal(hostName("127.0.0.1:7860"), "127.0.0.1");
    assert.equal(hostName("[::1]:7860"), "[::1]");
    assert.equal(hostName("Example.COM."), "example.com");
    assert.equal(hostName("evil.example:80:90"), undefined);
    assert.equal(hostName("a b"), undefined);
    assert.equal(hostName("user@host"), undefined);
  });

  test("a path whose percent-encoding is broken is an ARGUMENT_INVALID, not a crash", () => {
    assert.equal(decodedPath("/a%20b"), "/a b");
    for (const path of ["/%ff", "/abc%", "/assets/%c0%ae%c0%ae/x.js"]) assert.throws(() => decodedPath(path), { code: "ARGUMENT_INVALID" });
  });
});

describe("a server on loopback keeps its rules", () => {
  let scratch: string;
  let library: Library;
  let server: RunningServer;
  let mediaRoot: string;
  const logLines: string[] = [];
  const crashes: unknown[] = [];
  const onRejection = (reason: unknown): void => void crashes.push(reason);

  before(async () => {
    process.on("unhandledRejection", onRejection);
    scratch = mkdtempSync(join(tmpdir(), "videorag-security-"));
    mediaRoot = join(scratch, "media");
    mkdirSync(mediaRoot);
    library = await openLibrary({ path: join(scratch, "lib"), visual: false });
    server = await startServer({ library, port: 0, mediaRoots: [mediaRoot], uploadLimitBytes: 2 ** 20, log: (line) => logLines.push(line) });
  });

  after(async () => {
    await server.close();
    await library.close();
    process.off("unhandledRejection", onRejection);
    rmSync(scratch, { recursive: true, force: true });
  });

  const uploads = (): string[] => (existsSync(join(library.path, "uploads")) ? readdirSync(join(library.path, "uploads")) : []);
  const head = (method: string, path: string, headers: Record<string, string | number>): string =>
    [`${method} ${path} HTTP/1.1`, ...Object.entries({ Host: `127.0.0.1:${server.port}`, Connection: "close", ...headers }).map(([name, value]) => `${name}: ${value}`)].join("\r\n");
  const alive = async (): Promise<void> => {
    assert.equal((await fetch(`${server.url}/api/health`)).status, 200);
    assert.deepEqual(crashes, []);
  };

  test("a multipart body that ends early, breaks off, or has a NUL in its header is a 400 and the server keeps running", async () => {
    // The body from the report: a part that never ends.
    const truncated = "--XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.mp4\"\r\n\r\nhello";
    const answer = await rawRequest(server.port, head("POST", "/api/ingest", { "Content-Type": "multipart/form-data; boundary=XX", "Content-Length": truncated.length }), truncated);
    assert.equal(answer?.status, 400);
    assert.equal((JSON.parse(answer?.body ?? "{}") as { error: { code: string } }).error.code, "ARGUMENT_INVALID");
    await new Promise((resolve) => setTimeout(resolve, 100));
    await alive();

    const nul = `--XX\r\nContent-Disposition: form-data; name="file"; filename="a\0b.mp4"\r\n\r\nhello\r\n--XX--\r\n`;
    const nulAnswer = await rawRequest(server.port, head("POST", "/api/ingest", { "Content-Type": "multipart/form-data; boundary=XX", "Content-Length": Buffer.byteLength(nul) }), nul);
    assert.ok(nulAnswer && nulAnswer.status < 500 && nulAnswer.status >= 400, String(nulAnswer?.status));
    await alive();

    // A client that goes away halfway through a declared 64 KiB.
    const { body, boundary } = multipartBody("gone.mp4", Buffer.alloc(64 * 1024, 7));
    const gone = await rawRequest(server.port, head("POST", "/api/ingest", { "Content-Type": `multipart/form-data; boundary=${boundary}`, "Content-Length": body.length }), body, { cutAfterBytes: 20_000 });
    assert.equal(gone, undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await alive();
    assert.deepEqual(uploads(), [], "no partial upload is left behind");
  });

  test("a chunked JSON body past the limit is a 413 whatever the route, and is not read whole", async () => {
    for (const path of ["/api/ingest", "/api/search", "/api/ask"]) {
      let sent = 0;
      const chunk = new Uint8Array(64 * 1024).fill(32);
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          // 100 MiB on offer; the server stops reading long before.
          if (sent >= 100 * 2 ** 20) return controller.close();
          sent += chunk.length;
          controller.enqueue(chunk);
        },
      });
      const response = await fetch(`${server.url}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body, duplex: "half" } as RequestInit);
      assert.equal(response.status, 413, path);
      assert.equal(((await response.json()) as { error: { code: string } }).error.code, "BODY_TOO_LARGE");
      assert.ok(sent < 10 * 2 ** 20, `${path}: ${sent} bytes were sent before the answer`);
    }
    await alive();
  });

  test("a JSON body whose declared length is past the limit is a 413 before it is sent; one within it is read", async () => {
    for (const path of ["/api/search", "/api/ask"]) {
      // Only the first bytes of the 2 MiB it declares: the answer comes without the rest.
      const answer = await rawRequest(server.port, head("POST", path, { "Content-Type": "application/json", "Content-Length": 2 * 2 ** 20 }), '{"query": "', { timeoutMs: 5_000 });
      assert.equal(answer?.status, 413, path);
      assert.equal((JSON.parse(answer?.body ?? "{}") as { error: { code: string } }).error.code, "BODY_TOO_LARGE");
    }
    const body = JSON.stringify({ query: `cat ${" ".repeat(100_000)}`, limit: 3 });
    const within = await rawRequest(server.port, head("POST", "/api/search", { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) }), body);
    assert.equal(within?.status, 200, within?.body);
    assert.ok(Array.isArray((JSON.parse(within?.body ?? "{}") as { hits: unknown }).hits));
    await alive();
  });

  test("paths whose percent-encoding does not decode are 400s with no stack in the log, with or without a token", async () => {
    const before = logLines.length;
    for (const path of ["/%ff", "/abc%", "/assets/%c0%ae%c0%ae/x.js", "/api/videos/%ff"]) {
      const answer = await rawRequest(server.port, head("GET", path, {}));
      assert.equal(answer?.status, 400, path);
      assert.equal((JSON.parse(answer?.body ?? "{}") as { error: { code: string } }).error.code, "ARGUMENT_INVALID");
    }
    assert.ok(!logLines.slice(before).some((line) => /\n\s+at /.test(line)), logLines.slice(before).join("\n"));
  });

  test("a foreign Host is refused, so a rebound DNS name cannot read the library; loopback names are answered", async () => {
    const foreign = await rawRequest(server.port, head("GET", "/api/videos", { Host: "attacker.example" }));
    assert.equal(foreign?.status, 403);
    assert.equal((JSON.parse(foreign?.body ?? "{}") as { error: { code: string } }).error.code, "HOST_NOT_ALLOWED");
    assert.equal((await rawRequest(server.port, head("GET", "/", { Host: "127.evil.example" })))?.status, 403);
    for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, "localhost"]) {
      assert.equal((await rawRequest(server.port, head("GET", "/api/videos", { Host: host })))?.status, 200, host);
    }
  });

  test("a state change from another site's page is refused: text/plain JSON, a foreign Origin, a cross-site fetch", async () => {
    const paths = JSON.stringify({ paths: [mediaRoot] });
    const plain = await fetch(`${server.url}/api/ingest`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: paths });
    assert.equal(plain.status, 415);
    assert.equal(((await plain.json()) as { error: { code: string } }).error.code, "CONTENT_TYPE_UNSUPPORTED");
    const foreign = await fetch(`${server.url}/api/ingest`, { method: "POST", headers: { "Content-Type": "application/json", Origin: "https://evil.example" }, body: paths });
    assert.equal(foreign.status, 403);
    assert.equal(((await foreign.json()) as { error: { code: string } }).error.code, "ORIGIN_NOT_ALLOWED");
    const { body, boundary } = multipartBody("a.mp4", "x");
    const upload = await fetch(`${server.url}/api/ingest`, { method: "POST", headers: { "Content-Type": `multipart/form-data; boundary=${boundary}`, Origin: "https://evil.example" }, body });
    assert.equal(upload.status, 403);
    const crossSite = await fetch(`${server.url}/api/videos/abc`, { method: "DELETE", headers: { "Sec-Fetch-Site": "cross-site" } });
    assert.equal(crossSite.status, 403);
    assert.deepEqual((await (await fetch(`${server.url}/api/jobs`)).json()) as { jobs: JobJson[] }, { jobs: [] }, "nothing was queued");
    // The server's own page may: same origin.
    const own = await fetch(`${server.url}/api/search`, { method: "POST", headers: { "Content-Type": "application/json", Origin: server.url }, body: JSON.stringify({ query: "x" }) });
    assert.equal(own.status, 200);
  });

  test("a transcript range that is not a number is a 400", async () => {
    for (const query of ["from=abc", "to=-1", "from=", "t=NaN"]) {
      const response = await fetch(`${server.url}/api/videos/0123456789ab/transcript?${query}`);
      // No such video either: the argument is checked first or the video is not found, but never a 200 or a 500.
      assert.ok(response.status === 400 || response.status === 404, `${query}: ${response.status}`);
    }
  });

  test("ingest by folder skips every file that leads out of the media root, sidecar subtitles included", async () => {
    // Outside the root: a real audio file and a secret the subtitles would reveal.
    const outside = join(scratch, "outside");
    mkdirSync(outside);
    const tone = (path: string, hertz: number): void =>
      void execFileSync("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", `sine=frequency=${hertz}:duration=2`, "-ar", "16000", "-ac", "1", path]);
    tone(join(outside, "private.wav"), 440);
    writeFileSync(join(outside, "secret.srt"), "1\n00:00:00,000 --> 00:00:01,500\nthe vault code is zebra\n");
    tone(join(mediaRoot, "inside.wav"), 660);
    symlinkSync(join(outside, "private.wav"), join(mediaRoot, "link.wav"));
    symlinkSync(join(outside, "secret.srt"), join(mediaRoot, "inside.srt"));
    symlinkSync(outside, join(mediaRoot, "outdir"));
    symlinkSync("../outside/private.wav", join(mediaRoot, "relative.wav"));

    // Named, a link out is refused at once.
    const named = await fetch(`${server.url}/api/ingest`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ paths: [join(mediaRoot, "link.wav")] }) });
    assert.equal(named.status, 403);
    // Through the folder, the job takes only what is inside.
    const queued = (await (await fetch(`${server.url}/api/ingest`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ paths: [mediaRoot] }) })).json()) as { jobId: string };
    let job: JobJson | undefined;
    for (let attempt = 0; attempt < 600; attempt++) {
      job = (await (await fetch(`${server.url}/api/jobs/${queued.jobId}`)).json()) as JobJson;
      if (job.status !== "queued" && job.status !== "running") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(job?.status, "done", JSON.stringify(job));
    const { videos } = (await (await fetch(`${server.url}/api/videos`)).json()) as { videos: VideoJson[] };
    assert.deepEqual(videos.map((video) => video.title), ["inside.wav"]);
    for (const name of ["link.wav", "relative.wav"]) {
      const result: JobJson["results"][number] | undefined = job?.results.find((entry) => entry.path.endsWith(name));
      assert.equal(result?.status, "skipped", name);
    }
    const video = videos[0] as VideoJson;
    const media = await fetch(`${server.url}/api/videos/${video.id}/media`);
    assert.equal(media.status, 200);
    await media.arrayBuffer();
    const transcript = await (await fetch(`${server.url}/api/videos/${video.id}/transcript`)).text();
    assert.doesNotMatch(transcript, /zebra/, "a sidecar that links out is not read");
  });
});
