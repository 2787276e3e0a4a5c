// The shared Store test suite: every Store implementation (SQLite now, Postgres later) runs these same cases, so
// ingest and retrieval can rely on one behaviour whatever the backend.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ClipDocument, Store, VectorRecord, VideoContent } from "../spec/index.js";

/** Opens a fresh, empty store; called once per case. */
export type OpenStore = () => Store | Promise<Store>;

/** Builds a small video whose clip `i` holds `texts[i]` as transcript, 30 s per clip, one segment per clip. */
export function sampleVideo(
  id: string,
  texts: string[],
  extra: { screen?: string[]; fingerprint?: string; title?: string } = {},
): VideoContent {
  const clips: ClipDocument[] = texts.map((transcript, index) => ({
    videoId: id,
    index,
    startSecond: index * 30,
    endSecond: index * 30 + 30,
    transcript,
    screen: extra.screen?.[index] ?? "",
    visual: "",
  }));
  return {
    video: {
      id,
      path: `/videos/${id}.mp4`,
      title: extra.title ?? id,
      durationSeconds: texts.length * 30,
      kind: "media",
      sizeBytes: 1000,
      width: 640,
      height: 360,
      hasAudio: true,
      hasVideo: true,
      timesEstimated: false,
    },
    clips,
    segments: texts.map((text, index) => ({
      startSecond: index * 30 + 1,
      endSecond: index * 30 + 29,
      text,
      source: "subtitle" as const,
    })),
    frames: texts.map((_, index) => ({ timeSecond: index * 30, hash: "00ff00ff00ff00ff" })),
    fingerprint: extra.fingerprint ?? `sha-${id}`,
  };
}

const textSpace = "text:test-3d";
const imageSpace = "image:test-2d";

/** A clip vector in the 3-d text space (or another space). */
const clipVector = (videoId: string, clipIndex: number, values: number[], space = textSpace): VectorRecord => ({
  space,
  owner: "clip",
  videoId,
  clipIndex,
  vector: new Float32Array(values),
});

/** A frame vector in the 2-d image space. */
const frameVector = (videoId: string, clipIndex: number, timeSecond: number, values: number[]): VectorRecord => ({
  space: imageSpace,
  owner: "frame",
  videoId,
  clipIndex,
  timeSecond,
  vector: new Float32Array(values),
});

const invalidArgument = (pattern: RegExp) => (error: unknown) => {
  const { code, message } = error as { code?: string; message?: string };
  assert.equal(code, "ARGUMENT_INVALID");
  assert.match(message ?? "", pattern);
  return true;
};

const query = (text: string, extra: { videoIds?: string[]; limit?: number } = {}) => ({
  terms: text.split(" ").map((word) => ({ text: word, weight: 1 })),
  limit: extra.limit ?? 10,
  ...(extra.videoIds ? { videoIds: extra.videoIds } : {}),
});

export function runStoreConformance(name: string, open: OpenStore): void {
  describe(`Store conformance: ${name}`, () => {
    const withStore = (title: string, body: (store: Store) => void | Promise<void>): void => {
      test(title, async () => {
        const store = await open();
        try {
          await body(store);
        } finally {
          store.close();
        }
      });
    };

    withStore("a committed video is listed and readable, with its clip count and fingerprint", (store) => {
      assert.deepEqual(store.listVideos(), []);
      store.commitVideo(sampleVideo("alpha", ["the brake caliper comes off first", "then the rotor slides off"]));
      const [video] = store.listVideos();
      assert.equal(video?.id, "alpha");
      assert.equal(video?.clipCount, 2);
      assert.equal(video?.path, "/videos/alpha.mp4");
      assert.equal(video?.width, 640);
      assert.equal(video?.timesEstimated, false);
      assert.ok(!Number.isNaN(Date.parse(video?.ingestedAt ?? "")));
      assert.deepEqual(store.getVideo("alpha"), video);
      assert.equal(store.getFingerprint("alpha"), "sha-alpha");
      assert.equal(store.getVideo("missing"), undefined);
      assert.equal(store.getFingerprint("missing"), undefined);
    });

    withStore("videos are listed newest first", async (store) => {
      store.commitVideo(sampleVideo("first", ["one"]));
      await new Promise((resolve) => setTimeout(resolve, 5));
      store.commitVideo(sampleVideo("second", ["two"]));
      assert.deepEqual(store.listVideos().map((video) => video.id), ["second", "first"]);
    });

    withStore("a pending video (stages saved, not committed) is invisible everywhere", (store) => {
      store.saveStage("pending", { stage: "probe", key: "k1", output: { durationSeconds: 12 } });
      assert.deepEqual(store.listVideos(), []);
      assert.equal(store.getVideo("pending"), undefined);
      assert.equal(store.getFingerprint("pending"), undefined);
      assert.equal(store.removeVideo("pending"), false, "a pending video was never there for the user");
      assert.deepEqual(store.loadStages("pending"), [], "removing it drops its stages too");
    });

    withStore("stages are saved, overwritten by stage name, loaded in order and discarded", (store) => {
      store.saveStage("v", { stage: "probe", key: "a", output: { durationSeconds: 60 } });
      store.saveStage("v", { stage: "subtitles", key: "b", output: [1, 2, 3] });
      store.saveStage("v", { stage: "probe", key: "a2", output: { durationSeconds: 61 } });
      assert.deepEqual(store.loadStages("v"), [
        { stage: "probe", key: "a2", output: { durationSeconds: 61 } },
        { stage: "subtitles", key: "b", output: [1, 2, 3] },
      ]);
      store.discardStages("v");
      assert.deepEqual(store.loadStages("v"), []);
      assert.deepEqual(store.loadStages("other"), []);
    });

    withStore("commit drops the video's stages; a re-ingest's stages keep the old version visible", (store) => {
      store.saveStage("v", { stage: "probe", key: "a", output: null });
      store.commitVideo(sampleVideo("v", ["first version"]));
      assert.deepEqual(store.loadStages("v"), []);
      store.saveStage("v", { stage: "probe", key: "b", output: 1 });
      assert.equal(store.getVideo("v")?.clipCount, 1, "still visible while a new version is being ingested");
      store.discardStages("v");
      assert.equal(store.getVideo("v")?.clipCount, 1, "discarding a failed re-ingest keeps the committed video");
      assert.deepEqual(store.loadStages("v"), []);
    });

    withStore("re-committing the same id replaces every part of the old version", (store) => {
      store.commitVideo(sampleVideo("v", ["walnut cabinet hinges", "sanding the walnut", "oil finish"], { fingerprint: "old" }));
      store.commitVideo(sampleVideo("v", ["tomato seedlings in spring"], { fingerprint: "new", title: "Tomatoes" }));
      assert.equal(store.listVideos().length, 1);
      const video = store.getVideo("v");
      assert.equal(video?.clipCount, 1);
      assert.equal(video?.title, "Tomatoes");
      assert.equal(store.getFingerprint("v"), "new");
      assert.deepEqual(store.searchClips(query("walnut")), []);
      assert.deepEqual(store.searchVideos(query("walnut")), []);
      assert.equal(store.searchClips(query("tomato"))[0]?.videoId, "v");
      assert.deepEqual(store.getSegments("v", 0, 1000).map((segment) => segment.text), ["tomato seedlings in spring"]);
      assert.deepEqual(store.getClips([{ videoId: "v", clipIndex: 1 }]), []);
    });

    withStore("search finds the clip that says it, with its video and times, stemming the words", (store) => {
      store.commitVideo(sampleVideo("car", ["jack up the car", "we are replacing the brake pads", "put the wheel back"]));
      store.commitVideo(sampleVideo("garden", ["planting tomato seedlings", "watering the garden beds"]));
      const [best, ...rest] = store.searchClips(query("replaced brakes"));
      assert.deepEqual(
        { videoId: best?.videoId, clipIndex: best?.clipIndex, startSecond: best?.startSecond, endSecond: best?.endSecond },
        { videoId: "car", clipIndex: 1, startSecond: 30, endSecond: 60 },
      );
      assert.ok((best?.score ?? 0) > 0, "higher is better, so a match scores above zero");
      assert.deepEqual(rest, []);
      assert.deepEqual(store.searchClips(query("submarine")), []);
      assert.deepEqual(store.searchVideos(query("garden watering")).map((match) => match.videoId), ["garden"]);
    });

    withStore("search ranks clips by BM25, honours the limit and restricts to the given videos", (store) => {
      store.commitVideo(sampleVideo("a", ["saw saw saw the plank", "glue", "saw once"]));
      store.commitVideo(sampleVideo("b", ["a saw and a plank", "nothing here"]));
      const all = store.searchClips(query("saw plank"));
      assert.equal(all.length, 3);
      assert.ok(all.every((match, index) => index === 0 || (all[index - 1]?.score ?? 0) >= match.score));
      assert.equal(store.searchClips(query("saw plank", { limit: 1 })).length, 1);
      const onlyB = store.searchClips(query("saw", { videoIds: ["b"] }));
      assert.deepEqual(onlyB.map((match) => match.videoId), ["b"]);
      assert.deepEqual(store.searchClips(query("saw", { videoIds: ["unknown"] })), []);
      assert.deepEqual(store.searchVideos(query("saw", { videoIds: ["b"] })).map((match) => match.videoId), ["b"]);
    });

    withStore("term weights decide between clips that each match one term, integral or not", (store) => {
      store.commitVideo(sampleVideo("v", ["hammer on the bench", "chisel on the bench"]));
      const ranked = (hammer: number, chisel: number) =>
        store
          .searchClips({ terms: [{ text: "hammer", weight: hammer }, { text: "chisel", weight: chisel }], limit: 5 })
          .map((match) => match.clipIndex);
      assert.deepEqual(ranked(3, 1), [0, 1]);
      assert.deepEqual(ranked(1, 3), [1, 0]);
      assert.deepEqual(ranked(0.4, 1.7), [1, 0]);
      assert.deepEqual(ranked(0, 1), [1], "a zero weight drops the term");
    });

    withStore("screen text is searchable and field weights can turn a channel off", (store) => {
      store.commitVideo(sampleVideo("slides", ["welcome everyone", "let us begin"], { screen: ["", "Quarterly revenue"] }));
      assert.equal(store.searchClips(query("revenue"))[0]?.clipIndex, 1);
      const off = store.searchClips({ ...query("revenue"), fieldWeights: { transcript: 1, screen: 0, visual: 0 } });
      assert.deepEqual(off, [], "a channel weighted zero brings no hits");
    });

    withStore("a search with a limit or field weight that is not a number ≥ 0 is ARGUMENT_INVALID", (store) => {
      store.commitVideo(sampleVideo("v", ["some words"]));
      const invalid = (error: unknown) => (error as { code?: string }).code === "ARGUMENT_INVALID";
      assert.throws(() => store.searchClips({ ...query("words"), limit: Number.NaN }), invalid);
      assert.throws(() => store.searchVideos({ ...query("words"), limit: -1 }), invalid);
      const fieldWeights = { transcript: Number.POSITIVE_INFINITY, screen: 1, visual: 1 };
      assert.throws(() => store.searchClips({ ...query("words"), fieldWeights }), invalid);
      assert.deepEqual(store.searchClips({ ...query("words"), limit: 0 }), []);
    });

    withStore("a slide shown across clips counts once for its video, not once per clip", (store) => {
      const slide = "Quarterly revenue";
      store.commitVideo(sampleVideo("long", ["one", "two", "three", "four"], { screen: [slide, slide, slide, slide] }));
      store.commitVideo(sampleVideo("short", ["five"], { screen: [slide] }));
      const [first, second] = store.searchVideos(query("revenue"));
      assert.ok(first && second);
      assert.ok(Math.abs(first.score - second.score) / first.score < 0.5, "equal term frequency, only lengths differ");
    });

    withStore("quoted phrases score extra where the words stand together", (store) => {
      store.commitVideo(sampleVideo("v", ["disc brake on the front", "brake fluid and a disc of felt"]));
      const [best] = store.searchClips({ terms: [], phrases: ["disc brake"], limit: 5 });
      assert.equal(best?.clipIndex, 0);
    });

    withStore("removing a video clears its clips, segments, search hits and term counts", (store) => {
      store.commitVideo(sampleVideo("gone", ["sourdough starter feeding"]));
      store.commitVideo(sampleVideo("kept", ["bread flour"]));
      assert.equal(store.termDocumentFrequency(["sourdough"]).frequencies.get("sourdough"), 1);
      assert.equal(store.removeVideo("gone"), true);
      assert.equal(store.removeVideo("gone"), false);
      assert.equal(store.getVideo("gone"), undefined);
      assert.deepEqual(store.searchClips(query("sourdough")), []);
      assert.deepEqual(store.searchVideos(query("sourdough")), []);
      assert.deepEqual(store.getSegments("gone", 0, 100), []);
      assert.deepEqual(store.getClips([{ videoId: "gone", clipIndex: 0 }]), []);
      const { frequencies, documentCount } = store.termDocumentFrequency(["sourdough", "flour"]);
      assert.equal(frequencies.get("sourdough"), 0);
      assert.equal(frequencies.get("flour"), 1);
      assert.equal(documentCount, 1);
      assert.deepEqual(store.listVideos().map((video) => video.id), ["kept"]);
    });

    withStore("clips and segments read back by key and by time", (store) => {
      store.commitVideo(sampleVideo("v", ["zero", "one", "two"], { screen: ["", "slide one", ""] }));
      const clips = store.getClips([{ videoId: "v", clipIndex: 1 }, { videoId: "v", clipIndex: 9 }]);
      assert.deepEqual(clips, [
        { videoId: "v", index: 1, startSecond: 30, endSecond: 60, transcript: "one", screen: "slide one", visual: "" },
      ]);
      assert.deepEqual(store.getSegments("v", 30, 60).map((segment) => segment.text), ["one"]);
      assert.deepEqual(store.getSegments("v", 28, 32).map((segment) => segment.text), ["zero", "one"]);
      assert.deepEqual(store.getSegments("v", 29, 31), [], "[start, end) excludes segments that end at the start");
      assert.equal(store.getSegments("v", 0, 30)[0]?.source, "subtitle");
    });

    withStore("vector search returns the nearest vectors first, by cosine distance, up to the limit", (store) => {
      const video = sampleVideo("v", ["zero", "one", "two", "three"]);
      store.commitVideo({
        ...video,
        vectors: [
          clipVector("v", 0, [0, 1, 0]),
          clipVector("v", 1, [2, 0, 0]),
          clipVector("v", 2, [1, 1, 0]),
          clipVector("v", 3, [-1, 0, 0]),
        ],
      });
      const matches = store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0, 0]), limit: 10 });
      assert.deepEqual(matches.map((match) => match.clipIndex), [1, 2, 0, 3]);
      assert.equal(matches[0]?.videoId, "v");
      assert.equal(matches[0]?.timeSecond, undefined, "clip vectors have no time");
      const distances = matches.map((match) => match.distance);
      [0, 1 - Math.SQRT1_2, 1, 2].forEach((expected, index) => {
        assert.ok(Math.abs((distances[index] ?? -9) - expected) < 1e-6, `distance ${index} is ${distances[index]}`);
      });
      const top = store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0.1, 0]), limit: 2 });
      assert.deepEqual(top.map((match) => match.clipIndex), [1, 2]);
      assert.deepEqual(store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0, 0]), limit: 0 }), []);
    });

    withStore("vector spaces are kept apart, each with its own dimension and count", (store) => {
      store.commitVideo({
        ...sampleVideo("v", ["zero", "one"]),
        vectors: [
          clipVector("v", 0, [1, 0, 0]),
          clipVector("v", 1, [0, 1, 0]),
          clipVector("v", 0, [1, 0, 0], "text:other-model"),
          frameVector("v", 1, 40, [1, 0]),
        ],
      });
      assert.deepEqual(store.vectorSpaces(), [
        { space: imageSpace, dimensions: 2, count: 1 },
        { space: "text:other-model", dimensions: 3, count: 1 },
        { space: textSpace, dimensions: 3, count: 2 },
      ]);
      const text = store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0, 0]), limit: 10 });
      assert.deepEqual(text.map((match) => match.clipIndex), [0, 1], "the other 3-d space's vector is not among them");
      const image = store.searchVectors({ space: imageSpace, vector: new Float32Array([1, 0]), limit: 10 });
      assert.deepEqual(image, [{ videoId: "v", clipIndex: 1, timeSecond: 40, distance: 0 }]);
      assert.deepEqual(store.searchVectors({ space: "text:unknown", vector: new Float32Array([1]), limit: 10 }), []);
    });

    withStore("vector search filters by owner and by video", (store) => {
      store.commitVideo({
        ...sampleVideo("a", ["zero", "one"]),
        vectors: [frameVector("a", 0, 5, [1, 0]), frameVector("a", 1, 35, [0, 1])],
      });
      store.commitVideo({
        ...sampleVideo("b", ["zero"]),
        vectors: [frameVector("b", 0, 10, [1, 0.1]), { ...clipVector("b", 0, [1, 0]), space: imageSpace }],
      });
      const search = (extra: { owner?: "clip" | "frame"; videoIds?: string[] }) =>
        store
          .searchVectors({ space: imageSpace, vector: new Float32Array([1, 0]), limit: 10, ...extra })
          .map((match) => `${match.videoId}/${match.clipIndex}@${match.timeSecond ?? "clip"}`);
      assert.deepEqual(search({}), ["a/0@5", "b/0@clip", "b/0@10", "a/1@35"]);
      assert.deepEqual(search({ owner: "frame" }), ["a/0@5", "b/0@10", "a/1@35"]);
      assert.deepEqual(search({ owner: "clip" }), ["b/0@clip"]);
      assert.deepEqual(search({ videoIds: ["b"] }), ["b/0@clip", "b/0@10"]);
      assert.deepEqual(search({ owner: "frame", videoIds: ["a", "missing"] }), ["a/0@5", "a/1@35"]);
      assert.deepEqual(search({ videoIds: ["missing"] }), []);
      assert.deepEqual(search({ videoIds: [] }), []);
    });

    withStore("removing a video removes its vectors, and a space left empty goes with them", (store) => {
      const gone = [clipVector("gone", 0, [1, 0, 0]), frameVector("gone", 0, 1, [1, 0])];
      store.commitVideo({ ...sampleVideo("gone", ["x"]), vectors: gone });
      store.commitVideo({ ...sampleVideo("kept", ["y"]), vectors: [clipVector("kept", 0, [0, 1, 0])] });
      assert.equal(store.vectorCount(), 3);
      assert.equal(store.removeVideo("gone"), true);
      assert.equal(store.vectorCount(), 1);
      assert.equal(store.vectorCount("gone"), 0);
      const matches = store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0, 0]), limit: 10 });
      assert.deepEqual(matches.map((match) => match.videoId), ["kept"]);
      assert.deepEqual(store.vectorSpaces(), [{ space: textSpace, dimensions: 3, count: 1 }]);
      assert.deepEqual(store.searchVectors({ space: imageSpace, vector: new Float32Array([1, 0]), limit: 10 }), []);
    });

    withStore("re-committing a video replaces its vectors; a version without vectors leaves none", (store) => {
      const first = [clipVector("v", 0, [1, 0, 0]), clipVector("v", 1, [0, 1, 0])];
      store.commitVideo({ ...sampleVideo("v", ["a", "b"]), vectors: first });
      store.commitVideo({ ...sampleVideo("v", ["a"]), vectors: [clipVector("v", 0, [0, 0, 1])] });
      assert.equal(store.vectorCount("v"), 1);
      const [match, ...rest] = store.searchVectors({ space: textSpace, vector: new Float32Array([0, 0, 1]), limit: 10 });
      assert.deepEqual(match, { videoId: "v", clipIndex: 0, distance: 0 });
      assert.deepEqual(rest, []);
      store.commitVideo(sampleVideo("v", ["a"]));
      assert.equal(store.vectorCount(), 0);
      assert.deepEqual(store.vectorSpaces(), []);
    });

    withStore("a vector of the wrong dimension for its space is ARGUMENT_INVALID naming both dimensions", (store) => {
      store.commitVideo({ ...sampleVideo("v", ["a"]), vectors: [clipVector("v", 0, [1, 0, 0])] });
      assert.throws(
        () => store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0]), limit: 5 }),
        invalidArgument(/3.*2|2.*3/),
      );
      assert.throws(
        () => store.addVectors("v", [clipVector("v", 0, [1, 0, 0, 0], imageSpace), clipVector("v", 0, [1, 0], imageSpace)]),
        invalidArgument(/4.*2|2.*4/),
        "two dimensions in one new space",
      );
      assert.throws(() => store.addVectors("v", [clipVector("v", 0, [1, 0, 0, 0, 0])]), invalidArgument(/3.*5|5.*3/));
      assert.throws(
        () => store.commitVideo({ ...sampleVideo("w", ["a"]), vectors: [clipVector("w", 0, [1, 0])] }),
        invalidArgument(/3.*2|2.*3/),
      );
      assert.equal(store.getVideo("w"), undefined, "the commit rolled back");
      assert.deepEqual(store.vectorSpaces(), [{ space: textSpace, dimensions: 3, count: 1 }], "nothing half-written");
      assert.throws(
        () => store.searchVectors({ space: textSpace, vector: new Float32Array([0, 0, 0]), limit: 5 }),
        invalidArgument(/zero/),
      );
      assert.throws(
        () => store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0, 0]), limit: Number.NaN }),
        invalidArgument(/limit/),
      );
    });

    withStore("vectors added to a ready video later are searchable, and adding them again changes nothing", (store) => {
      store.commitVideo(sampleVideo("v", ["a", "b"]));
      const records = [clipVector("v", 0, [1, 0, 0]), clipVector("v", 1, [0, 1, 0]), frameVector("v", 1, 31, [0, 1])];
      store.addVectors("v", records);
      store.addVectors("v", records);
      assert.equal(store.vectorCount("v"), 3);
      store.addVectors("v", [clipVector("v", 1, [1, 0.01, 0]), frameVector("v", 1, 32, [0, 1])]);
      assert.equal(store.vectorCount("v"), 4, "a new time is a new frame; the same clip is replaced");
      const matches = store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0.01, 0]), limit: 1 });
      assert.deepEqual(matches.map((match) => match.clipIndex), [1], "the replaced vector is the one searched");
      assert.throws(
        () => store.addVectors("missing", [clipVector("missing", 0, [1, 0, 0])]),
        (error: unknown) => (error as { code?: string }).code === "VIDEO_NOT_FOUND",
      );
      store.saveStage("pending", { stage: "probe", key: "k", output: null });
      assert.throws(
        () => store.addVectors("pending", [clipVector("pending", 0, [1, 0, 0])]),
        (error: unknown) => (error as { code?: string }).code === "VIDEO_NOT_FOUND",
        "a pending video is not there yet",
      );
      assert.throws(() => store.addVectors("v", [clipVector("other", 0, [1, 0, 0])]), invalidArgument(/other/));
      assert.equal(store.vectorCount(), 4);
    });
  });
}
