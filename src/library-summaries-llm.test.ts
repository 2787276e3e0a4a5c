// Chapters and summaries with a language model over an OpenAI-compatible server (a local one that speaks the
// protocol): the model titles each chapter once the video's text is in, writes a summary map-reduce (each chapter, then
// the video, streamed), and an overview question is answered from the chapters' summaries with checked citations.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { liteConfig } from "./providers/registry.js";
import { openLibrary, type Library } from "./library.js";
import { needsShared, sharedPath } from "./test-support/shared.js";
import { startOpenAiTestServer, type OpenAiTestServer, type RecordedRequest } from "./test-support/openai-test-server.js";

function promptOf(request: RecordedRequest): string {
  const messages = (request.json.messages ?? []) as { role: string; content: string | { type: string; text?: string }[] }[];
  return messages.map((message) => (typeof message.content === "string" ? message.content : message.content.map((part) => part.text ?? "").join(" "))).join("\n");
}

describe("chapters and summaries written by a language model", { skip: needsShared }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "videorag-summaries-llm-test-"));
  let server: OpenAiTestServer;
  let library: Library;
  before(async () => {
    server = await startOpenAiTestServer({
      reply: (request) => {
        const prompt = promptOf(request);
        if (/You title chapters/.test(prompt)) return JSON.stringify({ title: "Walter's bad mood", summary: "Walter complains to Hildy." });
        if (/Summarize this part of the video/.test(prompt)) return "Walter is in a bad humor [1].";
        if (/Summarize the whole video/.test(prompt)) return "The scene shows Walter in a bad humor [1].";
        if (/what is friday\.mp4 about/i.test(prompt)) return "It is about Walter's bad humor [1].";
        return "I cannot tell [1].";
      },
    });
    process.env.VIDEORAG_TEST_KEY = "sk-test-SECRET";
    const config = liteConfig();
    config.models.llm = { provider: "openai", baseUrl: server.url, model: "test-model", apiKeyEnv: "VIDEORAG_TEST_KEY", acceptsImages: false };
    library = await openLibrary({ path: join(scratch, "library"), config, speech: false });
    const report = await library.ingest([sharedPath("media/subtitled/friday.mp4")]);
    assert.equal(report.failed, 0);
  });
  after(async () => {
    await library?.close();
    await server?.close();
    delete process.env.VIDEORAG_TEST_KEY;
    rmSync(scratch, { recursive: true, force: true });
  });

  test("a full ingest leaves the chapters titled by the model, and the chapter stage done", async () => {
    const { chapters } = await library.chapters("friday.mp4");
    assert.ok(chapters.length > 0);
    assert.deepEqual(chapters.map((chapter) => [chapter.title, chapter.summary, chapter.madeBy]), chapters.map(() => ["Walter's bad mood", "Walter complains to Hildy.", "openai:test-model"]));
    const status = await library.status();
    assert.equal(status.stages.chapters?.pending ?? 0, 0, JSON.stringify(status.stages));
  });

  test("summarize streams the model's summary, map-reduce, every claim cited at its moment", async () => {
    const deltas: string[] = [];
    const before = server.requests.length;
    const summary = await library.summarize("friday.mp4", { onText: (delta) => deltas.push(delta) });
    assert.equal(summary.madeBy, "openai:test-model");
    assert.equal(deltas.join(""), summary.text);
    assert.match(summary.text, /^The scene shows Walter in a bad humor \[friday\.mp4 \d:\d\d–\d:\d\d\]\.$/);
    assert.ok(summary.sentences.length > 0 && summary.sentences.every((sentence) => sentence.citations[0]?.title === "friday.mp4"));
    const prompts = server.requests.slice(before).map(promptOf);
    assert.ok(prompts.some((prompt) => /Summarize this part of the video/.test(prompt)), "a chapter summary (map)");
    assert.ok(prompts.some((prompt) => /Summarize the whole video/.test(prompt) && /Walter is in a bad humor/.test(prompt)), "the video's from the chapters' (reduce)");
  });

  test("an overview question is answered by the model from the chapters' summaries", async () => {
    const answer = await library.ask("what is friday.mp4 about?");
    assert.equal(answer.intent, "overview");
    assert.equal(answer.profile.strategy, "summaries");
    assert.equal(answer.profile.profile, "language-model");
    assert.match(answer.text, /bad humor \[friday\.mp4 \d:\d\d–\d:\d\d\]/);
  });
});
