// keyMatcher: the words of a text that are one of a question's keys, as termKey (or a language's key) makes them.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { eachMatch, keyMatcher, termKey, termKeyFor, tokenize, type KeyMatcher } from "./analyze-text.js";

const matches = (text: string, keys: string[], keyOf: (word: string) => string): string[] => {
  const match = keyMatcher(new Set(keys), keyOf);
  return tokenize(text).flatMap((word) => match(word) ?? []);
};

test("an English word is matched by its Porter key; words that are no key match nothing", () => {
  assert.deepEqual(matches("Replacing the brakes: replace each disc", ["replac", "brake", "disc"], termKey), ["replac", "brake", "replac", "disc"]);
  assert.deepEqual(matches("the mechanic loosens every bolt then replaces it", ["replac"], termKey), ["replac"]);
  assert.deepEqual(matches("nothing here", ["replac"], termKey), []);
});

test("another language's key is matched as that language keys it, accents folded", () => {
  const german = termKeyFor("de");
  assert.deepEqual(matches("Die Häuser am Fluss", [german("haus")], german), [german("haus")]);
  assert.deepEqual(matches("Die Häuser am Fluss", [german("fluss"), "xyz"], german), [german("fluss")]);
});

test("English keys keep their word's first letter, so the shortcut loses no match", () => {
  for (const word of ["happily", "relational", "yelling", "agreed", "sky", "ties", "café", "ñandú"]) {
    assert.equal(termKey(word)[0], word[0], word);
    assert.equal(keyMatcher(new Set([termKey(word)]), termKey)(word), termKey(word));
  }
});

/** The words `eachMatch` visits, with their keys, against each word of `tokenize` that the matcher keys. */
function bothWays(text: string, match: KeyMatcher): [visited: string[], tokenized: string[]] {
  const visited: string[] = [];
  eachMatch(text, match, (word, key) => visited.push(`${word}>${key}`));
  return [visited, tokenize(text).flatMap((word) => (match(word) === undefined ? [] : [`${word}>${match(word)}`]))];
}

test("eachMatch visits the words tokenize gives that the matcher keys, in order, ASCII text or not", () => {
  const english = keyMatcher(new Set(["replac", "brake", "3", "car", "don"]), termKey);
  for (const text of [
    "Replacing the BRAKES on a car's 3 wheels: don't replace 33 discs_then brake.",
    "",
    "car",
    "...car!!",
    "the café's brakes, replaced",
    "二つの brake と car",
    "CAR-PARK; cars\tcarried\nreplace",
  ]) {
    const [visited, tokenized] = bothWays(text, english);
    assert.deepEqual(visited, tokenized, text);
  }
  assert.deepEqual(bothWays("Replacing the brakes", english)[0], ["replacing>replac", "brakes>brake"]);
  // A matcher of another language's keys reads every word as tokenize does.
  const german = termKeyFor("de");
  assert.deepEqual(...bothWays("Die Häuser am Fluss", keyMatcher(new Set([german("haus")]), german)));
});

test("eachMatch agrees with tokenize on real transcripts", { skip: needsShared }, () => {
  const folder = sharedPath("datasets/howto-qa/transcripts");
  const files = readdirSync(folder).sort().slice(0, 150);
  const keys = ["replac", "brake", "water", "cut", "make", "tomato", "screw", "paint", "hold", "2"];
  let matched = 0;
  for (const file of files) {
    const text = readFileSync(`${folder}/${file}`, "utf8");
    const [visited, tokenized] = bothWays(text, keyMatcher(new Set(keys), termKey));
    assert.deepEqual(visited, tokenized, file);
    matched += visited.length;
  }
  assert.ok(matched > 1000, `${matched} words matched`);
});
