// The abuse suite: `videorag serve` as its own process, as a user runs it, under a multipart fuzzer (truncated parts,
// bad boundaries, NUL and path characters in names, disconnects mid-body, oversize), an HTTP fuzzer over every route of
// its OpenAPI document (random and wrongly typed bodies, query values, encodings, Range headers), and a symbolic-link
// maze for ingest paths. Asserted: no 5xx, the process never dies, no upload is left half-written, no file outside
// the media root is ingested or served. Seeded, so a failure is repeatable; bounded to about a minute.

import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { JobJson, VideoJson } from "../api/index.js";
import { cliArguments, runCli } from "../test-support/cli.js";
import { multipartBody, rawRequest } from "../test-support/raw-http.js";
import { needsShared, sharedPath } from "../test-support/shared.js";

/** A seeded generator, so that a failing case can be run again. */
function seeded(seed: number): { next(): number; int(below: number): number; pick<T>(items: readonly T[]): T } {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (below) => Math.floor(next() * below), pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number] };
}

const uploadLimitMiB = 1;

describe("abuse: videorag serve under fuzzers and a symlink maze", { skip: needsShared }, () => {
  let scratch: string;
  let library: string;
  let maze: string;
  let outside: string;
  let server: ChildProcess;
  let url: string;
  let port: number;
  let stderr = "";
  let exited: number | null | undefined;
  let fridayId: string;
  let meetingId: string;
  const statuses = new Map<string, number>();
  const serverErrors: string[] = [];

  const record = (what: string, status: number, body: string): void => {
    statuses.set(String(status), (statuses.get(String(status)) ?? 0) + 1);
    if (status >= 500) serverErrors.push(`${what} → ${status} ${body.slice(0, 200)}`);
  };
  const assertAlive = (): void => {
    assert.equal(exited, undefined, `the server exited (${exited}); its stderr:\n${stderr.slice(-2000)}`);
  };

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), "videorag-abuse-"));
    library = join(scratch, "lib");
    maze = join(scratch, "maze");
    outside = join(scratch, "outside");
    mkdirSync(maze);
    mkdirSync(outside);
    // A meeting known by its transcript, whose voices give the speaker routes speakers to rename.
    const transcripts = join(scratch, "transcripts");
    mkdirSync(transcripts);
    writeFileSync(join(transcripts, "meeting.vtt"), "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Dana>The budget is approved.</v>\n\n00:00:05.000 --> 00:00:08.000\n<v Sam>Then we move to SQLite.</v>\n");
    const ingested = runCli(scratch, ["ingest", "--library", library, "--no-visual", "--transcripts", transcripts, sharedPath("media/subtitled/friday.mp4")]);
    assert.equal(ingested.status, 0, ingested.stderr);
    server = spawn(process.execPath, cliArguments(["serve", "--port", "0", "--library", library, "--media-root", maze, "--upload-limit", String(uploadLimitMiB)]), {
      cwd: scratch,
      env: { ...process.env, CI: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    server.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    server.once("exit", (code) => (exited = code));
    url = await new Promise<string>((resolve, reject) => {
      let out = "";
      server.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const found = /at (http:\/\/\S+)/.exec(out)?.[1];
        if (found) resolve(found);
      });
      server.once("exit", (code) => reject(new Error(`videorag serve exited with ${code}: ${stderr}`)));
    });
    port = Number(new URL(url).port);
    const { videos } = (await (await fetch(`${url}/api/videos`)).json()) as { videos: VideoJson[] };
    fridayId = videos.find((video) => video.title === "friday.mp4")?.id ?? "";
    meetingId = videos.find((video) => video.title === "meeting")?.id ?? "";
    assert.ok(fridayId && meetingId, JSON.stringify(videos.map((video) => video.title)));
  });

  after(async () => {
    if (exited === undefined) {
      server.kill("SIGTERM");
      await new Promise((resolve) => server.once("exit", resolve));
    }
    rmSync(scratch, { recursive: true, force: true });
  });

  test("multipart fuzzer: truncated parts, bad boundaries, odd names, disconnects and oversize get 4xx, and nothing is left half-written", async () => {
    const random = seeded(25);
    const names = ["a.mp4", "../../etc/passwd", "..\\..\\win.ini", "a\0b.mp4", "\u202egnp.exe", "%2e%2e%2fx.wav", "/abs/path.mkv", "", ".hidden.mp4", "a\r\nX-Injected: 1.mp4", "名前.mp4", "x".repeat(600)];
    const boundaries = ["XX", "", "a".repeat(200), "b\0c", "---- spaced", "quote\"d"];
    let cases = 0;
    for (let round = 0; round < 160; round++) {
      const kind = random.pick(["truncate", "boundary", "name", "disconnect", "oversize", "header"] as const);
      const { body, boundary } = multipartBody(random.pick(names), Buffer.alloc(random.int(4096) + 1, random.int(256)), "fuzz-boundary");
      let headers: Record<string, string | number> = { "Content-Type": `multipart/form-data; boundary=${boundary}`, "Content-Length": body.length };
      let payload: Buffer = body;
      let cutAfterBytes: number | undefined;
      switch (kind) {
        case "truncate":
          payload = body.subarray(0, random.int(body.length));
          headers["Content-Length"] = payload.length;
          break;
        case "boundary":
          headers["Content-Type"] = random.next() < 0.3 ? "multipart/form-data" : `multipart/form-data; boundary=${random.pick(boundaries)}`;
          break;
        case "name":
          break;
        case "disconnect":
          cutAfterBytes = random.int(body.length);
          break;
        case "oversize":
          if (random.next() < 0.5) {
            headers["Content-Length"] = 5 * 2 ** 30;
            payload = body.subarray(0, 100);
            cutAfterBytes = 100;
          } else {
            // Chunked, past the limit: counted as it streams.
            const big = multipartBody("big.mp4", Buffer.alloc((uploadLimitMiB + 1) * 2 ** 20, 1), "fuzz-boundary").body;
            headers = { "Content-Type": headers["Content-Type"] as string, "Transfer-Encoding": "chunked" };
            payload = Buffer.concat([Buffer.from(`${big.length.toString(16)}\r\n`), big, Buffer.from("\r\n0\r\n\r\n")]);
          }
          break;
        case "header":
          payload = Buffer.from(body.toString("latin1").replace("Content-Disposition", random.pick(["Content-Disposition\0", "X", "Content-Disposition: form-data; name=\"file\"; filename*=utf-8''%ff%fe"])), "latin1");
          headers["Content-Length"] = payload.length;
          break;
      }
      const head = [`POST /api/ingest HTTP/1.1`, `Host: 127.0.0.1:${port}`, "Connection: close", ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)].join("\r\n");
      const answer = await rawRequest(port, head, payload, { cutAfterBytes });
      cases++;
      if (answer) {
        record(`multipart ${kind}`, answer.status, answer.body);
        // A well-formed part with an odd name is a job (202); everything else is refused with a code.
        if (answer.status !== 202) assert.ok(answer.status >= 400 && answer.status < 500, `${kind}: ${answer.status} ${answer.body}`);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    assertAlive();
    assert.equal((await fetch(`${url}/api/health`)).status, 200);
    assert.deepEqual(serverErrors, []);
    assert.ok(cases === 160);
    // Every upload folder left is a job's (accepted uploads); none is a refused or broken one.
    const { jobs } = (await (await fetch(`${url}/api/jobs`)).json()) as { jobs: JobJson[] };
    const uploadsDir = join(library, "uploads");
    const left = existsSync(uploadsDir) ? readdirSync(uploadsDir) : [];
    for (const folder of left) assert.ok(jobs.some((job) => job.id === folder), `upload folder ${folder} belongs to no job`);
    // Nothing was written outside the uploads folder, whatever the names said.
    assert.ok(!existsSync(join(library, "etc")) && !existsSync(join(scratch, "etc")) && !existsSync(join(library, "win.ini")));
  });

  test("HTTP fuzzer over every route of the OpenAPI document: random and wrongly typed bodies, queries, encodings and ranges", async () => {
    const random = seeded(26);
    const document = (await (await fetch(`${url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    };
    const routes = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })));
    routes.push({ path: "/api/login", method: "POST", operation: {} });
    assert.ok(routes.length >= 24, `${routes.length} routes`);
    for (const path of ["/api/videos/{id}/chapters", "/api/videos/{id}/chapters.vtt", "/api/videos/{id}/summary", "/api/topics", "/api/videos/{id}/speakers", "/api/videos/{id}/speakers/{label}"]) {
      assert.ok(document.paths[path], `${path} is fuzzed`);
    }
    const ids = ["0123456789ab", "..", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "%ff", "a".repeat(300), "名前", "%00", "-1", "1e309", "null", "%c0%ae"];
    const values = ["abc", "-1", "0", "1e309", "NaN", "", "%ff", "%00", "99999999999", "1,2", "[]", "x".repeat(2000), "Infinity", "0x10", "short", "long"];
    const jsonBodies = (): string => {
      const wrong = [1, -1, Number.MAX_VALUE, "", "x".repeat(5000), null, true, [], {}, [1, "a"], { nested: { deeper: [] } }];
      const fields = ["query", "question", "limit", "mode", "extract", "paths", "incremental", "token", "videoIds", "speaker", "name"];
      const object: Record<string, unknown> = {};
      for (let count = random.int(4); count >= 0; count--) object[random.pick(fields)] = random.pick(wrong);
      return random.pick([
        JSON.stringify(object),
        JSON.stringify(random.pick(wrong)),
        "{",
        "\u0000",
        "[".repeat(5000) + "]".repeat(5000),
        JSON.stringify({ paths: [random.pick(["relative/x.mp4", "/etc/passwd", maze, `${maze}/../outside`, "\0"])] }),
        JSON.stringify({ query: random.pick(["the", "", "*", "\"", "NEAR(", "a OR b", "-x", "%", "^"]) }),
        JSON.stringify({ question: random.pick(["who?", "", "?".repeat(3000)]), mode: random.pick(["naive", "graph", "bad"]) }),
        // A speaker's name: real ones, another's label, odd text, wrong types; and search by speaker.
        JSON.stringify({ name: random.pick(["Dana Lee", "Sam", "Dana", null, "", " ", "\u0000", "\u202e", "x".repeat(101), "__proto__", "<v X>", "名前", 5, [], {}]) }),
        JSON.stringify({ query: random.pick(["budget", "the", ""]), speaker: random.pick(["Dana", "Sam", "Speaker 1", "", "%", "__proto__", "x".repeat(300), null, 1]) }),
        // Scoped to videos: the real one, ones that are not there, paths and titles (ids only), wrong types.
        JSON.stringify({
          [random.pick(["query", "question"])]: random.pick(["who?", "crown jewels", ""]),
          videoIds: random.pick([[fridayId], [fridayId, fridayId], [random.pick(ids)], ["friday.mp4"], ["/etc/passwd"], [], [fridayId.slice(0, 6)], Array(101).fill(fridayId), [1], "x", null]),
        }),
      ]);
    };
    let requests = 0;
    for (let round = 0; round < 700; round++) {
      const route = random.pick(routes);
      // Deleting the one video would leave later cases nothing to read; everything else may take the real id.
      const id = route.method !== "DELETE" && random.next() < 0.5 ? random.pick([fridayId, meetingId]) : random.pick(ids);
      let path = route.path
        .replace("{id}", id)
        .replace("{key}", random.pick(["1", "-1", "abc", "1.5", "99999999999999999999", "%ff"]))
        .replace("{label}", random.pick(["Dana", "Sam", "Speaker%201", "%ff", "%00", "%2F..%2F", "__proto__", "constructor", "x".repeat(300), "%E2%80%AE", "%20"]));
      const query = (route.operation.parameters ?? []).filter((parameter) => parameter.in === "query").map((parameter) => parameter.name);
      if (random.next() < 0.3) query.push(random.pick(["from", "to", "t", "q", "limit", "length", "%ff", "a[b]"]));
      if (query.length > 0) path += `?${query.map((name) => `${name}=${encodeURIComponent(random.pick(values)).replace("%25ff", "%ff")}`).join("&")}`;
      const headers: Record<string, string> = {};
      if (random.next() < 0.4) headers.Range = random.pick(["bytes=0-", "bytes=-", "bytes=5-1", "bytes=-0", "bytes=999999999999-", "bytes=0-1,5-9", "items=0-1", "bytes=abc", "bytes=-99999999999"]);
      if (random.next() < 0.2) headers.Accept = "text/event-stream";
      let body: string | undefined;
      if (route.method === "POST" || route.method === "PUT" || (route.method === "DELETE" && random.next() < 0.2)) {
        body = jsonBodies();
        headers["Content-Type"] = random.pick(["application/json", "application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]);
      }
      const controller = new AbortController();
      // An event stream stays open while its job runs: read what comes in a moment, then leave.
      const timer = setTimeout(() => controller.abort(), 3_000);
      try {
        const response = await fetch(`${url}${path}`, { method: route.method, headers, body, signal: controller.signal });
        const text = await response.text().catch(() => "");
        record(`${route.method} ${path} ${JSON.stringify(headers)} ${body?.slice(0, 100) ?? ""}`, response.status, text);
        if (response.status >= 400 && (response.headers.get("content-type") ?? "").includes("json")) {
          const error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
          assert.ok(error?.code, `${route.method} ${path}: ${text}`);
          assert.doesNotMatch(error?.message ?? "", /\n\s+at /, "no stack trace in an error body");
        }
      } catch (error) {
        if (!controller.signal.aborted) throw error;
      } finally {
        clearTimeout(timer);
      }
      requests++;
    }
    // Percent-encodings fetch would normalise, sent as they are.
    for (const raw of ["/%ff", "/abc%", "/assets/%c0%ae%c0%ae/x.js", "/api/videos/%ff/media", "/%2e%2e/%2e%2e/etc/passwd", "/api/%00"]) {
      const answer = await rawRequest(port, `GET ${raw} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close`);
      record(`GET ${raw}`, answer?.status ?? 0, answer?.body ?? "");
      requests++;
    }
    assertAlive();
    assert.deepEqual(serverErrors, [], `statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.ok(requests >= 700);
    assert.doesNotMatch(stderr, /Unhandled|TypeError|ReferenceError/);
  });

  test("symlink maze: nothing outside the media root is ingested or served, however the path leads there", async () => {
    const tone = (path: string, hertz: number): void =>
      void execFileSync("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", `sine=frequency=${hertz}:duration=1`, "-ar", "16000", "-ac", "1", path]);
    tone(join(outside, "private.wav"), 300);
    writeFileSync(join(outside, "secret.srt"), "1\n00:00:00,000 --> 00:00:00,900\nthe vault code is zebra\n");
    mkdirSync(join(maze, "sub", "deeper"), { recursive: true });
    tone(join(maze, "sub", "deeper", "inside.wav"), 500);
    symlinkSync(join(outside, "secret.srt"), join(maze, "sub", "deeper", "inside.srt"));
    symlinkSync(join(outside, "private.wav"), join(maze, "absolute.wav"));
    symlinkSync("../../outside/private.wav", join(maze, "sub", "relative.wav"));
    symlinkSync(outside, join(maze, "outdir"));
    symlinkSync("..", join(maze, "sub", "up"));
    symlinkSync(join(maze, "loop-b"), join(maze, "loop-a"));
    symlinkSync(join(maze, "loop-a"), join(maze, "loop-b"));
    symlinkSync(join(maze, "absolute.wav"), join(maze, "chain.wav"));
    symlinkSync(join(maze, "missing.wav"), join(maze, "broken.wav"));
    symlinkSync(join(maze, "sub", "deeper", "inside.wav"), join(maze, "inward.wav"));
    symlinkSync("/etc/passwd", join(maze, "passwd.mp4"));

    const post = async (paths: string[]): Promise<{ status: number; body: { jobId?: string; error?: { code: string } } }> => {
      const response = await fetch(`${url}/api/ingest`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ paths }) });
      const body = (await response.json()) as { jobId?: string; error?: { code: string } };
      record(`ingest ${paths.join(",")}`, response.status, JSON.stringify(body));
      return { status: response.status, body };
    };
    // Named, a way out is refused at once; a loop or a dead end is not found.
    for (const name of ["absolute.wav", "sub/relative.wav", "outdir", "outdir/private.wav", "sub/up/outside/private.wav", "chain.wav", "passwd.mp4", "sub/up/../outside"]) {
      const { status, body } = await post([join(maze, name)]);
      assert.ok(status === 403 || status === 404, `${name}: ${status} ${JSON.stringify(body)}`);
    }
    for (const name of ["loop-a", "broken.wav"]) assert.equal((await post([join(maze, name)])).status, 404, name);
    assert.equal((await post([`${maze}/../outside/private.wav`])).status, 403);

    // The whole maze, walked: only the real files inside are taken.
    const { status, body } = await post([maze]);
    assert.equal(status, 202);
    let job: JobJson | undefined;
    for (let attempt = 0; attempt < 900; attempt++) {
      job = (await (await fetch(`${url}/api/jobs/${body.jobId}`)).json()) as JobJson;
      if (job.status !== "queued" && job.status !== "running") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(job?.status, "done", JSON.stringify(job));
    const ingested = job?.results.filter((result) => result.status === "ingested" || result.status === "unchanged") ?? [];
    const mazeReal = realpathSync(maze);
    for (const result of ingested) assert.ok(realpathSync(result.path).startsWith(`${mazeReal}/`), result.path);
    assert.ok(ingested.some((result) => result.path.endsWith("inside.wav")), JSON.stringify(job?.results));

    // What is served is the inside file, byte for byte; the secret beside it was never read.
    const { videos } = (await (await fetch(`${url}/api/videos`)).json()) as { videos: VideoJson[] };
    const inside = videos.find((video) => video.title === "inside.wav");
    assert.ok(inside, JSON.stringify(videos.map((video) => video.title)));
    const served = Buffer.from(await (await fetch(`${url}/api/videos/${inside.id}/media`)).arrayBuffer());
    assert.ok(served.equals(readFileSync(join(maze, "sub", "deeper", "inside.wav"))));
    assert.ok(!videos.some((video) => ["private.wav", "absolute.wav", "relative.wav", "chain.wav", "passwd.mp4"].includes(video.title)));
    assert.doesNotMatch(await (await fetch(`${url}/api/videos/${inside.id}/transcript`)).text(), /zebra/);
    assertAlive();
    assert.deepEqual(serverErrors, []);
  });
});
