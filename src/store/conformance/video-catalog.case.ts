// The VideoCatalog part of every store: videos listed and read, staged ingest results, commit and re-commit, removal, clips,
// segments (with who speaks) and frames.

import assert from "node:assert/strict";
import { describe } from "node:test";
import type { Segment, Store, VideoContent } from "../../spec/index.js";
import { sampleVideo, query, storeCase, withGraph, type OpenStore } from "./fixtures.js";

/**
 * A conversation of two clips: speech with speakers, a line of no one, screen text; each clip's transcript is its speech
 * joined (a run of segments), and a chunk of both clips quotes them, so the text derived from segments is checked too.
 */
export function conversation(id: string): VideoContent {
  const segments: Segment[] = [
    { startSecond: 1, endSecond: 5, text: "welcome to the kitchen", source: "speech", speaker: "Speaker 1" },
    { startSecond: 5, endSecond: 9, text: "thanks for having me", source: "speech", speaker: "Speaker 2" },
    { startSecond: 10, endSecond: 20, text: "FLOUR 500 G", source: "screen", clipIndex: 0 },
    { startSecond: 31, endSecond: 35, text: "first the flour", source: "speech", speaker: "Speaker 1", clipIndex: 1 },
    { startSecond: 36, endSecond: 40, text: "and a voice from the back", source: "speech", clipIndex: 1 },
  ];
  const base = sampleVideo(id, ["welcome to the kitchen\nthanks for having me", "first the flour\nand a voice from the back"], {
    screen: ["FLOUR 500 G", ""],
  });
  return withGraph({ ...base, segments }, [{ entities: [["Kitchen", "place", "welcome to the kitchen"]], clips: [0, 1] }]);
}

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

    withStore("a video's language is kept, replaced by a new commit, and absent where none was given", async (store) => {
      const film = sampleVideo("film", ["wo ist der Schlüssel"]);
      await store.commitVideo({ ...film, video: { ...film.video, language: "de" } });
      await store.commitVideo(sampleVideo("talk", ["where is the key"]));
      assert.equal((await store.getVideo("film"))?.language, "de");
      assert.equal((await store.listVideos()).find((video) => video.id === "film")?.language, "de");
      assert.ok(!("language" in ((await store.getVideo("talk")) ?? {})), "no language key where none is known");
      await store.commitVideo({ ...film, video: { ...film.video, language: "fr" } });
      assert.equal((await store.getVideos(["film"]))[0]?.language, "fr");
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

    withStore("segments keep who speaks through commit and write-back; a segment of no one has no speaker", async (store) => {
      const content = conversation("talk");
      await store.commitVideo(content);
      assert.deepEqual(await store.getSegments("talk", 0, 60), content.segments, "every field, and no speaker key where none was given");
      assert.ok((await store.getSegments("talk", 36, 40)).every((segment) => !("speaker" in segment)));
      const chunk = (await store.getChunks([{ videoId: "talk", chunkIndex: 0 }]))[0];
      assert.equal(chunk?.text, "welcome to the kitchen\nthanks for having me first the flour\nand a voice from the back");

      // Clip 1's speech is read again by a diarizing transcriber: new speakers, one line still of no one.
      const respoken: Segment[] = [
        { startSecond: 31, endSecond: 34, text: "first the flour", source: "speech", speaker: "Speaker 2", clipIndex: 1 },
        { startSecond: 34, endSecond: 38, text: "then a pinch of salt", source: "speech", speaker: "Speaker 3", clipIndex: 1 },
        { startSecond: 38, endSecond: 40, text: "from the back", source: "speech", clipIndex: 1 },
      ];
      const clip1 = content.clips[1] as VideoContent["clips"][number];
      const transcript = respoken.map((segment) => segment.text).join("\n");
      await store.writeBack({
        videoId: "talk",
        documents: [{ ...clip1, transcript }],
        replaces: [{ clipIndex: 1, sources: ["speech"] }],
        segments: respoken,
        vectors: [],
        stages: [],
      });
      const kept = content.segments.slice(0, 3);
      assert.deepEqual(await store.getSegments("talk", 0, 60), [...kept, ...respoken], "the kept segments keep their speakers");
      assert.deepEqual(
        await store.getSegmentRanges([
          { videoId: "talk", startSecond: 30, endSecond: 36 },
          { videoId: "talk", startSecond: 0, endSecond: 6 },
        ]),
        [respoken.slice(0, 2), kept.slice(0, 2)],
      );
      assert.deepEqual((await store.getClips([{ videoId: "talk", clipIndex: 1 }]))[0]?.transcript, transcript);
      assert.equal((await store.getChunks([{ videoId: "talk", chunkIndex: 0 }]))[0]?.text, chunk?.text, "a chunk's text outlives the segments it was packed against");

      // Committed again without speakers (a transcriber that does not tell), the speakers go.
      await store.commitVideo(sampleVideo("talk", ["welcome"]));
      assert.deepEqual(await store.getSegments("talk", 0, 60), [{ startSecond: 1, endSecond: 29, text: "welcome", source: "subtitle" }]);
    });

    withStore("segments keep their language through commit and write-back, beside who speaks; none where none was given", async (store) => {
      const base = conversation("talk");
      // Two subtitle streams' lines, speech heard in German, screen text of no known language.
      const content = {
        ...base,
        segments: [
          { startSecond: 0, endSecond: 1, text: "Willkommen", source: "subtitle" as const, language: "de" },
          { startSecond: 0, endSecond: 1, text: "Welcome", source: "subtitle" as const, language: "en" },
          ...base.segments.map((segment) => (segment.source === "speech" ? { ...segment, language: "de" } : segment)),
        ],
      };
      await store.commitVideo(content);
      assert.deepEqual(await store.getSegments("talk", 0, 60), content.segments, "every field, and no language key where none was given");
      assert.ok((await store.getSegments("talk", 10, 20)).every((segment) => !("language" in segment)));
      const clip1 = content.clips[1] as VideoContent["clips"][number];
      const heard: Segment[] = [{ startSecond: 31, endSecond: 40, text: "erst das Mehl", source: "speech", language: "de", speaker: "Speaker 1", clipIndex: 1 }];
      await store.writeBack({ videoId: "talk", documents: [{ ...clip1, transcript: "erst das Mehl" }], replaces: [{ clipIndex: 1, sources: ["speech"] }], segments: heard, vectors: [], stages: [] });
      assert.deepEqual(await store.getSegments("talk", 30, 60), heard);
      assert.deepEqual((await store.getSegmentRanges([{ videoId: "talk", startSecond: 0, endSecond: 1 }]))[0]?.map((segment) => segment.language), ["de", "en"]);
      await store.commitVideo(sampleVideo("talk", ["welcome"]));
      assert.ok((await store.getSegments("talk", 0, 60)).every((segment) => !("language" in segment)), "committed again without languages, they go");
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

/**
 * A store that keeps its list of videos (every question reads it) must follow every change, its own and another
 * connection's or process's on the same library (`other`), and never hand out a list a caller could alter.
 */
export async function checkKeptVideoList(store: Store, other: Store): Promise<void> {
  const ids = async () => (await store.listVideos()).map((video) => video.id).sort();
  assert.deepEqual(await ids(), []);
  await store.commitVideo(sampleVideo("bread", ["kneading the dough"]));
  assert.deepEqual(await ids(), ["bread"]);
  assert.deepEqual(await ids(), ["bread"], "read again, unchanged");
  await other.commitVideo(sampleVideo("soup", ["chopping the onions"]));
  assert.deepEqual(await ids(), ["bread", "soup"]);
  await other.removeVideo("bread");
  assert.deepEqual(await ids(), ["soup"]);
  await other.writeBack({ videoId: "soup", documents: [], replaces: [], segments: [], vectors: [], stages: [], language: "de" });
  assert.equal((await store.listVideos())[0]?.language, "de", "a write-back that names the language changes the listed video");
  const list = await store.listVideos();
  assert.throws(() => Object.assign(list[0] as object, { title: "changed" }), TypeError, "a kept video cannot be altered by its caller");
  list.pop();
  assert.equal((await store.listVideos()).length, 1, "the list itself is the caller's own");
  await store.removeVideo("soup");
  assert.deepEqual(await ids(), []);
}
