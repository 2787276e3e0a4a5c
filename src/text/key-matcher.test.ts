// keyMatcher: the words of a text that are one of a question's keys, as termKey (or a language's key) makes them.

import assert from "node:assert/strict";
import { test } from "node:test";
import { keyMatcher, termKey, termKeyFor, tokenize } from "./analyze-text.js";

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
