import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChatMessage, ClipDocument, LanguageModel, TextEmbedder } from "../spec/index.js";
import { VideoRagError } from "../spec/index.js";
import { buildLiteVideoGraph, buildVideoGraph, entityNameKey } from "./index.js";

function clip(index: number, transcript: string, screen = "", visual = ""): ClipDocument {
  return { videoId: "v", index, startSecond: index * 10, endSecond: index * 10 + 10, transcript, screen, visual };
}

const clips = [
  clip(0, "Popeye the Sailor meets Sinbad on the island. Sinbad laughs at the disc brakes.", "", "boat (vehicle)"),
  clip(1, ""),
  clip(2, "Popeye fixes the disc brake with Olive Oyl. The disc brakes squeal.", "DISC BRAKE REPAIR"),
  clip(3, "Sinbad and Popeye race the boats around the island."),
];

/** A LanguageModel answering every call with the same JSON, recording the calls. */
function fixedModel(answer: unknown) {
  const calls: ChatMessage[][] = [];
  const model: LanguageModel = {
    id: "fixed-model",
    capabilities: { maxBatchSize: 1, maxConcurrency: 2, acceptsImages: false, maxImages: 0, jsonOutput: true },
    async chat(messages) {
      calls.push(messages);
      return { text: JSON.stringify(answer) };
    },
    async *stream() {
      yield JSON.stringify(answer);
    },
  };
  return { model, calls };
}

test("the lite graph keys every entity and relation, and reads no labels or times as entities", () => {
  const graph = buildLiteVideoGraph(clips, { maxTokens: 60 });
  assert.equal(graph.extractor, "lite-entities@3");
  assert.ok(graph.chunks.length >= 2);
  assert.equal(graph.entityVectors, undefined);
  const keys = graph.extractions.flatMap((extraction) => extraction.entities.map((entity) => entity.nameKey));
  assert.ok(keys.includes("sinbad") && keys.includes("disc brake"), keys.join(", "));
  assert.ok(!keys.some((key) => /^(?:said|seen|screen|on screen|0|10)$/.test(key)), keys.join(", "));
  for (const extraction of graph.extractions) {
    assert.ok(graph.chunks.some((chunk) => chunk.index === extraction.chunkIndex));
    const chunkKeys = extraction.entities.map((entity) => entity.nameKey);
    assert.equal(new Set(chunkKeys).size, chunkKeys.length, "an entity appears once per chunk");
    for (const entity of extraction.entities) assert.equal(entity.nameKey, entityNameKey(entity.name));
    for (const relation of extraction.relations) {
      assert.ok(chunkKeys.includes(relation.sourceKey) && chunkKeys.includes(relation.targetKey));
      assert.notEqual(relation.sourceKey, relation.targetKey);
      assert.equal(relation.sourceKey, entityNameKey(relation.source));
    }
  }
});

test("without a model the async builder gives the lite graph, plus entity vectors when an embedder is given", async () => {
  const texts: string[][] = [];
  const embedder: TextEmbedder = {
    id: "tiny-embedder",
    capabilities: { maxBatchSize: 4, maxConcurrency: 1, dimensions: 2 },
    async embed(batch) {
      texts.push(batch);
      return batch.map((_, index) => new Float32Array([1, index]));
    },
  };
  const { graph, modelCalls } = await buildVideoGraph(clips, { maxTokens: 60, embedder });
  const lite = buildLiteVideoGraph(clips, { maxTokens: 60 });
  assert.deepEqual({ ...graph, entityVectors: undefined, entityVectorSpace: undefined }, { ...lite, entityVectors: undefined, entityVectorSpace: undefined });

  const distinct = new Set(lite.extractions.flatMap((extraction) => extraction.entities.map((entity) => entity.nameKey)));
  assert.equal(graph.entityVectorSpace, "entity:tiny-embedder");
  assert.deepEqual(new Set(graph.entityVectors?.map((entry) => entry.nameKey)), distinct);
  assert.equal(graph.entityVectors?.length, distinct.size);
  assert.ok(texts.every((batch) => batch.length <= 4));
  assert.equal(modelCalls, texts.length);
  assert.ok(texts.flat().includes("Sinbad (name)"));
});

test("with a model, an entity named twice in a chunk merges (first description kept) and relations to vanished or equal endpoints are dropped", async () => {
  const { model, calls } = fixedModel({
    entities: [
      { name: "The Brakes", type: "object", description: "They squeal." },
      { name: "brake", type: "object", description: "Popeye fixes it." },
      { name: "Popeye", type: "person", description: "A sailor." },
      { name: "The", type: "concept", description: "Nothing left once normalised." },
    ],
    relationships: [
      { source: "Popeye", target: "brake", description: "Popeye fixes the brake.", strength: 9 },
      { source: "brakes", target: "Popeye", description: "Again.", strength: 4 },
      { source: "The Brakes", target: "brake", description: "Itself.", strength: 5 },
      { source: "Popeye", target: "The", description: "Vanished.", strength: 5 },
    ],
  });
  const { graph, modelCalls } = await buildVideoGraph(clips, { model, maxTokens: 60, glean: false });
  assert.equal(graph.extractor, "fixed-model");
  assert.equal(modelCalls, graph.chunks.length);
  assert.equal(calls.length, graph.chunks.length);
  for (const extraction of graph.extractions) {
    assert.deepEqual(extraction.entities, [
      { name: "The Brakes", type: "object", description: "They squeal.", nameKey: "brake" },
      { name: "Popeye", type: "person", description: "A sailor.", nameKey: "popeye" },
    ]);
    assert.deepEqual(extraction.relations, [
      {
        source: "Popeye",
        target: "The Brakes",
        description: "Popeye fixes the brake.",
        strength: 9,
        sourceKey: "popeye",
        targetKey: "brake",
      },
    ]);
  }
});

test("an aborted build stops with INTERRUPTED", async () => {
  const { model } = fixedModel({ entities: [] });
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    buildVideoGraph(clips, { model, signal: controller.signal }),
    (error: unknown) => VideoRagError.isInstance(error) && error.code === "INTERRUPTED",
  );
});

test("a German video's lite graph is read by German rules: capitalised nouns are concepts, articles and verbs nothing", () => {
  const clip = { videoId: "v", index: 0, startSecond: 0, endSecond: 30, transcript: "Die Häuser am Fluss gehören Angela Merkel. Die Schiffe warten im Hafen, und Angela Merkel winkt.", screen: "", visual: "" };
  const entities = (language?: string) =>
    buildLiteVideoGraph([clip], { language }).extractions.flatMap((extraction) => extraction.entities.map((entity) => `${entity.nameKey}: ${entity.type}`)).sort();
  // By English rules "Die Häuser" is a name and "und" a concept.
  assert.ok(entities().includes("die häuser: name") && entities().includes("und: concept"), entities().join(", "));
  assert.deepEqual(entities("de"), ["angela merkel: name", "fluss: concept", "hafen: concept", "häuser: concept", "schiffe: concept"]);
});
