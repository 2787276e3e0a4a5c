// Transcript-folder ingest: ids, kinds, estimated times, clips, skipping unchanged files and replacing changed ones.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { VideoRagError } from "../spec/index.js";
import type { Segment, Store } from "../spec/index.js";
import { openSqliteStore } from "../store/index.js";
import { estimatedWordsPerSecond, ingestTranscripts, segmentsFromPlainText } from "./transcripts.js";

const root = mkdtempSync(join(tmpdir(), "videorag-transcripts-"));
after(() => rmSync(root, { recursive: true, force: true }));
let count = 0;

function setup(files: Record<string, string>): { dir: string; store: Store } {
  const dir = join(root, `case-${++count}`);
  mkdirSync(join(dir, "nested"), { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return { dir, store: openSqliteStore(join(root, `library-${count}.sqlite`)) };
}

const srt = `1
00:00:01,000 --> 00:00:04,000
Preheat the oven to two hundred degrees.

2
00:01:10,500 --> 00:01:14,000
Slide the tray onto the middle rack.
`;

const vtt = `WEBVTT

00:00.000 --> 00:05.000
Thread the needle with a double strand.
`;

test("plain text becomes one segment per line, timed at the estimated speaking rate", () => {
  const segments = segmentsFromPlainText("first line has five words\n\nsecond line\r\n");
  assert.deepEqual(segments, [
    { startSecond: 0, endSecond: 5 / estimatedWordsPerSecond, text: "first line has five words", source: "transcript" },
    { startSecond: 2, endSecond: 2.8, text: "second line", source: "transcript" },
  ]);
});

test("a long line is cut at sentence ends and then into near-equal pieces", () => {
  const sentence = Array.from({ length: 70 }, (_, index) => `w${index}`).join(" ");
  const segments = segmentsFromPlainText(`Short one. Another short one! ${sentence}`);
  assert.deepEqual(segments.map((segment) => segment.text.split(" ").length), [2, 3, 24, 24, 22]);
  assert.equal(segments.at(-1)?.endSecond, 75 / estimatedWordsPerSecond);
});

test("each transcript becomes a video named by its file stem; other files are reported as skipped", async () => {
  const words = Array.from({ length: 200 }, (_, index) => (index === 150 ? "sourdough" : "word")).join(" ");
  const { dir, store } = setup({ "abc123.txt": words, "oven.srt": srt, "sewing.vtt": vtt, "notes.md": "# readme", "empty.txt": "  \n" });
  const results = await ingestTranscripts(store, dir, { clipSeconds: 30 });
  const byPath = new Map(results.map((result) => [result.path, result]));
  assert.equal(results.length, 5, "nested folders are not descended into");
  assert.equal(byPath.get(join(dir, "notes.md"))?.status, "skipped");
  assert.equal(byPath.get(join(dir, "empty.txt"))?.status, "failed");
  assert.equal(byPath.get(join(dir, "empty.txt"))?.error?.code, "INPUT_EMPTY");

  const text = await store.getVideo("abc123");
  assert.equal(text?.kind, "transcript");
  assert.equal(text?.path, join(dir, "abc123.txt"));
  assert.equal(text?.timesEstimated, true);
  assert.equal(text?.durationSeconds, 200 / estimatedWordsPerSecond);
  assert.equal(text?.clipCount, 3, "80 s of estimated speech: clips of 30, 30 and 20 s");
  const [hit] = await store.searchClips({ terms: [{ text: "sourdough", weight: 1 }], limit: 5 });
  assert.equal(hit?.videoId, "abc123");
  assert.equal(hit?.clipIndex, 2, "word 150 is said at ~60 s");

  const oven = await store.getVideo("oven");
  assert.equal(oven?.timesEstimated, false);
  assert.equal(oven?.durationSeconds, 74);
  const [slide] = await store.searchClips({ terms: [{ text: "tray", weight: 1 }], limit: 5 });
  assert.deepEqual([slide?.videoId, slide?.startSecond], ["oven", 60]);
  assert.deepEqual((await store.getSegments("oven", 60, 90)).map((segment) => segment.text), ["Slide the tray onto the middle rack."]);
  assert.equal((await store.getVideo("sewing"))?.clipCount, 1);
  await store.close();
});

test("re-ingesting an unchanged folder does nothing; a changed file replaces its video", async () => {
  const { dir, store } = setup({ "v1.txt": "how to prune roses in winter", "v2.srt": srt });
  const first = await ingestTranscripts(store, dir);
  assert.deepEqual(first.map((result) => result.status), ["ingested", "ingested"]);
  const ingestedAt = (await store.getVideo("v1"))?.ingestedAt;

  const second = await ingestTranscripts(store, dir);
  assert.deepEqual(second.map((result) => result.status), ["unchanged", "unchanged"]);
  assert.equal((await store.getVideo("v1"))?.ingestedAt, ingestedAt);

  writeFileSync(join(dir, "v1.txt"), "how to repot an orchid");
  const third = await ingestTranscripts(store, dir);
  assert.deepEqual(third.map((result) => result.status), ["ingested", "unchanged"]);
  assert.deepEqual(await store.searchClips({ terms: [{ text: "roses", weight: 1 }], limit: 5 }), []);
  assert.equal((await store.searchClips({ terms: [{ text: "orchid", weight: 1 }], limit: 5 }))[0]?.videoId, "v1");
  assert.equal((await store.listVideos()).length, 2);
  await store.close();
});

test("two transcripts of one video: the timed one is used, the other reported", async () => {
  const { dir, store } = setup({ "same.txt": "plain words", "same.srt": srt });
  const results = await ingestTranscripts(store, dir);
  const skipped = results.find((result) => result.status === "skipped");
  assert.equal(skipped?.path, join(dir, "same.txt"));
  assert.equal((await store.getVideo("same"))?.timesEstimated, false);
  await store.close();
});

test("timed transcripts carry the speakers their files name into the segments committed", async () => {
  const { dir, store } = setup({
    "interview.vtt": "WEBVTT\n\n00:00.000 --> 00:02.000\n<v Dana>Welcome back.</v>\n\n00:02.000 --> 00:04.000\n<v.loud Sam>Thanks, Dana.\n",
    "panel.srt": "1\n00:00:01,000 --> 00:00:03,000\n- DANA: Ready?\n- SAM: Yes.\n\n2\n00:00:03,000 --> 00:00:05,000\nAt 10:30: the break.\n",
  });
  // Segments are checked as handed to the store, not read back: what a store keeps of them is the store's own test.
  const committed = new Map<string, Segment[]>();
  const spy: Store = {
    ...store,
    commitVideo: async (content) => {
      committed.set(content.video.id, content.segments);
      await store.commitVideo(content);
    },
  };
  await ingestTranscripts(spy, dir);
  const said = (id: string) => committed.get(id)?.map((segment) => [segment.speaker, segment.text]);
  assert.deepEqual(said("interview"), [["Dana", "Welcome back."], ["Sam", "Thanks, Dana."]]);
  assert.deepEqual(said("panel"), [["DANA", "Ready?"], ["SAM", "Yes."], [undefined, "At 10:30: the break."]]);
  assert.equal(committed.get("panel")?.every((segment) => segment.source === "transcript"), true);
  await store.close();
});

test("progress is reported per file, and a missing folder throws INPUT_NOT_FOUND", async () => {
  const { dir, store } = setup({ "a.txt": "alpha", "b.txt": "beta" });
  const events: string[] = [];
  await ingestTranscripts(store, dir, { onProgress: (event) => events.push(event.type) });
  assert.deepEqual(events, ["video-start", "video-done", "video-start", "video-done"]);
  await assert.rejects(ingestTranscripts(store, join(dir, "missing")), (error: unknown) => {
    return VideoRagError.isInstance(error) && error.code === "INPUT_NOT_FOUND";
  });
  await store.close();
});
