// The graph retriever returns a clip only with evidence for the query in it, and hits say which words matched: over a
// small generated library where the entity "people" is described by a sentence that also mentions cars.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { buildLiteVideoGraph, refreshEntityDescriptions } from "../graph/index.js";
import type { ClipDocument, Segment, Store } from "../spec/index.js";
import { openSqliteStore } from "../store/index.js";
import { retrievalHits, retrieve } from "./retrieve.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-graph-retrieval-"));
const store: Store = openSqliteStore(join(dir, "library.sqlite"));
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A silent video whose clip i shows what `seen[i]` says, as the detector and the caption template write it. */
async function commitSeen(id: string, seen: string[]): Promise<void> {
  const clips: ClipDocument[] = seen.map((visual, index) => ({
    videoId: id,
    index,
    startSecond: index * 30,
    endSecond: index * 30 + 30,
    transcript: "",
    screen: "",
    visual,
  }));
  const segments: Segment[] = clips.map((clip) => ({ startSecond: clip.startSecond, endSecond: clip.endSecond, text: clip.visual, source: "visual" }));
  await store.commitVideo({
    video: { id, path: `/library/${id}.mp4`, title: `${id}.mp4`, durationSeconds: seen.length * 30, kind: "media", sizeBytes: 1, hasAudio: false, hasVideo: true, timesEstimated: false },
    clips,
    segments,
    frames: [],
    fingerprint: id,
    graph: buildLiteVideoGraph(clips),
  });
}

await commitSeen("street", ["car (vehicle); person (people); Seen: 2 cars, 7 people.", "car (vehicle); person (people); Seen: a car, 5 people."]);
await commitSeen("hall", ["person (people); Seen: a person.", "person (people); Seen: a person."]);
await refreshEntityDescriptions(store);

test("an entity matched by its description alone does not bring in clips that never mention the query", async () => {
  const people = (await store.searchEntities({ terms: [{ text: "car", weight: 1 }], limit: 10 })).find((entity) => entity.name === "people");
  assert.ok(people, "the case needs an entity found through its description");
  const found = await retrieve(store, "car", { mode: "graph" });
  assert.ok(found.clips.length > 0);
  assert.deepEqual([...new Set(found.clips.map((clip) => clip.videoId))], ["street"]);
  assert.deepEqual((await retrieve(store, "car", { mode: "hybrid" })).videos.map((video) => video.videoId), ["street"]);
});

test("each hit names the words of its moment that match the query, per retriever", async () => {
  const found = await retrieve(store, "cars", { mode: "hybrid" });
  const [hit] = await retrievalHits(store, "cars", found, 5);
  assert.equal(hit?.videoId, "street");
  const detail = (retriever: string): string | undefined => hit?.provenance?.find((item) => item.retriever === retriever)?.detail;
  assert.equal(detail("bm25"), "words: car, cars");
  assert.equal(detail("visual"), "detections and tags: car, cars");
  assert.equal(detail("graph"), "words: car, cars");
});
