// The words pocketsphinx listens for: the language model's likeliest, read from Debian's en-us model, and the pronouncing
// dictionary cut down to them.

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { likeliestWords, restrictedDictionary } from "./pocketsphinx-vocabulary.js";

const modelDir = "/usr/share/pocketsphinx/model/en-us";
const languageModel = join(modelDir, "en-us.lm.bin");
const dictionary = join(modelDir, "cmudict-en-us.dict");
const needsModel = existsSync(languageModel) && existsSync(dictionary) ? false : "Debian's pocketsphinx-en-us model is not installed (apt-get install pocketsphinx-en-us)";

const workDir = mkdtempSync(join(tmpdir(), "videorag-vocabulary-test-"));
after(() => rmSync(workDir, { recursive: true, force: true }));

const headwords = (path: string): Set<string> =>
  new Set(
    readFileSync(path, "latin1")
      .split("\n")
      .filter(Boolean)
      .map((line) => line.slice(0, line.indexOf(" ")).replace(/\(\d+\)$/, "")),
  );

test("the likeliest words of Debian's en-us model come first, the rarest are left out", { skip: needsModel }, async () => {
  const words = await likeliestWords(languageModel, 20_000);
  assert.ok(words);
  assert.equal(words.length, 20_000);
  assert.equal(new Set(words).size, words.length);
  // Sentence marks are not words anyone says.
  assert.ok(!words.includes("<s>") && !words.includes("</s>"));
  for (const common of ["the", "and", "you"]) assert.ok(words.indexOf(common) < 20, `${common} at ${words.indexOf(common)}`);
  for (const howTo of ["water", "paint", "screw", "recipe"]) assert.ok(words.includes(howTo), howTo);
  // In the model (72,547 words) but far from its likeliest.
  assert.ok(!words.includes("zyuganov"));
});

test("a file that is not a binary trie model gives no words", { skip: needsModel }, async () => {
  assert.equal(await likeliestWords(dictionary, 100), undefined);
  const arpa = join(workDir, "tiny.lm");
  writeFileSync(arpa, "\\data\\\nngram 1=3\n\n\\1-grams:\n-1.0\t<s>\t0\n-1.0\t</s>\t0\n-0.5\thello\t0\n\n\\end\\\n");
  assert.equal(await likeliestWords(arpa, 100), undefined);
});

test("the restricted dictionary keeps every pronunciation of its words, is written once and reused", { skip: needsModel }, async () => {
  const folder = join(workDir, "dictionaries");
  const path = await restrictedDictionary(dictionary, languageModel, 5_000, folder);
  assert.ok(path);
  const kept = headwords(path);
  const words = await likeliestWords(languageModel, 5_000);
  // A few likeliest words have no pronunciation in the dictionary; every other one is kept.
  assert.ok(kept.size >= 4_990 && kept.size <= 5_000, `${kept.size} words`);
  for (const word of kept) assert.ok(words?.includes(word), word);
  // "a" is said two ways, and both stay.
  const lines = readFileSync(path, "latin1").split("\n");
  assert.ok(lines.some((line) => line.startsWith("a ")) && lines.some((line) => line.startsWith("a(2) ")));
  const written = statSync(path).mtimeMs;
  assert.equal(await restrictedDictionary(dictionary, languageModel, 5_000, folder), path);
  assert.equal(statSync(path).mtimeMs, written);
  // Another size is another file; nothing half-written is left behind.
  assert.notEqual(await restrictedDictionary(dictionary, languageModel, 6_000, folder), path);
  assert.deepEqual(readdirSync(folder).filter((name) => name.endsWith(".partial")), []);
});

test("a language model that is not the dictionary's gives no restricted dictionary", { skip: needsModel }, async () => {
  // Debian's phone model is a binary trie of phones, which the word dictionary does not hold.
  assert.equal(await restrictedDictionary(dictionary, join(modelDir, "en-us-phone.lm.bin"), 1_000, join(workDir, "phones")), undefined);
});
