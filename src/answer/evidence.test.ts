import assert from "node:assert/strict";
import { test } from "node:test";
import { cutAtSentence, cutText } from "./evidence.js";

test("a quote is cut between sentences in any script: after 。 with no space, after a closing quote, not after an ellipsis", () => {
  const japanese = "京都の紅葉は十一月の終わりごろにとてもきれいになります。来週は雨が降るかもしれないので傘を持って出かけましょう。";
  assert.equal(cutText(japanese, 40), "京都の紅葉は十一月の終わりごろにとてもきれいになります。");
  assert.equal(cutAtSentence(japanese, 20), undefined, "not even the first sentence fits");
  assert.equal(cutText('He asked "why?" Then he left for the day.', 30), 'He asked "why?"');
  assert.equal(cutText("Well… it works. And then some more words", 30), "Well… it works.");
  assert.equal(cutText("Well… it works and then some more words", 30), "Well… it works and then some…");
});
