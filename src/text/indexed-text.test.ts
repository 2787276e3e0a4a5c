import assert from "node:assert/strict";
import { test } from "node:test";
import { tokenize } from "./analyze-text.js";
import { hasCjk, indexedText } from "./indexed-text.js";

test("CJK runs are indexed as overlapping pairs; other text is left exactly as it is", () => {
  assert.equal(indexedText("東京の天気"), " 東京 京の の天 天気 ");
  assert.equal(indexedText("Tokyo 東 trip"), "Tokyo  東  trip");
  assert.equal(indexedText("한국어 공부"), " 한국 국어   공부 ");
  const english = "Replace the brake pads, then bleed the brakes — 3 times!";
  assert.equal(indexedText(english), english);
  assert.ok(hasCjk("カタカナ") && hasCjk("漢字") && !hasCjk("Größe"));
  assert.deepEqual(tokenize("我们去东京"), ["我们", "们去", "去东", "东京"]);
  assert.deepEqual(tokenize("Where's the key?"), ["where", "s", "the", "key"]);
});

test("text in a language Snowball stems is indexed by its stems; English and unknown languages are left as they are", () => {
  assert.equal(indexedText("Die Häuser am Fluss", "de"), "die haus am fluss");
  assert.equal(indexedText("Les maisons", "fr"), "le maison");
  assert.equal(indexedText("The houses", "en"), "The houses");
  assert.equal(indexedText("The houses"), "The houses");
  assert.equal(indexedText("東京の天気", "ja"), " 東京 京の の天 天気 ");
});
