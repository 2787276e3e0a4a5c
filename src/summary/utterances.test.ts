import assert from "node:assert/strict";
import { test } from "node:test";
import type { Segment } from "../spec/index.js";
import { buildUtterances } from "./utterances.js";

const cues = (texts: string[]): Segment[] =>
  texts.map((text, index) => ({ startSecond: index * 3, endSecond: index * 3 + 2.5, text, source: "subtitle" }));

test("Japanese subtitle cues merge into whole sentences: they end at 。 and run on without a space", () => {
  const utterances = buildUtterances(cues(["京都の紅葉は十一月の終わりごろに", "とてもきれいになります。", "来週は雨が降るかもしれないので", "傘を持って出かけましょう。"]), {
    minWords: 8,
    maxWords: 25,
    pauseSeconds: 1.5,
  });
  assert.deepEqual(
    utterances.map((utterance) => [utterance.text, utterance.startSecond, utterance.endSecond]),
    [
      ["京都の紅葉は十一月の終わりごろにとてもきれいになります。", 0, 5.5],
      ["来週は雨が降るかもしれないので傘を持って出かけましょう。", 6, 11.5],
    ],
  );
});

test("English cues still close at a sentence end once long enough, joined by spaces", () => {
  const utterances = buildUtterances(cues(["first you loosen the lug nuts on", "the wheel with the wrench.", "then jack it up", "until the tire is off the ground."]), {
    minWords: 8,
    maxWords: 25,
    pauseSeconds: 1.5,
  });
  assert.deepEqual(utterances.map((utterance) => [utterance.text, utterance.words]), [
    ["first you loosen the lug nuts on the wheel with the wrench.", 12],
    ["then jack it up until the tire is off the ground.", 11],
  ]);
});
