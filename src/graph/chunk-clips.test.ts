import assert from "node:assert/strict";
import { test } from "node:test";
import type { ClipDocument } from "../spec/index.js";
import { chunkClips, estimateTokens } from "./index.js";

function clip(index: number, text: Partial<Pick<ClipDocument, "transcript" | "screen" | "visual">> = {}): ClipDocument {
  return { videoId: "v", index, startSecond: index * 30, endSecond: index * 30 + 30, transcript: "", screen: "", visual: "", ...text };
}

const words = (count: number, word = "word") => Array.from({ length: count }, () => word).join(" ");

test("tokens are estimated as words × 1.3, rounded up", () => {
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("one"), 2);
  assert.equal(estimateTokens("  ten words\nspread over\tlines and  spaces of text here "), 13);
});

test("a clip is one block: its time range, then what was seen, said and shown, empty parts left out", () => {
  const [chunk] = chunkClips([
    clip(2, { transcript: "Popeye meets\nSinbad.", screen: "MONDAY 9:00\n  staff meeting", visual: "boat (vehicle)\nperson (people)" }),
    clip(3, { transcript: "Sinbad laughs." }),
  ]);
  assert.equal(
    chunk?.text,
    [
      "[1:00–1:30]",
      "Seen: boat (vehicle); person (people)",
      "Said: Popeye meets Sinbad.",
      "On screen: MONDAY 9:00 / staff meeting",
      "",
      "[1:30–2:00]",
      "Said: Sinbad laughs.",
    ].join("\n"),
  );
  assert.deepEqual(
    { index: chunk?.index, clipStart: chunk?.clipStart, clipEnd: chunk?.clipEnd, startSecond: chunk?.startSecond, endSecond: chunk?.endSecond },
    { index: 0, clipStart: 2, clipEnd: 3, startSecond: 60, endSecond: 120 },
  );
  assert.equal(chunk?.tokenCount, estimateTokens(chunk?.text ?? ""));
});

test("chunks stay within the budget and cover every clip once, in order, empty clips included", () => {
  const lengths = [40, 0, 90, 10, 0, 0, 120, 30, 60, 5, 0, 80, 0];
  const clips = lengths.map((length, index) => clip(index, length > 0 ? { transcript: words(length, `w${index}`) } : {}));
  const chunks = chunkClips([...clips].reverse(), { maxTokens: 200 });

  assert.ok(chunks.length > 1);
  for (const chunk of chunks) assert.ok(chunk.tokenCount <= 200, `chunk ${chunk.index} has ${chunk.tokenCount} tokens`);
  assert.deepEqual(chunks.map((chunk) => chunk.index), chunks.map((_, index) => index));
  // Contiguous and complete: each chunk starts right after the previous one ends, from the first clip to the last.
  assert.equal(chunks[0]?.clipStart, 0);
  assert.equal(chunks[chunks.length - 1]?.clipEnd, 12);
  for (let index = 1; index < chunks.length; index++) assert.equal(chunks[index]?.clipStart, (chunks[index - 1]?.clipEnd ?? 0) + 1);
  for (const chunk of chunks) {
    assert.equal(chunk.startSecond, chunk.clipStart * 30);
    assert.equal(chunk.endSecond, chunk.clipEnd * 30 + 30);
  }
  // Every clip with text appears in exactly one chunk, with all of its words.
  lengths.forEach((length, index) => {
    if (length === 0) return;
    const holding = chunks.filter((chunk) => chunk.text.includes(`w${index} `) || chunk.text.endsWith(`w${index}`));
    assert.equal(holding.length, 1, `clip ${index}`);
    assert.equal(holding[0]?.text.split(/\s+/).filter((word) => word === `w${index}`).length, length);
  });
});

test("a video with no text has no chunks", () => {
  assert.deepEqual(chunkClips([clip(0), clip(1, { transcript: "  \n " })]), []);
  assert.deepEqual(chunkClips([]), []);
});

test("a clip a little over budget is a chunk of its own; one far over is split between sentences, all within budget", () => {
  const slightly = chunkClips([clip(0, { transcript: "short" }), clip(1, { transcript: words(100) }), clip(2, { transcript: "short" })], {
    maxTokens: 100,
  });
  assert.deepEqual(slightly.map((chunk) => [chunk.clipStart, chunk.clipEnd]), [[0, 0], [1, 1], [2, 2]]);
  assert.ok((slightly[1]?.tokenCount ?? 0) > 100);

  const sentences = Array.from({ length: 30 }, (_, index) => `Sentence number s${index} has exactly seven words.`);
  const long = [...sentences.slice(0, 20), words(150, "unpunctuated"), ...sentences.slice(20)].join(" ");
  const split = chunkClips([clip(0, { transcript: "before" }), clip(1, { transcript: long, screen: "A SLIDE" }), clip(2, { transcript: "after" })], {
    maxTokens: 100,
  });
  const pieces = split.filter((chunk) => chunk.clipStart === 1);
  assert.ok(pieces.length >= 4);
  for (const piece of pieces) {
    assert.ok(piece.tokenCount <= 100, `${piece.tokenCount} tokens`);
    assert.equal(piece.clipEnd, 1);
    assert.match(piece.text, /^\[0:30–1:00\]\nSaid: |^\[0:30–1:00\]\nOn screen: /);
  }
  const said = pieces.map((piece) => /Said: (.*)/.exec(piece.text)?.[1] ?? "").join(" ").replace(/\s+/g, " ").trim();
  assert.equal(said, long, "the pieces hold the clip's words in order");
  // Sentences are cut only when one alone exceeds the budget: every other piece boundary falls after a full stop.
  for (const piece of pieces) {
    const text = /Said: (.*)/.exec(piece.text)?.[1];
    if (text && !text.includes("unpunctuated")) assert.match(text, /\.$/);
  }
  assert.equal(pieces[pieces.length - 1]?.text.endsWith("On screen: A SLIDE"), true);
  assert.deepEqual(split.map((chunk) => chunk.index), split.map((_, index) => index));
  assert.equal(split[0]?.clipEnd, 0);
  assert.equal(split[split.length - 1]?.clipStart, 2);
});

test("a clip far over budget in Japanese is split after 。, which no space follows", () => {
  // Words spaced as some transcribers write them, sentences run together as Japanese is written.
  const sentences = Array.from({ length: 24 }, (_, index) => `文 ${index} は ここ で 終わり ます。`);
  const long = sentences.join("");
  const pieces = chunkClips([clip(0, { transcript: long })], { maxTokens: 40 });
  assert.ok(pieces.length >= 4, `${pieces.length} pieces`);
  for (const piece of pieces) {
    assert.ok(piece.tokenCount <= 40, `${piece.tokenCount} tokens`);
    const said = /Said: (.*)/.exec(piece.text)?.[1] ?? "";
    assert.match(said, /^文 \d+ は .*ます。$/, "each piece starts a sentence and ends one");
  }
});
