import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { extractLiteEntities } from "./index.js";

const transcriptsDir = () => sharedPath("datasets", "howto-qa", "transcripts");
const transcriptFiles = () =>
  readdirSync(transcriptsDir())
    .filter((name) => name.endsWith(".txt"))
    .sort();

test("capitalised names are found, and a capitalised common word starting a sentence is not one", () => {
  const { entities, relations } = extractLiteEntities("Popeye the Sailor meets Sinbad. Sinbad laughs. Cut the rope, said Olive Oyl.");
  const byName = new Map(entities.map((entity) => [entity.name, entity]));
  assert.equal(byName.get("Sinbad")?.type, "name");
  assert.equal(byName.get("Popeye the Sailor")?.type, "name");
  assert.equal(byName.get("Olive Oyl")?.type, "name");
  assert.equal(byName.get("Sinbad")?.description, "Popeye the Sailor meets Sinbad.");
  assert.ok(!entities.some((entity) => /^(?:Cut|The|Popeye)$/.test(entity.name)), entities.map((entity) => entity.name).join(", "));
  assert.equal(byName.get("rope")?.type, "concept");
  assert.deepEqual(
    relations.find((relation) => relation.source === "Popeye the Sailor" && relation.target === "Sinbad"),
    { source: "Popeye the Sailor", target: "Sinbad", description: "mentioned together: Popeye the Sailor meets Sinbad.", strength: 1 },
  );
});

test("repeated phrases outrank their words, verbs and fillers are no phrases, and strength counts sentences", () => {
  const text =
    "The disc brake needs new brake pads. Check the brake pads every month. " +
    "Worn brake pads damage the disc brake. Really, you should just replace the brake pads.";
  const { entities, relations } = extractLiteEntities(text, { maxEntities: 4 });
  assert.deepEqual(entities.map((entity) => entity.name).slice(0, 2), ["brake pads", "disc brake"]);
  assert.equal(entities.length, 4);
  assert.ok(!entities.some((entity) => /\b(?:really|just|replace|needs|should)\b/.test(entity.name)));
  const pair = relations.find((relation) => [relation.source, relation.target].sort().join("+") === "brake pads+disc brake");
  assert.equal(pair?.strength, 2);
  assert.equal(pair?.description, "mentioned together: The disc brake needs new brake pads.");
  assert.ok(relations.length <= 3 * entities.length);
});

test("the same text gives the same entities and relations", () => {
  const text = "Sinbad sails to Baghdad. Popeye follows Sinbad to Baghdad with spinach and a boat.";
  assert.deepEqual(extractLiteEntities(text), extractLiteEntities(text));
  assert.deepEqual(extractLiteEntities(""), { entities: [], relations: [] });
});

test("a real lowercase transcript without punctuation yields its subject's phrases", { skip: needsShared }, () => {
  const first = transcriptFiles()[0] as string;
  assert.equal(first, "-1KSBqYHfOg.txt");
  const text = readFileSync(join(transcriptsDir(), first), "utf8");
  const { entities, relations } = extractLiteEntities(text);
  const names = entities.map((entity) => entity.name);
  assert.equal(names[0], "boundary survey");
  for (const phrase of ["property", "yellow line", "angle iron", "buyer", "seller"]) assert.ok(names.includes(phrase), `${phrase} in ${names.join(", ")}`);
  assert.ok(names.includes("Higby Road"), "a capitalised place name inside lowercase speech");
  assert.ok(!names.some((name) => /^(?:uh|going|really|things?|lot)$/i.test(name)), names.join(", "));
  assert.equal(entities.length, 20);

  const survey = entities[0];
  assert.match(survey?.description ?? "", /boundary surveys/);
  for (const entity of entities) assert.ok(entity.description.length <= 202, entity.description);
  // Unpunctuated speech is related within windows of ~25 words, so descriptions stay short.
  const known = new Set(names);
  assert.ok(relations.length > 10 && relations.length <= 60);
  for (const relation of relations) {
    assert.ok(known.has(relation.source) && known.has(relation.target));
    assert.ok(relation.strength >= 1 && relation.strength <= 10);
    assert.match(relation.description, /^mentioned together: /);
    assert.ok(relation.description.length <= 230, relation.description);
  }
  assert.deepEqual(
    relations.map((relation) => relation.strength),
    relations.map((relation) => relation.strength).sort((a, b) => b - a),
  );
});

test("it reads the first 200 transcripts of the corpus quickly", { skip: needsShared }, () => {
  const texts = transcriptFiles()
    .slice(0, 200)
    .map((name) => readFileSync(join(transcriptsDir(), name), "utf8"));
  assert.equal(texts.length, 200);
  const words = texts.reduce((sum, text) => sum + text.split(/\s+/).filter(Boolean).length, 0);
  // Twice: the first pass also compiles the code and fills the per-word memo, the second is the rate over a long ingest.
  for (const pass of ["first pass", "second pass"]) {
    const started = performance.now();
    let entities = 0;
    for (const text of texts) {
      const result = extractLiteEntities(text);
      assert.ok(result.entities.length <= 20 && result.relations.length <= 60);
      entities += result.entities.length;
    }
    const milliseconds = performance.now() - started;
    assert.ok(entities > 200 * 10, "most transcripts yield a full list");
    console.log(`lite extraction, ${pass}: ${words} words in ${milliseconds.toFixed(0)} ms, ${(words / milliseconds).toFixed(0)} words/ms`);
  }
});
