// Loading evaluation questions: the real dev set loads; broken files fail with QUESTIONS_INVALID and a useful line.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { VideoRagError } from "../spec/index.js";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { loadQuestions, parseQuestions } from "./load-questions.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-questions-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const invalid = (pattern: RegExp) => (error: unknown) => {
  assert.ok(VideoRagError.isInstance(error));
  assert.equal(error.code, "QUESTIONS_INVALID");
  assert.match(error.message, pattern);
  return true;
};

test("questions parse to camelCase fields, ids as strings, answers optional", () => {
  const questions = parseQuestions(
    JSON.stringify([
      { id: 7, question: "How?", relevant_videos: ["v1", "v2"] },
      { id: "q2", question: "Why?", answer: "Because.", relevant_videos: ["v3"] },
    ]),
  );
  assert.deepEqual(questions, [
    { id: "7", question: "How?", relevantVideos: ["v1", "v2"] },
    { id: "q2", question: "Why?", answer: "Because.", relevantVideos: ["v3"] },
  ]);
});

test("a bad file names what is wrong and where", () => {
  assert.throws(() => parseQuestions("{ not json"), invalid(/not JSON/));
  assert.throws(() => parseQuestions(JSON.stringify({ questions: [] })), invalid(/array/));
  assert.throws(() => parseQuestions(JSON.stringify([{ id: "a", question: "Q?" }])), invalid(/\[0\]\.relevant_videos/));
  assert.throws(() => parseQuestions(JSON.stringify([{ id: "a", question: " ", relevant_videos: ["v"] }])), invalid(/\[0\]\.question/));
  assert.throws(() => parseQuestions(JSON.stringify([{ id: "a", question: "Q", relevant_videos: [] }])), invalid(/relevant_videos/));
  const twice = [{ id: "a", question: "Q", relevant_videos: ["v"] }, { id: "a", question: "R", relevant_videos: ["v"] }];
  assert.throws(() => parseQuestions(JSON.stringify(twice)), invalid(/twice/));
});

test("loadQuestions reads a file, and a missing file is INPUT_NOT_FOUND", () => {
  const path = join(dir, "questions.json");
  writeFileSync(path, JSON.stringify([{ id: "x", question: "Where?", relevant_videos: ["v"] }]));
  assert.equal(loadQuestions(path)[0]?.question, "Where?");
  assert.throws(() => loadQuestions(join(dir, "missing.json")), (error: unknown) => {
    return VideoRagError.isInstance(error) && error.code === "INPUT_NOT_FOUND";
  });
});

test("the how-to dev set loads: 534 questions, each with its source video", { skip: needsShared }, () => {
  const questions = loadQuestions(sharedPath("datasets/howto-qa/dev-questions.json"));
  assert.equal(questions.length, 534);
  assert.ok(questions.every((question) => question.relevantVideos.length >= 1 && question.answer));
});
