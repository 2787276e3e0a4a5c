// Answers from a language model over an OpenAI-compatible server (a local one that speaks the protocol): numbered
// evidence goes out, the answer streams back, its citations are checked and mapped to the video and the second.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { liteConfig } from "./providers/registry.js";
import { openLibrary, type Library } from "./library.js";
import { needsShared, sharedPath } from "./test-support/shared.js";
import { startOpenAiTestServer, type OpenAiTestServer, type RecordedRequest } from "./test-support/openai-test-server.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-llm-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The user message the answerer sent, as text. */
function promptOf(request: RecordedRequest): string {
  const messages = (request.json.messages ?? []) as { role: string; content: string | { type: string; text?: string }[] }[];
  return messages.map((message) => (typeof message.content === "string" ? message.content : message.content.map((part) => part.text ?? "").join(" "))).join("\n");
}

describe("answers from an OpenAI-compatible language model", { skip: needsShared }, () => {
  let server: OpenAiTestServer;
  let library: Library;
  before(async () => {
    // The model answers from evidence [1] and also cites a number it was never given.
    server = await startOpenAiTestServer({
      reply: (request) => (/bad humor/.test(promptOf(request)) ? "Walter is in a bad humor [1]. He says so twice [7]." : "I cannot tell [1]."),
    });
    process.env.VIDEORAG_TEST_KEY = "sk-test-SECRET";
    const config = liteConfig();
    config.models.llm = { provider: "openai", baseUrl: server.url, model: "test-model", apiKeyEnv: "VIDEORAG_TEST_KEY", acceptsImages: false };
    library = await openLibrary({ path: join(scratch, "llm"), config, speech: false });
    await library.ingest([sharedPath("media/subtitled/friday.mp4")]);
  });
  after(async () => {
    await library.close();
    await server.close();
    delete process.env.VIDEORAG_TEST_KEY;
  });

  test("the answer streams, cites the video and second, and drops a citation that was not given", async () => {
    const deltas: string[] = [];
    const answer = await library.ask("who is in a bad humor?", { onText: (delta) => deltas.push(delta) });
    assert.ok(deltas.length > 1, "streamed in pieces");
    assert.equal(deltas.join(""), answer.text);
    assert.match(answer.text, /Walter is in a bad humor \[friday\.mp4 0:03–0:04\]\./);
    assert.doesNotMatch(answer.text, /\[7\]/);
    assert.equal(answer.citations.length, 1);
    assert.equal(answer.citations[0]?.title, "friday.mp4");
    assert.ok(answer.warnings.some((warning) => /\[7\]/.test(warning.detail)), JSON.stringify(answer.warnings));
    assert.match(answer.profile.summary, /openai:test-model/);
  });

  test("the request carries numbered evidence with times, and the key only in the header", async () => {
    const request = server.requests.findLast((item) => item.path.endsWith("/chat/completions"));
    assert.ok(request);
    assert.equal(request.json.stream, true);
    assert.match(promptOf(request), /\[1\] friday\.mp4 0:03–0:04/);
    assert.equal(request.headers.authorization, "Bearer sk-test-SECRET");
  });

  test("asking again is served from the cache", async () => {
    const before = server.requests.length;
    const answer = await library.ask("who is in a bad humor?");
    assert.equal(server.requests.length, before);
    assert.match(answer.text, /bad humor \[friday\.mp4 0:03–0:04\]/);
  });

  test("a server that keeps failing falls back to the extractive answer, with a warning", async () => {
    // Every call fails: the query rewrites and the relevance filter first (each falls back to the lite way), then the answer.
    server.script(...Array<"server-error">(60).fill("server-error"));
    const failing = liteConfig();
    failing.runtime.retries = 1;
    failing.models.llm = { provider: "openai", baseUrl: server.url, model: "other-model", apiKeyEnv: "VIDEORAG_TEST_KEY", acceptsImages: false };
    const other = await openLibrary({ path: join(scratch, "llm"), config: failing, speech: false });
    try {
      const answer = await other.ask("who is in a bad humor?");
      assert.match(answer.text, /\[friday\.mp4 0:03–0:04\]/);
      assert.match(answer.profile.summary, /extractive/);
      assert.ok(answer.warnings.some((warning) => warning.type === "fallback" && /MODEL_FAILED/.test(warning.detail)), JSON.stringify(answer.warnings));
      const features = new Set(answer.warnings.map((warning) => warning.feature));
      for (const feature of ["entity keywords", "scene description", "answers"]) assert.ok(features.has(feature), `${feature}: ${JSON.stringify(answer.warnings)}`);
    } finally {
      await other.close();
    }
  });
});
