// searchMoments and rankVideos over a small generated library: the moment cited, the video returned, the text shown.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import type { Segment, Store, VideoContent } from "../spec/index.js";
import { openSqliteStore } from "../store/index.js";
import { rankVideos } from "./rank-videos.js";
import { searchMoments } from "./search-moments.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-retrieval-"));
const store: Store = openSqliteStore(join(dir, "library.sqlite"));
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A video whose clip i holds the sentences of `clips[i]`, each sentence a 10-second segment. */
function video(id: string, clips: string[][], screen: Record<number, string> = {}): VideoContent {
  const segments: Segment[] = clips.flatMap((sentences, clipIndex) =>
    sentences.map((text, position): Segment => ({
      startSecond: clipIndex * 30 + position * 10,
      endSecond: clipIndex * 30 + position * 10 + 10,
      text,
      source: "speech",
    })),
  );
  for (const [clipIndex, text] of Object.entries(screen)) {
    segments.push({ startSecond: Number(clipIndex) * 30, endSecond: Number(clipIndex) * 30 + 30, text, source: "screen" });
  }
  return {
    video: {
      id,
      path: `/library/${id}.mp4`,
      title: `${id}.mp4`,
      durationSeconds: clips.length * 30,
      kind: "media",
      sizeBytes: 1,
      hasAudio: true,
      hasVideo: true,
      timesEstimated: false,
    },
    clips: clips.map((sentences, index) => ({
      videoId: id,
      index,
      startSecond: index * 30,
      endSecond: index * 30 + 30,
      transcript: sentences.join("\n"),
      screen: screen[index] ?? "",
      visual: "",
    })),
    segments: segments.sort((a, b) => a.startSecond - b.startSecond),
    frames: [],
    fingerprint: id,
  };
}

await store.commitVideo(
  video("brakes", [
    ["Welcome back to the garage.", "Today we look at the car."],
    ["First loosen the lug nuts.", "Then lift the car on a jack."],
    ["Now remove the caliper bolts.", "Hang the caliper so the brake hose is not stretched."],
    ["Slide the old brake disc off the hub.", "Clean the hub with a wire brush."],
    ["Thanks for watching.", "Subscribe for more."],
  ]),
);
await store.commitVideo(
  video(
    "bread",
    [
      ["Mix the flour and water.", "Let the dough rest."],
      ["Knead the dough for ten minutes.", "Shape the loaf."],
      ["Bake at two hundred and thirty degrees.", "Let it cool."],
    ],
    { 2: "Oven temperature 230 C" },
  ),
);
await store.commitVideo(video("bikes", [["Bicycle disc brakes squeal when the pads are glazed.", "Sand the pads lightly."]]));

test("a moment is the span of the matching clips, shown by the sentences that match", async () => {
  const [best] = await searchMoments(store, "How do I take the caliper and the brake disc off?");
  assert.equal(best?.videoId, "brakes");
  // Clips 2 and 3 touch, so they form one moment; it runs from the first to the last sentence that matches well.
  assert.deepEqual([best?.startSecond, best?.endSecond], [70, 100]);
  assert.match(best?.text ?? "", /caliper/);
  assert.match(best?.text ?? "", /brake disc/);
  assert.equal(best?.retriever, "bm25");
  assert.deepEqual(best?.source, ["speech"]);
  assert.equal(best?.path, "/library/brakes.mp4");
});

test("screen text is found and reported as the screen channel", async () => {
  const [best] = await searchMoments(store, "oven temperature");
  assert.equal(best?.videoId, "bread");
  assert.deepEqual([best?.startSecond, best?.endSecond], [60, 90]);
  assert.ok(best?.source.includes("screen"), `sources were ${JSON.stringify(best?.source)}`);
});

test("moments can be restricted to some videos, and a question with no content words finds nothing", async () => {
  const moments = await searchMoments(store, "disc brake pads", { videoIds: ["bikes"] });
  assert.deepEqual([...new Set(moments.map((moment) => moment.videoId))], ["bikes"]);
  assert.deepEqual(await searchMoments(store, "what is it?"), []);
  assert.deepEqual(await searchMoments(store, "submarine periscope"), []);
  assert.equal((await searchMoments(store, "the car", { limit: 1 })).length, 1);
});

test("videos are ranked for a question, each with its best moments", async () => {
  const ranked = await rankVideos(store, "What tools are needed to replace a car's brake disc and caliper?");
  assert.deepEqual(ranked.map((hit) => hit.videoId), ["brakes", "bikes"]);
  const [brakes] = ranked;
  assert.equal(brakes?.title, "brakes.mp4");
  assert.ok((brakes?.score ?? 0) > (ranked[1]?.score ?? 0));
  assert.ok((brakes?.moments.length ?? 0) >= 1);
  assert.ok(brakes?.moments.every((moment) => moment.videoId === "brakes"));
  assert.equal(brakes?.moments[0]?.startSecond, 70, "the moment starts at the sentence naming the caliper and the brake");
  assert.deepEqual((await rankVideos(store, "knead dough", { limit: 1 })).map((hit) => hit.videoId), ["bread"]);
});
