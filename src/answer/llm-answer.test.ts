import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChatMessage, ChatPart, ImageInput, LanguageModel } from "../spec/index.js";
import { VideoRagError } from "../spec/index.js";
import { buildAnswerPrompt, noMatchingMomentsText, parseCitedAnswer, planAnswerPrompt, streamLlmAnswer } from "./index.js";
import type { Evidence } from "./index.js";

const friday = { videoId: "v1", path: "/library/friday.mp4", title: "friday.mp4", timesEstimated: false };
const notes = { videoId: "v2", path: "/library/notes.txt", title: "notes.txt", timesEstimated: true };
const evidence: Evidence[] = [
  { ...friday, startSecond: 3, endSecond: 4.3, kind: "transcript", text: "He is in a bad humor." },
  { ...friday, startSecond: 12, endSecond: 15, kind: "screen", text: "MONDAY 9:00\n  staff meeting" },
  { ...notes, startSecond: 62, endSecond: 90, kind: "transcript", text: "The meeting moved to Tuesday." },
];
const cite1 = "[friday.mp4 0:03–0:04]";
const cite2 = "[friday.mp4 0:12–0:15]";
const cite3 = "[notes.txt ~1:02–1:30]";

/** A LanguageModel that streams the chunks it was given and records what it was asked. */
function scriptedModel(chunks: string[], capabilities: Partial<LanguageModel["capabilities"]> = {}, log: string[] = []) {
  const calls: ChatMessage[][] = [];
  const model: LanguageModel = {
    id: "scripted",
    capabilities: { maxBatchSize: 1, maxConcurrency: 1, acceptsImages: false, maxImages: 0, jsonOutput: false, ...capabilities },
    async chat(messages) {
      calls.push(messages);
      return { text: chunks.join("") };
    },
    async *stream(messages) {
      calls.push(messages);
      for (const chunk of chunks) {
        log.push(`model: ${chunk}`);
        yield chunk;
      }
    },
  };
  return { model, calls };
}

function frames(count: number, firstSecond: number): ImageInput[] {
  return Array.from({ length: count }, (_, index) => ({
    data: Buffer.from([firstSecond + index]),
    mimeType: "image/jpeg" as const,
    timeSecond: firstSecond + index,
  }));
}

function userText(messages: ChatMessage[]): string {
  const content = messages.find((message) => message.role === "user")?.content ?? "";
  return typeof content === "string" ? content : content.map((part) => (part.type === "text" ? part.text : "<image>")).join("");
}

test("the prompt states the rules and numbers the evidence in rank order, with ~ for estimated times", () => {
  const messages = buildAnswerPrompt("When is the  meeting?", evidence, { acceptsImages: false });
  assert.deepEqual(messages.map((message) => message.role), ["system", "user"]);
  const rules = String(messages[0]?.content);
  assert.match(rules, /only from the evidence/);
  assert.match(rules, /\[1\] or \[2\]\[5\]/);
  assert.match(rules, /does not contain the answer, say so/);
  assert.match(rules, /concise/);

  const user = messages[1]?.content;
  assert.equal(typeof user, "string", "text-only prompts stay plain strings");
  assert.equal(
    user,
    [
      "Evidence:",
      "[1] friday.mp4 0:03–0:04 (transcript): He is in a bad humor.",
      "[2] friday.mp4 0:12–0:15 (screen): MONDAY 9:00 staff meeting",
      "[3] notes.txt ~1:02–1:30 (transcript): The meeting moved to Tuesday.",
      "",
      "Question: When is the meeting?",
    ].join("\n"),
  );
});

test("the evidence budget drops the lowest-ranked items first and cuts only between sentences", () => {
  const text = "First sentence here. Second sentence here.";
  const many: Evidence[] = Array.from({ length: 5 }, (_, index) => ({
    ...friday,
    startSecond: index * 30,
    endSecond: index * 30 + 30,
    kind: "transcript",
    text,
  }));
  const header = (number: number) => `[${number}] friday.mp4 ${number - 1}:00–${number}:00 (transcript): `.length;
  // Room for two whole items, the third's header and its first sentence plus a few characters.
  const budget = header(1) + text.length + 1 + header(2) + text.length + 1 + header(3) + "First sentence here.".length + 5;
  const plan = planAnswerPrompt("q", many, { acceptsImages: false, maxEvidenceChars: budget });

  assert.deepEqual(plan.evidence.map((item) => item.text), [text, text, "First sentence here."]);
  const evidenceLines = userText(plan.messages).split("\n").filter((line) => line.startsWith("["));
  assert.equal(evidenceLines.length, 3);
  assert.equal(evidenceLines.join("\n").length <= budget, true);
  for (const line of evidenceLines) assert.match(line, /\.$/, "no item ends mid-sentence");
  assert.doesNotMatch(userText(plan.messages), /\[4\]/);

  // A first item with no sentence that fits is still given, cut between words.
  const long: Evidence = { ...friday, startSecond: 0, endSecond: 30, kind: "caption", text: "word ".repeat(200).trim() };
  const single = planAnswerPrompt("q", [long, ...many], { acceptsImages: false, maxEvidenceChars: 100 });
  assert.equal(single.evidence.length, 1);
  assert.match(single.evidence[0]?.text ?? "", /^word( word)*…$/);
});

test("frames are attached right after their evidence, only when the model accepts images, and up to maxImages", () => {
  const withFrames: Evidence[] = evidence.map((item, index) => ({ ...item, images: frames(3, index * 10) }));

  const textOnly = buildAnswerPrompt("q", withFrames, { acceptsImages: false, maxImages: 8 });
  assert.equal(typeof textOnly[1]?.content, "string");

  const plan = planAnswerPrompt("q", withFrames, { acceptsImages: true, maxImages: 3, imagesPerClip: 2 });
  const parts = plan.messages[1]?.content as ChatPart[];
  assert.deepEqual(parts.map((part) => part.type), ["text", "image", "image", "text", "image", "text"]);
  const [first, , , second, , last] = parts;
  assert.match(first?.type === "text" ? first.text : "", /\[1\] friday\.mp4 0:03–0:04 \(transcript\): He is in a bad humor\.$/);
  assert.match(second?.type === "text" ? second.text : "", /^\[2\] .*staff meeting$/);
  assert.match(last?.type === "text" ? last.text : "", /^\[3\] [^\n]*\n\nQuestion: q$/);
  // Two of the first clip's three frames, spread over it: the first and the last.
  const times = parts.flatMap((part) => (part.type === "image" ? [part.image.timeSecond] : []));
  assert.deepEqual(times, [0, 2, 10]);
  assert.equal(plan.imagesAttached, 3);
  assert.equal(plan.imagesOverLimit, 3);

  const none = planAnswerPrompt("q", withFrames, { acceptsImages: true, maxImages: 0 });
  assert.equal(typeof none.messages[1]?.content, "string");
});

test("every marker form becomes the library's citations, each evidence cited once in order of first citation", () => {
  const answer = parseCitedAnswer("A [2]. B [1, 2]. C [2][3]. D [1-3]. E [3 – 2]. F [1;3]. G [1][1].", evidence);
  assert.equal(
    answer.text,
    `A ${cite2}. B ${cite1}${cite2}. C ${cite2}${cite3}. D ${cite1}${cite2}${cite3}. ` +
      `E ${cite2}${cite3}. F ${cite1}${cite3}. G ${cite1}.`,
  );
  assert.deepEqual(
    answer.citations.map((citation) => [citation.startSecond, citation.score]),
    [[12, 1], [3, 0.5], [62, 0.3333]],
  );
  assert.equal(answer.citations[0]?.quote, "MONDAY 9:00 staff meeting");
  assert.equal(answer.citations[2]?.timesEstimated, true);
  assert.deepEqual(answer.invalidNumbers, []);
  assert.equal(answer.uncitedSentences, 0);
});

test("numbers that name no evidence are dropped from the text, with the space before them, and reported", () => {
  const answer = parseCitedAnswer("The meeting moved [7]. It is on Tuesday [3, 9]. [0] Nobody knows.\n[12] Maybe [5-6].", evidence);
  assert.equal(answer.text, `The meeting moved. It is on Tuesday ${cite3}. Nobody knows.\nMaybe.`);
  assert.deepEqual(answer.invalidNumbers, [7, 9, 0, 12, 5, 6]);
  assert.deepEqual(answer.citations.map((citation) => citation.title), ["notes.txt"]);
  assert.equal(answer.uncitedSentences, 3);
});

test("brackets that are not markers stay as written", () => {
  const text = "See [the notes], [x1], [1 2] and [ 2024 plan] [";
  const answer = parseCitedAnswer(text, evidence);
  assert.equal(answer.text, text);
  assert.deepEqual(answer.citations, []);
  assert.deepEqual(answer.invalidNumbers, []);
});

test("a citation after the full stop counts for the sentence before it", () => {
  assert.equal(parseCitedAnswer("He is grumpy. [1] The meeting moved.", evidence).uncitedSentences, 1);
  assert.equal(parseCitedAnswer("He is grumpy.[1]", evidence).text, `He is grumpy. ${cite1}`);
});

test("streamed text arrives rewritten, joins to exactly the final text, and never shows a raw [n] marker", async () => {
  const twelve: Evidence[] = Array.from({ length: 12 }, (_, index) => ({
    ...(index === 2 ? notes : friday),
    startSecond: index * 10,
    endSecond: index * 10 + 5,
    kind: "transcript",
    text: `Sentence ${index + 1}.`,
  }));
  const chunks = ["He is ", "grumpy [", "1", "] and the meeting [1", "2] moved [3", "][2", "]. Nothing else [", "13", "]."];
  const log: string[] = [];
  const { model } = scriptedModel(chunks, {}, log);
  const deltas: string[] = [];
  const result = await streamLlmAnswer({
    question: "What happened?",
    evidence: twelve,
    model,
    onText: (delta) => {
      deltas.push(delta);
      log.push(`user: ${delta}`);
    },
  });

  assert.equal(deltas.join(""), result.text);
  assert.equal(result.rawText, chunks.join(""));
  for (const delta of deltas) assert.doesNotMatch(delta, /\[\s*\d/);
  assert.equal(
    result.text,
    "He is grumpy [friday.mp4 0:00–0:05] and the meeting [friday.mp4 1:50–1:55] moved [notes.txt ~0:20–0:25]" +
      "[friday.mp4 0:10–0:15]. Nothing else.",
  );
  assert.equal(result.text, parseCitedAnswer(result.rawText, twelve).text);
  // Text is released while the model is still writing, not all at the end.
  assert.ok(log.indexOf("user: He is") < log.indexOf("model: grumpy ["));
  assert.ok(log.findIndex((entry) => entry.startsWith("user: ")) < log.lastIndexOf(`model: ${chunks.at(-1)}`));
  assert.deepEqual(result.citations.map((citation) => citation.startSecond), [0, 110, 20, 10]);
  assert.equal(result.citations[2]?.timesEstimated, true);
  assert.deepEqual(result.warnings, [
    { type: "degraded", feature: "citations", detail: "the model cited evidence [13] that was not given; dropped" },
  ]);
});

test("however the model's text is split into chunks, the streamed text is the same", async () => {
  const raw = "  Grumpy [1]; later [ 2 ,3 ] then [7] and [4-5]. [see] [1][1]\n[9] x [";
  const expected = parseCitedAnswer(raw, evidence).text;
  const splits: string[][] = [[...raw]];
  for (let cut = 1; cut < raw.length; cut++) splits.push([raw.slice(0, cut), raw.slice(cut)]);
  for (const chunks of splits) {
    const deltas: string[] = [];
    const result = await streamLlmAnswer({ question: "q", evidence, model: scriptedModel(chunks).model, onText: (delta) => deltas.push(delta) });
    assert.equal(result.text, expected, JSON.stringify(chunks));
    assert.equal(deltas.join(""), expected, JSON.stringify(chunks));
  }
});

test("an answer that cites nothing is flagged; an empty one is replaced and flagged", async () => {
  const uncited = await streamLlmAnswer({ question: "q", evidence, model: scriptedModel(["The evidence does not say."]).model });
  assert.equal(uncited.text, "The evidence does not say.");
  assert.deepEqual(uncited.citations, []);
  assert.equal(uncited.warnings.length, 1);
  assert.match(uncited.warnings[0]?.detail ?? "", /cites none of the evidence/);

  const deltas: string[] = [];
  const empty = await streamLlmAnswer({ question: "q", evidence, model: scriptedModel([" ", "[8]", "\n"]).model, onText: (delta) => deltas.push(delta) });
  assert.equal(empty.text, "The language model gave no answer.");
  assert.equal(deltas.join(""), empty.text);
  assert.deepEqual(empty.warnings.map((warning) => warning.feature), ["citations", "answer"]);
});

test("with no evidence the model is not called and the answer says nothing matches", async () => {
  const { model, calls } = scriptedModel(["[1] made up"]);
  const deltas: string[] = [];
  const result = await streamLlmAnswer({ question: "Who won?", evidence: [], model, onText: (delta) => deltas.push(delta) });
  assert.equal(calls.length, 0);
  assert.equal(result.text, noMatchingMomentsText);
  assert.deepEqual(deltas, [noMatchingMomentsText]);
  assert.deepEqual(result.citations, []);
});

test("frames reach a model that accepts images; a model that does not gets a warning instead", async () => {
  const withFrames: Evidence[] = evidence.map((item, index) => ({ ...item, images: frames(2, index * 10) }));
  const vision = scriptedModel(["Grumpy [1]."], { acceptsImages: true, maxImages: 3 });
  const seen = await streamLlmAnswer({ question: "q", evidence: withFrames, model: vision.model });
  const parts = vision.calls[0]?.[1]?.content;
  assert.equal(Array.isArray(parts) ? parts.filter((part) => part.type === "image").length : 0, 3);
  assert.deepEqual(seen.warnings, [
    { type: "degraded", feature: "images", detail: "3 frames left out: scripted takes at most 3 images" },
  ]);

  const blind = scriptedModel(["Grumpy [1]."]);
  const unseen = await streamLlmAnswer({ question: "q", evidence: withFrames, model: blind.model });
  assert.equal(typeof blind.calls[0]?.[1]?.content, "string");
  assert.deepEqual(unseen.warnings.map((warning) => [warning.type, warning.feature]), [["unsupported", "images"]]);
});

test("a small model context shrinks the evidence, and citing what was cut is reported as not given", async () => {
  const long: Evidence[] = Array.from({ length: 20 }, (_, index) => ({
    ...friday,
    startSecond: index,
    endSecond: index + 1,
    kind: "transcript",
    text: `This is sentence number ${index + 1} of a long clip.`,
  }));
  const { model, calls } = scriptedModel(["It is long [20]."], { contextTokens: 100 });
  const result = await streamLlmAnswer({ question: "q", evidence: long, model });
  const prompt = userText(calls[0] ?? []);
  assert.ok(prompt.includes("[1] "));
  assert.ok(!prompt.includes("[20] "));
  assert.equal(result.text, "It is long.");
  assert.match(result.warnings[0]?.detail ?? "", /\[20\] that was not given/);
});

test("cancelling stops the answer with INTERRUPTED; a failing model surfaces as MODEL_FAILED", async () => {
  const before = new AbortController();
  before.abort();
  const unused = scriptedModel(["Grumpy [1]."]);
  await assert.rejects(
    streamLlmAnswer({ question: "q", evidence, model: unused.model, signal: before.signal }),
    (error) => VideoRagError.isInstance(error) && error.code === "INTERRUPTED",
  );
  assert.equal(unused.calls.length, 0);

  const during = new AbortController();
  await assert.rejects(
    streamLlmAnswer({ question: "q", evidence, model: scriptedModel(["Grumpy ", "and more [1]."]).model, signal: during.signal, onText: () => during.abort() }),
    (error) => VideoRagError.isInstance(error) && error.code === "INTERRUPTED",
  );

  const broken: LanguageModel = {
    ...scriptedModel([]).model,
    // eslint-disable-next-line require-yield
    async *stream() {
      throw new Error("connection reset");
    },
  };
  await assert.rejects(
    streamLlmAnswer({ question: "q", evidence, model: broken }),
    (error) => VideoRagError.isInstance(error) && error.code === "MODEL_FAILED" && /connection reset/.test(error.message),
  );
});
