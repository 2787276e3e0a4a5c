// The model-driven side of issue 4 through a local server that speaks the OpenAI protocol: entities and relations
// extracted by the language model with a gleaning pass, one synthesised description per merged entity, the question
// rewritten into entity keywords, and the hybrid relevance filter dropping the clips the model judges irrelevant.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { liteConfig } from "./providers/registry.js";
import { openLibrary, type Library } from "./library.js";
import { needsShared, sharedPath } from "./test-support/shared.js";
import { startOpenAiTestServer, type OpenAiTestServer, type RecordedRequest } from "./test-support/openai-test-server.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-hybrid-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function promptOf(request: RecordedRequest): string {
  const messages = (request.json.messages ?? []) as { role: string; content: string | { type: string; text?: string }[] }[];
  return messages.map((message) => (typeof message.content === "string" ? message.content : message.content.map((part) => part.text ?? "").join(" "))).join("\n");
}

/** What a cooperative model would say to each of the engine's requests. */
function reply(request: RecordedRequest): string {
  const prompt = promptOf(request);
  if (/MANY entities and relationships were missed/.test(prompt)) {
    // Gleaning: one entity the first pass missed, only for the ship scene.
    return /lifeboats/.test(prompt)
      ? JSON.stringify({ entities: [{ name: "Lifeboats", type: "object", description: "Boats the crew is told to man." }], relationships: [] })
      : JSON.stringify({ entities: [], relationships: [] });
  }
  if (/You build a knowledge graph from videos/.test(prompt)) {
    if (/nice ship/.test(prompt)) {
      return JSON.stringify({
        entities: [
          { name: "Ship", type: "object", description: "A ship that is lost; 'a nice ship we had once'." },
          { name: "Popeye", type: "person", description: "The sailor on the ship." },
        ],
        relationships: [{ source: "Popeye", target: "Ship", description: "Popeye sails on the ship", strength: 8 }],
      });
    }
    return JSON.stringify({ entities: [{ name: "Hildy", type: "person", description: "A reporter greeted at the door." }], relationships: [] });
  }
  if (/write the descriptions of entities/.test(prompt)) return "One synthesised description.";
  if (/extract search keywords/.test(prompt)) return JSON.stringify({ keywords: ["ship"] });
  if (/decide whether a video clip could help/.test(prompt)) return JSON.stringify({ relevant: /ship/.test(prompt.split("Clip:")[1] ?? "") });
  if (/Rewrite the question as one short sentence/.test(prompt)) return "a sinking ship at sea";
  return "The ship was lost [1].";
}

describe("a language model builds the graph and filters hybrid candidates", { skip: needsShared }, () => {
  let server: OpenAiTestServer;
  let library: Library;
  before(async () => {
    server = await startOpenAiTestServer({ reply });
    process.env.VIDEORAG_TEST_KEY = "sk-test";
    const config = liteConfig();
    config.models.llm = { provider: "openai", baseUrl: server.url, model: "test-model", apiKeyEnv: "VIDEORAG_TEST_KEY", acceptsImages: false };
    library = await openLibrary({ path: join(scratch, "hybrid"), config, speech: false, visual: false });
    const report = await library.ingest(["subtitled/friday.mp4", "subtitled/popeye_pgs.mkv"].map((file) => sharedPath("media", file)));
    assert.equal(report.failed, 0, JSON.stringify(report.results));
    for (const result of report.results) assert.match(result.notes.join(" "), /graph: \d+ chunks, \d+ entities, \d+ relations by openai:test-model, \d+ model calls/);
  });
  after(async () => {
    await library.close();
    await server.close();
    delete process.env.VIDEORAG_TEST_KEY;
  });

  test("entities come typed from the model, the gleaning pass adds what it missed, relations carry their strength", async () => {
    assert.equal((await library.entity("Popeye"))?.type, "person");
    assert.equal((await library.entity("ship"))?.type, "object");
    assert.equal((await library.entity("lifeboats"))?.type, "object", "added by gleaning");
    assert.equal((await library.entity("Hildy"))?.sources[0]?.description, "A reporter greeted at the door.");
    // One entity, one source: its description is that source's; no synthesis call is needed.
    assert.equal((await library.entity("ship"))?.description, "A ship that is lost; 'a nice ship we had once'.");
    const gleanings = server.requests.filter((request) => /MANY entities/.test(promptOf(request)));
    assert.ok(gleanings.length >= 2, "one gleaning pass per chunk");
  });

  test("hybrid asks the model about each candidate clip and keeps only those it judges relevant", async () => {
    const judged = server.requests.length;
    const answer = await library.ask("what happened to the ship after the squawk?");
    const verdicts = server.requests.slice(judged).filter((request) => /decide whether a video clip could help/.test(promptOf(request)));
    assert.ok(verdicts.length >= 1, "the filter ran");
    assert.equal(answer.mode, "hybrid");
    assert.ok(answer.moments && answer.moments.length > 0);
    // The excerpt's first clip holds only "[squawk]": BM25 finds it by that word, and the model rejects it. (The graph's
    // "Ship" chunk spans both clips, but the graph returns only the clip whose text holds its keyword.)
    assert.ok(verdicts.some((request) => !/ship/.test(promptOf(request).split("Clip:")[1] ?? "")), "a clip without the ship was judged");
    for (const moment of answer.moments) {
      assert.equal(moment.title, "popeye_pgs.mkv");
      assert.ok(moment.startSecond >= 30, `the rejected first clip is gone: ${moment.startSecond}–${moment.endSecond}`);
    }
    assert.ok(answer.moments[0]?.provenance?.some((found) => found.retriever === "graph" && found.entities?.includes("Ship")), JSON.stringify(answer.moments[0]?.provenance));
    assert.deepEqual(answer.warnings.filter((warning) => warning.type === "fallback"), []);
    assert.match(answer.text, /The ship was lost \[popeye_pgs\.mkv /);
  });
});
