import assert from "node:assert/strict";
import { test } from "node:test";
import { cleanSpoken } from "./spoken-text.js";

test("spoken text reads as a sentence: fillers and stutters out, a capital first, a full stop only where no script's end is", () => {
  assert.equal(cleanSpoken("uh so the the bolt goes in"), "So the bolt goes in.");
  assert.equal(cleanSpoken('he said "go"'), 'He said "go"');
  assert.equal(cleanSpoken("傘を持って出かけましょう。"), "傘を持って出かけましょう。");
  assert.equal(cleanSpoken("「行きます。」"), "「行きます。」");
  assert.equal(cleanSpoken("क्या आप आएंगे?"), "क्या आप आएंगे?");
});
