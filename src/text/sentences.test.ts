import assert from "node:assert/strict";
import { test } from "node:test";
import { countWords, endsSentence, isSentenceEnd, joinLines, sentenceBreaks, splitSentences } from "./sentences.js";

test("sentences end at English, Chinese and Japanese marks, those of CJK with no space after them", () => {
  assert.deepEqual(splitSentences("東京タワーは港区にあります。高さは333メートルです！本当？はい。"), [
    "東京タワーは港区にあります。",
    "高さは333メートルです！",
    "本当？",
    "はい。",
  ]);
  assert.deepEqual(splitSentences("我们在北京。长城很长！"), ["我们在北京。", "长城很长！"]);
  assert.deepEqual(splitSentences("「行きます。」と彼は言った。"), ["「行きます。」", "と彼は言った。"]);
  assert.deepEqual(splitSentences('Wo ist er? Er sagte: "Hier." Gut… Version 2.5 kommt.'), ["Wo ist er?", 'Er sagte: "Hier."', "Gut…", "Version 2.5 kommt."]);
  assert.deepEqual(splitSentences("क्या आप आएंगे? हाँ। ठीक है।"), ["क्या आप आएंगे?", "हाँ।", "ठीक है।"]);
  assert.ok(isSentenceEnd("。".charCodeAt(0)) && isSentenceEnd("？".charCodeAt(0)) && isSentenceEnd(".".charCodeAt(0)));
  assert.ok(!isSentenceEnd("、".charCodeAt(0)) && !isSentenceEnd(",".charCodeAt(0)));
});

test("a text may be cut after each sentence end another sentence follows, in any script", () => {
  const japanese = "東京です。「大阪へ行きます。」はい";
  assert.deepEqual(sentenceBreaks(japanese).map((end) => japanese.slice(0, end)), ["東京です。", "東京です。「大阪へ行きます。」"]);
  const english = 'He asked "why?" Then he left. Version 2.5 is out';
  assert.deepEqual(sentenceBreaks(english).map((end) => english.slice(0, end)), ['He asked "why?"', 'He asked "why?" Then he left.']);
  assert.ok(endsSentence("来週は晴れるでしょう。") && endsSentence("「行きます。」 ") && endsSentence('He left."'));
  assert.ok(!endsSentence("京都の紅葉は") && !endsSentence("the bolt") && !endsSentence(""));
});

test("Chinese and Japanese lines run on without a space; their words count one per two characters", () => {
  assert.equal(joinLines(["京都の紅葉は", "きれいです。", "来週は", "Next line", "and more"]), "京都の紅葉はきれいです。来週は Next line and more");
  assert.equal(joinLines(["the bolt", "goes in"]), "the bolt goes in");
  assert.equal(countWords("  ten words\nspread over\tlines and  spaces of text here "), 10);
  assert.equal(countWords("京都の紅葉はきれいです。"), 6);
  assert.equal(countWords("東京タワー is 333 m"), 6);
  assert.equal(countWords("한국어 문장입니다"), 2, "Korean spaces its words");
});
