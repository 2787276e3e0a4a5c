// Which language the deferred stages' text is in: what the transcriber heard, the video's where OCR reads it, and a
// video's own found from its speech.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { OcrEngine, Transcriber, Video } from "../spec/index.js";
import { reportingLanguage, screenLanguage, spokenLanguage, stageLanguage, withLanguage } from "./extraction-language.js";

const ocr = (languages: string[]): OcrEngine => ({ id: "ocr", capabilities: { languages, maxConcurrency: 1 }, recognize: async () => [] });
const video = (language?: string): Video => ({
  id: "v",
  path: "/v.mp4",
  title: "v.mp4",
  durationSeconds: 60,
  kind: "media",
  sizeBytes: 1,
  hasAudio: true,
  hasVideo: true,
  timesEstimated: false,
  ingestedAt: "",
  clipCount: 2,
  ...(language ? { language } : {}),
});

test("screen text is in the video's language only where OCR reads that language", () => {
  assert.equal(screenLanguage("de", ocr(["eng", "deu"])), "de");
  assert.equal(screenLanguage("de", ocr(["eng"])), undefined, "German read with English letters only is no German text");
  assert.equal(screenLanguage("zh", ocr(["chi_sim"])), "zh");
  assert.equal(screenLanguage(undefined, ocr(["eng"])), undefined);
  assert.equal(screenLanguage("en", undefined), undefined);
});

test("a video's language from its speech: what the transcriber heard in most clips, else the text identified, else none", async () => {
  assert.deepEqual(await spokenLanguage(["de", "en", "de"], []), { language: "de", by: "transcriber" });
  assert.deepEqual(await spokenLanguage(["fr", "de"], []), { language: "fr", by: "transcriber" }, "a tie goes to the first heard");
  const german = [{ startSecond: 0, endSecond: 4, text: "Wo ist der Schlüssel für das Haus? Ich habe ihn gestern auf den Tisch gelegt.", source: "speech" as const }];
  assert.deepEqual(await spokenLanguage([], german), { language: "de", by: "text" });
  assert.equal(await spokenLanguage([], []), undefined);
});

test("each stage's segments get the language known for them, and a segment's own is kept", () => {
  assert.equal(stageLanguage("speech", video(), undefined, "de", undefined), "de", "what the transcriber heard");
  assert.equal(stageLanguage("speech", video("fr"), undefined, undefined, undefined), "fr", "what it was asked for");
  assert.equal(stageLanguage("speech", video(), { language: "es", by: "text" }, undefined, undefined), "es", "the video's, just found");
  assert.equal(stageLanguage("screen-text", video(), { language: "de", by: "transcriber" }, undefined, ocr(["deu"])), "de");
  assert.equal(stageLanguage("visual", video("de"), undefined, undefined, ocr(["deu"])), undefined, "visual words are the models' own words");
  const segments = [
    { startSecond: 0, endSecond: 1, text: "Hallo", source: "speech" as const },
    { startSecond: 1, endSecond: 2, text: "hello", source: "speech" as const, language: "en" },
  ];
  assert.deepEqual(withLanguage(segments, "de").map((segment) => segment.language), ["de", "en"]);
  assert.equal(withLanguage(segments, undefined), segments);
});

test("the reporting transcriber tells the language each call heard, and hands the transcript on as it was", async () => {
  const transcriber: Transcriber = {
    id: "t",
    capabilities: { languages: ["de"], maxConcurrency: 1, timestamps: "segment" },
    transcribe: async () => ({ segments: [{ startSecond: 0, endSecond: 1, text: "Hallo" }], warnings: [], language: "de" }),
  };
  const heard: string[] = [];
  const reporting = reportingLanguage(transcriber, (language) => heard.push(language));
  assert.equal(reporting.id, "t", "the same transcriber: the speech stage's key does not change");
  assert.deepEqual(await reporting.transcribe("/a.wav"), await transcriber.transcribe("/a.wav"));
  assert.deepEqual(heard, ["de"]);
});
