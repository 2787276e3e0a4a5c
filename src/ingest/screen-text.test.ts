import assert from "node:assert/strict";
import { test } from "node:test";
import { mergeScreenText, textSimilarity } from "./screen-text.js";

test("a slide read on many frames becomes one segment spanning them", () => {
  const segments = mergeScreenText(
    [
      { timeSecond: 0, lines: ["Why not pgvector?", "Needs a running Postgres server"] },
      { timeSecond: 5, lines: ["Why not pgvector?", "Needs a running Postgres serer"] },
      { timeSecond: 10, lines: ["Why not pgvector?", "Needs a running Postgres server"] },
      { timeSecond: 15, lines: ["Backups", "Copy one file"] },
      { timeSecond: 20, lines: [] },
    ],
    30,
  );
  assert.deepEqual(
    segments.map(({ startSecond, endSecond, source }) => ({ startSecond, endSecond, source })),
    [
      { startSecond: 0, endSecond: 15, source: "screen" },
      { startSecond: 15, endSecond: 20, source: "screen" },
    ],
  );
  assert.match(segments[0]?.text ?? "", /pgvector/);
});

test("text that disappears and comes back is two segments", () => {
  const segments = mergeScreenText(
    [
      { timeSecond: 0, lines: ["Chapter one"] },
      { timeSecond: 4, lines: [] },
      { timeSecond: 8, lines: ["Chapter one"] },
    ],
    12,
  );
  assert.deepEqual(segments.map((segment) => [segment.startSecond, segment.endSecond]), [[0, 4], [8, 12]]);
});

test("similarity ignores case and punctuation", () => {
  assert.equal(textSimilarity("Hello, World", "hello world"), 1);
  assert.ok(textSimilarity("opening hours", "tickets adults") < 0.1);
});
