// The model path against a local OpenAI-compatible server whose replies depend on the request: the first extraction,
// the gleaning turn and the repair turn each get their own answer, so the tests see what the client sent and merged.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createOpenAiEmbedder, createOpenAiLanguageModel } from "../providers/openai-compatible/index.js";
import type { ClipDocument } from "../spec/index.js";
import { startOpenAiTestServer, type OpenAiTestServer, type RecordedRequest } from "../test-support/openai-test-server.js";
import { buildVideoGraph, extractEntitiesWithModel, synthesizeEntityDescription } from "./index.js";

interface SentMessage {
  role: string;
  content: string;
}

const messagesOf = (request: RecordedRequest) => (request.json.messages ?? []) as SentMessage[];
const lastUser = (request: RecordedRequest) => messagesOf(request).filter((message) => message.role === "user").pop()?.content ?? "";

const firstAnswer = {
  entities: [
    { name: "Popeye", type: "Person", description: "A sailor who eats spinach." },
    { name: "Sinbad", type: "person", description: "A sailor Popeye meets." },
    { name: "The Spinach", type: "object", description: null },
    { name: "  ", type: "object", description: "nameless" },
  ],
  relationships: [
    { source: "Popeye", target: "Sinbad", description: "Popeye meets Sinbad.", strength: 15 },
    { source: "Popeye", target: "Bluto", description: "Bluto is not an entity.", strength: 6 },
    { source: "Sinbad", target: "sinbad", description: "Itself.", strength: 3 },
    { source: "popeye's", target: "spinach", description: "Popeye eats it.", strength: 0 },
  ],
};
const gleanedAnswer = {
  entities: [
    { name: "Olive Oyl", type: "person", description: "Popeye's sweetheart." },
    { name: "popeye", type: "person", description: "Said again: ignored." },
  ],
  relations: [
    { source: "Olive Oyl", target: "Popeye", description: "She waits for him.", strength: "8" },
    { source: "Sinbad", target: "Popeye", description: "A rematch.", strength: 4 },
  ],
};

let server: OpenAiTestServer;
before(async () => {
  server = await startOpenAiTestServer({
    reply: (request) => {
      const said = lastUser(request);
      if (said.startsWith("Entity:")) return said.startsWith("Entity: Sinbad") ? "" : '"Popeye is a sailor who meets Sinbad and eats spinach."';
      if (said.startsWith("That reply is not valid")) return JSON.stringify(firstAnswer);
      if (said.startsWith("MANY entities")) {
        return messagesOf(request).some((message) => message.content.includes("GLEAN-BROKEN")) ? "no more JSON, sorry" : JSON.stringify(gleanedAnswer);
      }
      if (said.includes("MALFORMED")) return 'Here it is: {"entities": [{"name": "Popeye", "type": ';
      return JSON.stringify(firstAnswer);
    },
  });
});
after(() => server.close());

const model = () => createOpenAiLanguageModel({ baseUrl: server.url, model: "test-model" });
const chats = () => server.requests.filter((request) => request.path === "/v1/chat/completions");

test("entities and relations are extracted, gleaned, merged and cleaned", async () => {
  const before = chats().length;
  const result = await extractEntitiesWithModel(model(), "[0:00–0:30]\nSaid: Popeye the Sailor meets Sinbad.");

  assert.equal(result.calls, 2);
  assert.deepEqual(result.entities, [
    { name: "Popeye", type: "person", description: "A sailor who eats spinach." },
    { name: "Sinbad", type: "person", description: "A sailor Popeye meets." },
    { name: "The Spinach", type: "object", description: "" },
    { name: "Olive Oyl", type: "person", description: "Popeye's sweetheart." },
  ]);
  assert.deepEqual(result.relations, [
    { source: "Popeye", target: "Sinbad", description: "Popeye meets Sinbad.", strength: 10 },
    { source: "Popeye", target: "The Spinach", description: "Popeye eats it.", strength: 1 },
    { source: "Olive Oyl", target: "Popeye", description: "She waits for him.", strength: 8 },
  ]);

  const [first, gleaning] = chats().slice(before);
  assert.equal(first?.json.temperature, 0);
  assert.deepEqual(first?.json.response_format, { type: "json_object" });
  const prompt = lastUser(first as RecordedRequest);
  assert.match(prompt, /Entity types: person, organization, location, object, event, concept, action/);
  assert.match(prompt, /strength/);
  assert.match(prompt, /Said: Popeye the Sailor meets Sinbad\.$/);
  // Gleaning continues the same conversation: the first answer, then the request for what was missed.
  const turns = messagesOf(gleaning as RecordedRequest);
  assert.deepEqual(turns.map((message) => message.role), ["system", "user", "assistant", "user"]);
  assert.equal(turns[1]?.content, prompt);
  assert.match(turns[2]?.content ?? "", /"name":"Popeye"/);
  assert.match(turns[3]?.content ?? "", /^MANY entities and relationships were missed/);
});

test("without gleaning there is one call, and the entity types asked for are the caller's", async () => {
  const before = chats().length;
  const result = await extractEntitiesWithModel(model(), "Said: Popeye.", { glean: false, entityTypes: ["person", "vehicle"] });
  assert.equal(result.calls, 1);
  assert.equal(result.entities.length, 3);
  assert.equal(chats().length - before, 1);
  assert.match(lastUser(chats().at(-1) as RecordedRequest), /Entity types: person, vehicle\n/);
});

test("a malformed first answer is repaired in one more turn, and a gleaning that stays invalid is ignored", async () => {
  const before = chats().length;
  const repaired = await extractEntitiesWithModel(model(), "Said: MALFORMED text.");
  assert.equal(repaired.calls, 3);
  assert.equal(repaired.entities.length, 4);
  const sent = chats().slice(before);
  assert.match(lastUser(sent[1] as RecordedRequest), /^That reply is not valid: it is not JSON/);
  assert.match(lastUser(sent[2] as RecordedRequest), /^MANY entities/);

  const stuck = await extractEntitiesWithModel(model(), "Said: GLEAN-BROKEN text.");
  assert.equal(stuck.calls, 3, "first answer, gleaning, its repair");
  assert.deepEqual(
    stuck.entities.map((entity) => entity.name),
    ["Popeye", "Sinbad", "The Spinach"],
  );
});

test("a video's graph through the model: chunks, keyed entities and relations, entity vectors, calls and progress", async () => {
  const clips: ClipDocument[] = [0, 1, 2].map((index) => ({
    videoId: "v",
    index,
    startSecond: index * 30,
    endSecond: index * 30 + 30,
    transcript: index === 1 ? "" : `Popeye the Sailor meets Sinbad, part ${index}. `.repeat(20),
    screen: "",
    visual: "",
  }));
  const embedder = createOpenAiEmbedder({ baseUrl: server.url, model: "test-embedder", dimensions: 32, maxBatchSize: 3 });
  const progress: string[] = [];
  const { graph, modelCalls } = await buildVideoGraph(clips, {
    model: model(),
    embedder,
    maxTokens: 200,
    onProgress: (done, total) => progress.push(`${done}/${total}`),
  });

  assert.equal(graph.extractor, "openai:test-model");
  assert.deepEqual(graph.chunks.map((chunk) => [chunk.clipStart, chunk.clipEnd]), [[0, 0], [1, 2]]);
  assert.deepEqual(progress, ["1/2", "2/2"]);
  assert.equal(graph.extractions.length, 2);
  const [first] = graph.extractions;
  assert.deepEqual(first?.entities.map((entity) => entity.nameKey), ["popeye", "sinbad", "spinach", "olive oyl"]);
  assert.deepEqual(
    first?.relations.map((relation) => [relation.sourceKey, relation.targetKey, relation.strength]),
    [["popeye", "sinbad", 10], ["popeye", "spinach", 1], ["olive oyl", "popeye", 8]],
  );
  // Four distinct entities in the video, embedded once each, in two batches of at most three.
  assert.equal(graph.entityVectorSpace, "entity:openai:test-embedder");
  assert.deepEqual(graph.entityVectors?.map((entry) => entry.nameKey), ["popeye", "sinbad", "spinach", "olive oyl"]);
  assert.ok(graph.entityVectors?.every((entry) => entry.vector.length === 32));
  const embedded = server.requests.filter((request) => request.path === "/v1/embeddings").flatMap((request) => request.json.input as string[]);
  assert.deepEqual(embedded, ["Popeye (person)", "Sinbad (person)", "The Spinach (object)", "Olive Oyl (person)"]);
  assert.equal(modelCalls, 2 * 2 + 2);
});

test("an entity's descriptions are synthesised into one by the model, or joined when it answers with nothing", async () => {
  const descriptions = ["A sailor who eats spinach.", "A sailor who eats spinach.", "Meets Sinbad at sea."];
  const description = await synthesizeEntityDescription(model(), { name: "Popeye", type: "person" }, descriptions);
  assert.equal(description, "Popeye is a sailor who meets Sinbad and eats spinach.");
  const prompt = lastUser(chats().at(-1) as RecordedRequest);
  assert.match(prompt, /^Entity: Popeye \(person\)\n/);
  assert.equal(prompt.match(/A sailor who eats spinach\./g)?.length, 1, "duplicates are quoted once");
  assert.match(prompt, /- Meets Sinbad at sea\./);
  assert.match(prompt, /contradict/);

  const fallback = await synthesizeEntityDescription(model(), { name: "Sinbad", type: "person" }, ["A sailor.", "Popeye's rival."]);
  assert.equal(fallback, "A sailor. · Popeye's rival.");
  const before = chats().length;
  assert.equal(await synthesizeEntityDescription(model(), { name: "Nobody", type: "person" }, [" ", ""]), "");
  assert.equal(chats().length, before, "nothing to describe, no call");
});
