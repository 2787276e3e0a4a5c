// A question that waits for question-time extraction, through a real loopback server whose questions run on worker
// threads: the event stream sends the answer from what is indexed (`preliminary`) before any extraction event, then the
// final answer, which carries the preliminary one with its time; a plain JSON request gets both in one body.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { AnswerJson } from "../api/index.js";
import { openLibrary, type Library } from "../library.js";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { parseEvents } from "../test-support/sse.js";
import { startServer, type RunningServer } from "./start-server.js";

const json = (body: unknown, accept = "application/json"): RequestInit => ({
  method: "POST",
  headers: { "Content-Type": "application/json", Accept: accept },
  body: JSON.stringify(body),
});

describe("the first answer at once, over HTTP", { skip: needsShared }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "videorag-server-preliminary-"));
  let library: Library;
  let server: RunningServer;

  before(async () => {
    library = await openLibrary({ path: join(scratch, "library"), modelsDir: sharedPath("models"), visual: false });
    const report = await library.ingest([sharedPath("media/audio/jfk.wav"), sharedPath("media/subtitled/friday.mp4")], { incremental: true });
    assert.equal(report.failed, 0, JSON.stringify(report.results));
    server = await startServer({ library, port: 0, threads: { libraryOptions: { modelsDir: sharedPath("models"), visual: false }, queryThreads: 1 } });
  });

  after(async () => {
    await server?.close();
    await library?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test("the event stream sends the preliminary answer before the extraction events, then the final one", async () => {
    const response = await fetch(`${server.url}/api/ask`, json({ question: "ask not what your country can do for you" }, "text/event-stream"));
    const events = parseEvents(await response.text());
    const names = events.map((event) => event.event);
    const preliminaryAt = names.indexOf("preliminary");
    assert.ok(preliminaryAt >= 0 && preliminaryAt < names.indexOf("extraction"), names.join());
    assert.equal(names.filter((name) => name === "preliminary").length, 1);
    const preliminary = events[preliminaryAt]?.data as NonNullable<AnswerJson["preliminary"]>;
    assert.equal(preliminary.profile.profile, "lite");
    assert.ok(!preliminary.citations.some((citation) => citation.title === "jfk.wav"), "jfk's speech was not recognised before extraction");
    const done = events.at(-1);
    assert.equal(done?.event, "done");
    const final = done?.data as AnswerJson;
    assert.equal(final.citations[0]?.title, "jfk.wav", final.text);
    assert.deepEqual(final.preliminary?.text, preliminary.text);
    assert.ok((final.preliminary?.timings.totalMs ?? Infinity) <= (final.timings.totalMs ?? 0));
  });

  test("a question the index answers now gets no preliminary answer", async () => {
    const response = await fetch(`${server.url}/api/ask`, json({ question: "ask not what your country can do for you" }));
    const answer = (await response.json()) as AnswerJson;
    assert.equal(answer.extraction?.clips.length ?? 0, 0, "extracted by the first question");
    assert.equal(answer.preliminary, undefined);
    assert.equal(answer.citations[0]?.title, "jfk.wav");
  });
});
