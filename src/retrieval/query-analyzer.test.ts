// The query analyzer: what a question is reduced to before it reaches the index.

import assert from "node:assert/strict";
import { test } from "node:test";
import { analyzeQuery, analyzeQuestion, analyzeText, questionLanguage, termKey, tokenize } from "./query-analyzer.js";

test("a how-to question keeps its subject and drops the framing", () => {
  assert.deepEqual(analyzeText("What is a common sequence of steps for replacing a car's brake disc?"), [
    "replacing",
    "car",
    "brake",
    "disc",
  ]);
  assert.deepEqual(analyzeText("After removing the wheel, what is usually the next step?"), ["removing", "wheel"]);
});

test("framing words stay when too little else is left, so short queries still search", () => {
  assert.deepEqual(analyzeText("key"), ["key"]);
  assert.deepEqual(analyzeText("the first steps"), ["first", "steps"]);
  assert.deepEqual(analyzeText("cutting a key"), ["cutting", "key"]);
  assert.deepEqual(analyzeText("what is it?"), []);
});

test("terms are weighted by repetition; quoted phrases are kept as phrases", () => {
  const query = analyzeQuery('Why "disc brake" and not drum brake?');
  assert.deepEqual(query.terms, [
    { text: "disc", weight: 1 },
    { text: "brake", weight: 2 },
    { text: "drum", weight: 1 },
  ]);
  assert.deepEqual(query.phrases, ["disc brake"]);
});

test("tokens split like the index's tokenizer: accents and digits kept, punctuation dropped", () => {
  assert.deepEqual(tokenize("Crème brûlée, 3 eggs & 200g sugar!"), ["crème", "brûlée", "3", "eggs", "200g", "sugar"]);
  assert.deepEqual(analyzeText("3 eggs"), ["3", "eggs"]);
});

test("termKey matches inflections of one word and keeps different words apart", () => {
  assert.equal(termKey("replacing"), termKey("replaced"));
  assert.equal(termKey("replace"), termKey("replaces"));
  assert.equal(termKey("cutting"), termKey("cut"));
  assert.equal(termKey("berries"), termKey("berry"));
  assert.equal(termKey("glass"), "glass");
  assert.notEqual(termKey("brake"), termKey("bread"));
});

test("a question in another language drops that language's stop words and keeps its content words", async () => {
  const german = await analyzeQuestion("Wo sind die Häuser am Fluss?");
  assert.equal(german.language, "de");
  assert.deepEqual(german.terms.map((term) => term.text), ["häuser", "fluss"]);
  const french = await analyzeQuestion("Où est la maison près de la rivière ?");
  assert.equal(french.language, "fr");
  assert.deepEqual(french.terms.map((term) => term.text), ["maison", "rivière"]);
  const spanish = await analyzeQuestion("¿Dónde están las casas junto al río?");
  assert.equal(spanish.language, "es");
  assert.deepEqual(spanish.terms.map((term) => term.text), ["casas", "río"]);
  // Elided forms are stop words as the tokenizer splits them ("qu'est-ce" → qu, est, ce; "l'enfant" → l, enfant).
  assert.deepEqual(analyzeText("Qu'est-ce que l'enfant mange aujourd'hui ?", "fr"), ["enfant", "mange"]);
  // English function words are not the test for German ones: "Most" (cider) is an English stop word, a German noun.
  assert.deepEqual(analyzeText("Wo wird der Most gepresst?", "de"), ["most", "gepresst"]);
  assert.deepEqual(analyzeText("Wo wird der Most gepresst?"), ["wo", "wird", "der", "gepresst"]);
});

test("a language's broad stop list never leaves a question one word, and English keeps its own lists exactly", () => {
  // stopwords-iso's German list holds "mann"; with one word or none left the question keeps its words (BM25 weighs them).
  assert.deepEqual(analyzeText("Wann kommt der Mann?", "de"), ["wann", "kommt", "der", "mann"]);
  assert.deepEqual(analyzeText("Wo ist der Schlüssel?", "de"), ["wo", "ist", "der", "schlüssel"]);
  assert.deepEqual(analyzeText("Wo ist der Schlüssel für das Haus?", "de"), ["schlüssel", "haus"]);
  const english = "What is a common sequence of steps for replacing a car's brake disc?";
  assert.deepEqual(analyzeText(english, "en"), analyzeText(english));
  assert.deepEqual(analyzeQuery(english, undefined), analyzeQuery(english));
  // A language stopwords-iso has no list for keeps every word.
  assert.deepEqual(analyzeText("Ble mae'r allwedd?", "cy"), ["ble", "mae", "allwedd"]);
});

test("a question's language is identified once and then taken as given; English is searched with no language", async () => {
  assert.equal(await questionLanguage("How do I replace the brake disc?"), "en");
  assert.equal(await questionLanguage("Wo sind die Häuser am Fluss?"), "de");
  assert.equal(await questionLanguage("Fluss?"), "en", "too short to tell");
  // A language the caller identified is not identified again: told English, a German question is read as English.
  assert.equal((await analyzeQuestion("Wo sind die Häuser am Fluss?", "en")).language, undefined);
  assert.equal((await analyzeQuestion("Wo sind die Häuser am Fluss?", "de")).language, "de");
  const english = "How do I replace the brake disc?";
  assert.deepEqual(analyzeQuery(english, "en"), analyzeQuery(english));
  assert.equal("language" in analyzeQuery(english, "en"), false, "the store is given no language for English");
});
