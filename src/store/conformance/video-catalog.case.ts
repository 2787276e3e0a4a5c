// The VideoCatalog part of every store: videos listed and read, staged ingest results, commit and re-commit, removal, clips, segments and frames.

import assert from "node:assert/strict";
import { describe } from "node:test";
import { sampleVideo, query, storeCase, type OpenStore } from "./fixtures.js";

export function runVideoCatalogConformance(name: string, open: OpenStore): void {
  describe(`VideoCatalog: ${name}`, () => {
    const withStore = storeCase(open);

    withStore("a committed video is listed and readable, with its clip count and fingerprint", async (store) => {
      assert.deepEqual(await store.listVideos(), []);
      await store.commitVideo(sampleVideo("alpha", ["the brake caliper comes off first", "then the rotor slides off"]));
      const [video] = await store.listVideos();
      assert.equal(video?.id, "alpha");
      assert.equal(video?.clipCount, 2);
      assert.equal(video?.path, "/videos/alpha.mp4");
      assert.equal(video?.width, 640);
      assert.equal(video?.timesEstimated, false);
      assert.ok(!Number.isNaN(Date.parse(video?.ingestedAt ?? "")));
      assert.deepEqual(await store.getVideo("alpha"), video);
      assert.equal(await store.getFingerprint("alpha"), "sha-alpha");
      assert.equal(await store.getVideo("missing"), undefined);
      assert.equal(await store.getFingerprint("missing"), undefined);
      await store.commitVideo(sampleVideo("beta", ["one"]));
      assert.deepEqual(
        (await store.getVideos(["beta", "missing", "alpha", "beta"])).map((found) => found?.id),
        ["beta", undefined, "alpha", "beta"],
        "in the order asked, repeats and all",
      );
      assert.deepEqual(await store.getVideos([]), []);
    });

    withStore("videos are listed newest first", async (store) => {
      await store.commitVideo(sampleVideo("first", ["one"]));
      await new Promise((resolve) => setTimeout(resolve, 5));
      await store.commitVideo(sampleVideo("second", ["two"]));
      assert.deepEqual((await store.listVideos()).map((video) => video.id), ["second", "first"]);
    });

    withStore("a pending video (stages saved, not committed) is invisible everywhere", async (store) => {
      await store.saveStage("pending", { stage: "probe", key: "k1", output: { durationSeconds: 12 } });
      assert.deepEqual(await store.listVideos(), []);
      assert.equal(await store.getVideo("pending"), undefined);
      assert.equal(await store.getFingerprint("pending"), undefined);
      assert.equal(await store.removeVideo("pending"), false, "a pending video was never there for the user");
      assert.deepEqual(await store.loadStages("pending"), [], "removing it drops its stages too");
    });

    withStore("stages are saved, overwritten by stage name, loaded in order and discarded", async (store) => {
      await store.saveStage("v", { stage: "probe", key: "a", output: { durationSeconds: 60 } });
      await store.saveStage("v", { stage: "subtitles", key: "b", output: [1, 2, 3] });
      await store.saveStage("v", { stage: "probe", key: "a2", output: { durationSeconds: 61 } });
      assert.deepEqual(await store.loadStages("v"), [
        { stage: "probe", key: "a2", output: { durationSeconds: 61 } },
        { stage: "subtitles", key: "b", output: [1, 2, 3] },
      ]);
      await store.discardStages("v");
      assert.deepEqual(await store.loadStages("v"), []);
      assert.deepEqual(await store.loadStages("other"), []);
    });

    withStore("commit drops the video's stages; a re-ingest's stages keep the old version visible", async (store) => {
      await store.saveStage("v", { stage: "probe", key: "a", output: null });
      await store.commitVideo(sampleVideo("v", ["first version"]));
      assert.deepEqual(await store.loadStages("v"), []);
      await store.saveStage("v", { stage: "probe", key: "b", output: 1 });
      assert.equal((await store.getVideo("v"))?.clipCount, 1, "still visible while a new version is being ingested");
      await store.discardStages("v");
      assert.equal((await store.getVideo("v"))?.clipCount, 1, "discarding a failed re-ingest keeps the committed video");
      assert.deepEqual(await store.loadStages("v"), []);
    });

    withStore("re-committing the same id replaces every part of the old version", async (store) => {
      await store.commitVideo(sampleVideo("v", ["walnut cabinet hinges", "sanding the walnut", "oil finish"], { fingerprint: "old" }));
      await store.commitVideo(sampleVideo("v", ["tomato seedlings in spring"], { fingerprint: "new", title: "Tomatoes" }));
      assert.equal((await store.listVideos()).length, 1);
      const video = await store.getVideo("v");
      assert.equal(video?.clipCount, 1);
      assert.equal(video?.title, "Tomatoes");
      assert.equal(await store.getFingerprint("v"), "new");
      assert.deepEqual(await store.searchClips(query("walnut")), []);
      assert.deepEqual(await store.searchVideos(query("walnut")), []);
      assert.equal((await store.searchClips(query("tomato")))[0]?.videoId, "v");
      assert.deepEqual((await store.getSegments("v", 0, 1000)).map((segment) => segment.text), ["tomato seedlings in spring"]);
      assert.deepEqual(await store.getClips([{ videoId: "v", clipIndex: 1 }]), []);
    });

    withStore("removing a video clears its clips, segments, search hits and term counts", async (store) => {
      await store.commitVideo(sampleVideo("gone", ["sourdough starter feeding"]));
      await store.commitVideo(sampleVideo("kept", ["bread flour"]));
      assert.equal((await store.termDocumentFrequency(["sourdough"])).frequencies.get("sourdough"), 1);
      assert.equal(await store.removeVideo("gone"), true);
      assert.equal(await store.removeVideo("gone"), false);
      assert.equal(await store.getVideo("gone"), undefined);
      assert.deepEqual(await store.searchClips(query("sourdough")), []);
      assert.deepEqual(await store.searchVideos(query("sourdough")), []);
      assert.deepEqual(await store.getSegments("gone", 0, 100), []);
      assert.deepEqual(await store.getClips([{ videoId: "gone", clipIndex: 0 }]), []);
      const { frequencies, documentCount } = await store.termDocumentFrequency(["sourdough", "flour"]);
      assert.equal(frequencies.get("sourdough"), 0);
      assert.equal(frequencies.get("flour"), 1);
      assert.equal(documentCount, 1);
      assert.deepEqual((await store.listVideos()).map((video) => video.id), ["kept"]);
    });

    withStore("clips and segments read back by key and by time", async (store) => {
      await store.commitVideo(sampleVideo("v", ["zero", "one", "two"], { screen: ["", "slide one", ""] }));
      const clips = await store.getClips([{ videoId: "v", clipIndex: 1 }, { videoId: "v", clipIndex: 9 }]);
      assert.deepEqual(clips, [
        { videoId: "v", index: 1, startSecond: 30, endSecond: 60, transcript: "one", screen: "slide one", visual: "" },
      ]);
      assert.deepEqual((await store.getSegments("v", 30, 60)).map((segment) => segment.text), ["one"]);
      assert.deepEqual((await store.getSegments("v", 28, 32)).map((segment) => segment.text), ["zero", "one"]);
      assert.deepEqual(await store.getSegments("v", 29, 31), [], "[start, end) excludes segments that end at the start");
      assert.equal((await store.getSegments("v", 0, 30))[0]?.source, "subtitle");
      await store.commitVideo(sampleVideo("w", ["other"]));
      const ranges = [
        { videoId: "v", startSecond: 28, endSecond: 32 },
        { videoId: "missing", startSecond: 0, endSecond: 100 },
        { videoId: "w", startSecond: 0, endSecond: 30 },
        { videoId: "v", startSecond: 29, endSecond: 31 },
      ];
      const each = await Promise.all(ranges.map((range) => store.getSegments(range.videoId, range.startSecond, range.endSecond)));
      assert.deepEqual(await store.getSegmentRanges(ranges), each, "many ranges in one read, as one at a time");
      assert.deepEqual(each.map((segments) => segments.map((segment) => segment.text)), [["zero", "one"], [], ["other"], []]);
      assert.deepEqual(await store.getSegmentRanges([]), []);
    });
  });
}
