import assert from "node:assert/strict";
import { test } from "node:test";
import { liteEntityDescription } from "./index.js";

test("distinct descriptions are joined once each, near-duplicates and empty ones dropped", () => {
  assert.equal(
    liteEntityDescription([
      "A sailor who eats spinach.",
      "  a sailor who EATS spinach ",
      "",
      "Meets Sinbad at sea.",
      "A sailor.",
      "Meets  Sinbad at sea, twice.",
    ]),
    "A sailor who eats spinach. · Meets Sinbad at sea, twice.",
  );
  assert.equal(liteEntityDescription([]), "");
  assert.equal(liteEntityDescription(["  ", "\n"]), "");
});

test("the joined description stops near 400 characters, between words", () => {
  const many = Array.from({ length: 30 }, (_, index) => `Description number ${index} says something new about topic t${index}.`);
  const joined = liteEntityDescription(many);
  assert.ok(joined.length <= 400, `${joined.length} characters`);
  assert.ok(joined.length > 300);
  assert.match(joined, /^Description number 0 says/);
  assert.match(joined, /(?:\.|…)$/);
  assert.doesNotMatch(joined, /\s…$/);

  const one = liteEntityDescription([`${"word ".repeat(150)}end.`]);
  assert.ok(one.length <= 400);
  assert.match(one, /^word word .*word…$/);
});
