// The ExtractionLedger part of every store: deferred stages per clip, status sums, changed keys, the questions' interest, write-back.

import assert from "node:assert/strict";
import { describe } from "node:test";
import { sampleVideo, storeCase, type OpenStore } from "./fixtures.js";

export function runExtractionLedgerConformance(name: string, open: OpenStore): void {
  describe(`ExtractionLedger: ${name}`, () => {
    const withStore = storeCase(open);

    withStore("deferred stages are recorded per clip, counted in the status, and a changed key makes them pending again", async (store) => {
      const content = sampleVideo("deferred", ["opening words", "middle words", "closing words"]);
      await store.commitVideo({
        ...content,
        signals: [
          { clipIndex: 0, speechSeconds: 12.5, speechRegions: [[1, 13.5]], screenChanges: 2 },
          { clipIndex: 1, speechSeconds: 0, speechRegions: [], screenChanges: 0 },
          { clipIndex: 2, screenChanges: 1 },
        ],
        clipStages: [0, 1, 2].flatMap((clipIndex) => [
          { clipIndex, stage: "speech", key: "asr-1", status: "pending" as const },
          { clipIndex, stage: "graph", key: "graph-1", status: "done" as const },
        ]),
      });
      assert.deepEqual(await store.clipSignals("deferred", [0, 2]), [
        { clipIndex: 0, speechSeconds: 12.5, speechRegions: [[1, 13.5]], screenChanges: 2, asked: 0 },
        { clipIndex: 2, screenChanges: 1, asked: 0 },
      ]);
      const status = await store.extractionStatus();
      assert.deepEqual(
        { videos: status.videos, clips: status.clips, extracted: status.extractedClips, pending: status.pendingClips, failed: status.failedClips },
        { videos: 1, clips: 3, extracted: 0, pending: 3, failed: 0 },
      );
      assert.deepEqual(status.stages, { speech: { done: 0, pending: 3, failed: 0 }, graph: { done: 3, pending: 0, failed: 0 } });
      assert.equal((await store.clipStages({ statuses: ["pending"] })).length, 3);

      await store.writeBack({
        videoId: "deferred",
        documents: [{ ...content.clips[0]!, transcript: "opening words and a recognised pgvector remark" }],
        replaces: [{ clipIndex: 0, sources: ["speech"] }],
        segments: [{ startSecond: 2, endSecond: 6, text: "a recognised pgvector remark", source: "speech", clipIndex: 0 }],
        vectors: [],
        stages: [
          { clipIndex: 0, stage: "speech", key: "asr-1", status: "done" },
          { clipIndex: 1, stage: "speech", key: "asr-1", status: "failed", error: "TOOL_FAILED: boom" },
        ],
      });
      assert.equal((await store.searchClips({ terms: [{ text: "pgvector", weight: 1 }], limit: 5 }))[0]?.clipIndex, 0, "the new text is searchable");
      assert.equal((await store.searchVideos({ terms: [{ text: "pgvector", weight: 1 }], limit: 5 }))[0]?.videoId, "deferred", "and in the whole-video document");
      assert.deepEqual(
        (await store.getSegments("deferred", 0, 30)).map((segment) => [segment.source, segment.text, segment.clipIndex]),
        [["subtitle", "opening words", undefined], ["speech", "a recognised pgvector remark", 0]],
      );
      const after = await store.extractionStatus();
      assert.deepEqual([after.extractedClips, after.pendingClips, after.failedClips], [1, 1, 1]);
      assert.equal((await store.clipStages({ statuses: ["failed"] }))[0]?.error, "TOOL_FAILED: boom");

      // Written back again for the same clip: its speech is replaced, not added to.
      await store.writeBack({
        videoId: "deferred",
        documents: [{ ...content.clips[0]!, transcript: "opening words and a second reading" }],
        replaces: [{ clipIndex: 0, sources: ["speech"] }],
        segments: [{ startSecond: 2, endSecond: 6, text: "a second reading", source: "speech", clipIndex: 0 }],
        vectors: [],
        stages: [],
      });
      assert.deepEqual((await store.getSegments("deferred", 0, 30)).filter((segment) => segment.source === "speech").map((segment) => segment.text), ["a second reading"]);
      assert.deepEqual(await store.searchClips({ terms: [{ text: "pgvector", weight: 1 }], limit: 5 }), [], "the old text left the index");

      assert.equal(await store.refreshStageKey("speech", "asr-1"), 0, "an unchanged key changes nothing");
      assert.equal(await store.refreshStageKey("speech", "asr-2"), 3, "a new transcriber makes speech pending on every clip");
      assert.equal(await store.refreshStageKey("graph", "graph-1"), 0, "and leaves the graph alone");
      assert.deepEqual((await store.extractionStatus()).stages.speech, { done: 0, pending: 3, failed: 0 });

      await store.markAsked([{ videoId: "deferred", clipIndex: 2 }, { videoId: "deferred", clipIndex: 2 }]);
      assert.equal((await store.clipSignals("deferred", [2]))[0]?.asked, 2);
      assert.deepEqual((await store.getFrames("deferred", 0, 60)).map((frame) => frame.timeSecond), [0, 30]);
      await assert.rejects(
        () => store.writeBack({ videoId: "missing", documents: [], replaces: [], segments: [], vectors: [], stages: [] }),
        (error: unknown) => (error as { code?: string }).code === "VIDEO_NOT_FOUND",
      );
      assert.ok(await store.removeVideo("deferred"));
      assert.deepEqual(await store.clipStages(), [], "removing a video removes its deferred work");
    });

    withStore("a write-back gives a video without a language the one found, and its text is indexed again in it; one with a language keeps it", async (store) => {
      const content = sampleVideo("rede", ["Wir sehen die Häuser am Fluss", "Das Boot liegt im Hafen"]);
      const chapter = { index: 0, startSecond: 0, endSecond: 60, title: "Häuser am Fluss", summary: "Die Häuser", text: "Wir sehen die Häuser am Fluss", madeBy: "lite" };
      await store.commitVideo({ ...content, chapters: [chapter] });
      const stemmed = { terms: [{ text: "Haus", weight: 1 }], limit: 5, language: "de" };
      assert.deepEqual(await store.searchClips(stemmed), [], "indexed in no language, a word's other forms are not found");
      await store.writeBack({ videoId: "rede", documents: [], replaces: [], segments: [], vectors: [], stages: [], language: "de" });
      assert.equal((await store.getVideo("rede"))?.language, "de");
      assert.deepEqual((await store.searchClips(stemmed)).map((match) => match.clipIndex), [0], "indexed again in German: Haus finds Häuser");
      assert.equal((await store.searchVideos(stemmed))[0]?.videoId, "rede");
      assert.equal((await store.searchChapters({ terms: [{ text: "fluss", weight: 1 }], limit: 5 }))[0]?.chapterIndex, 0, "chapters are indexed again too");
      // What was indexed in German is forgotten in German: the clip's text replaced, its old words leave the index.
      await store.writeBack({
        videoId: "rede",
        documents: [{ ...content.clips[0]!, transcript: "Die Brücke über den Fluss" }],
        replaces: [],
        segments: [],
        vectors: [],
        stages: [],
        chapters: [{ ...chapter, title: "Die Brücke", summary: "", text: "Die Brücke über den Fluss" }],
        language: "fr",
      });
      assert.equal((await store.getVideo("rede"))?.language, "de", "a language found later does not replace the one the video has");
      assert.deepEqual(await store.searchClips(stemmed), []);
      assert.deepEqual((await store.searchClips({ terms: [{ text: "Brücken", weight: 1 }], limit: 5, language: "de" })).map((match) => match.clipIndex), [0]);
      assert.deepEqual(await store.searchChapters({ terms: [{ text: "häuser", weight: 1 }], limit: 5 }), []);
    });
  });
}
