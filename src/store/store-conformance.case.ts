// The shared Store test suite: every Store implementation (SQLite now, Postgres later) runs these same cases, so
// ingest and retrieval can rely on one behaviour whatever the backend.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ClipDocument, Store, VectorRecord, VideoContent, VideoGraph } from "../spec/index.js";

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

/** One chunk of `withGraph`: entities as [name, type, description], relations as [source, target, description, strength]. */
export interface SampleChunk {
  entities: [name: string, type: string, description: string][];
  relations?: [source: string, target: string, description: string, strength: number][];
  /** First and last clip of the chunk; chunk `i` is clip `i` alone by default. */
  clips?: [number, number];
}

/** Adds a graph to a sample video: one chunk per entry, names keyed by lowercasing them. */
export function withGraph(content: VideoContent, chunks: SampleChunk[], extra: Partial<VideoGraph> = {}): VideoContent {
  const nameKey = (name: string): string => name.toLowerCase();
  return {
    ...content,
    graph: {
      extractor: "test@1",
      chunks: chunks.map((chunk, index) => {
        const [clipStart, clipEnd] = chunk.clips ?? [index, index];
        const text = content.clips.slice(clipStart, clipEnd + 1).map((clip) => clip.transcript).join(" ");
        return { index, clipStart, clipEnd, startSecond: clipStart * 30, endSecond: clipEnd * 30 + 30, text, tokenCount: 3 };
      }),
      extractions: chunks.map((chunk, chunkIndex) => ({
        chunkIndex,
        entities: chunk.entities.map(([name, type, description]) => ({ name, type, description, nameKey: nameKey(name) })),
        relations: (chunk.relations ?? []).map(([source, target, description, strength]) => ({
          source,
          target,
          description,
          strength,
          sourceKey: nameKey(source),
          targetKey: nameKey(target),
        })),
      })),
      ...extra,
    },
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

const entitySpace = "entity:test-3d";

/** An entity name vector for `withGraph`'s `entityVectors`. */
const nameVector = (name: string, values: number[]) => ({ nameKey: name.toLowerCase(), vector: new Float32Array(values) });

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
          await store.close();
        }
      });
    };

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

    withStore("search finds the clip that says it, with its video and times, stemming the words", async (store) => {
      await store.commitVideo(sampleVideo("car", ["jack up the car", "we are replacing the brake pads", "put the wheel back"]));
      await store.commitVideo(sampleVideo("garden", ["planting tomato seedlings", "watering the garden beds"]));
      const [best, ...rest] = await store.searchClips(query("replaced brakes"));
      assert.deepEqual(
        { videoId: best?.videoId, clipIndex: best?.clipIndex, startSecond: best?.startSecond, endSecond: best?.endSecond },
        { videoId: "car", clipIndex: 1, startSecond: 30, endSecond: 60 },
      );
      assert.ok((best?.score ?? 0) > 0, "higher is better, so a match scores above zero");
      assert.deepEqual(rest, []);
      assert.deepEqual(await store.searchClips(query("submarine")), []);
      assert.deepEqual((await store.searchVideos(query("garden watering"))).map((match) => match.videoId), ["garden"]);
    });

    withStore("search ranks clips by BM25, honours the limit and restricts to the given videos", async (store) => {
      await store.commitVideo(sampleVideo("a", ["saw saw saw the plank", "glue", "saw once"]));
      await store.commitVideo(sampleVideo("b", ["a saw and a plank", "nothing here"]));
      const all = await store.searchClips(query("saw plank"));
      assert.equal(all.length, 3);
      assert.ok(all.every((match, index) => index === 0 || (all[index - 1]?.score ?? 0) >= match.score));
      assert.equal((await store.searchClips(query("saw plank", { limit: 1 }))).length, 1);
      const onlyB = await store.searchClips(query("saw", { videoIds: ["b"] }));
      assert.deepEqual(onlyB.map((match) => match.videoId), ["b"]);
      assert.deepEqual(await store.searchClips(query("saw", { videoIds: ["unknown"] })), []);
      assert.deepEqual((await store.searchVideos(query("saw", { videoIds: ["b"] }))).map((match) => match.videoId), ["b"]);
    });

    withStore("term weights decide between clips that each match one term, integral or not", async (store) => {
      await store.commitVideo(sampleVideo("v", ["hammer on the bench", "chisel on the bench"]));
      const ranked = async (hammer: number, chisel: number) =>
        (await store.searchClips({ terms: [{ text: "hammer", weight: hammer }, { text: "chisel", weight: chisel }], limit: 5 }))
          .map((match) => match.clipIndex);
      assert.deepEqual(await ranked(3, 1), [0, 1]);
      assert.deepEqual(await ranked(1, 3), [1, 0]);
      assert.deepEqual(await ranked(0.4, 1.7), [1, 0]);
      assert.deepEqual(await ranked(0, 1), [1], "a zero weight drops the term");
    });

    withStore("screen text is searchable and field weights can turn a channel off", async (store) => {
      await store.commitVideo(sampleVideo("slides", ["welcome everyone", "let us begin"], { screen: ["", "Quarterly revenue"] }));
      assert.equal((await store.searchClips(query("revenue")))[0]?.clipIndex, 1);
      const off = await store.searchClips({ ...query("revenue"), fieldWeights: { transcript: 1, screen: 0, visual: 0 } });
      assert.deepEqual(off, [], "a channel weighted zero brings no hits");
    });

    withStore("a search of visual words alone finds the clips that show them, not those that only say them", async (store) => {
      const street = sampleVideo("street", ["we rode a bicycle to work", "nothing to see", "cars and bicycles"]);
      const clips = street.clips.map((clip, index) => ({ ...clip, visual: index === 1 ? "bicycle (bike) person" : index === 2 ? "car (vehicle)" : "" }));
      await store.commitVideo({ ...street, clips });
      const visualOnly = { transcript: 0, screen: 0, visual: 1 };
      assert.deepEqual((await store.searchClips({ ...query("bicycle"), fieldWeights: visualOnly })).map((hit) => hit.clipIndex), [1]);
      assert.deepEqual((await store.searchVideos({ ...query("bicycle"), fieldWeights: visualOnly })).map((hit) => hit.videoId), ["street"]);
      assert.deepEqual((await store.searchClips(query("bicycle"))).map((hit) => hit.clipIndex).sort(), [0, 1, 2]);
      await store.removeVideo("street");
      assert.deepEqual(await store.searchClips({ ...query("bicycle"), fieldWeights: visualOnly }), []);
      assert.equal((await store.termDocumentFrequency(["bicycle"])).frequencies.get("bicycle"), 0);
    });

    withStore("a search with a limit or field weight that is not a number ≥ 0 is ARGUMENT_INVALID", async (store) => {
      await store.commitVideo(sampleVideo("v", ["some words"]));
      const invalid = (error: unknown) => (error as { code?: string }).code === "ARGUMENT_INVALID";
      await assert.rejects(() => store.searchClips({ ...query("words"), limit: Number.NaN }), invalid);
      await assert.rejects(() => store.searchVideos({ ...query("words"), limit: -1 }), invalid);
      const fieldWeights = { transcript: Number.POSITIVE_INFINITY, screen: 1, visual: 1 };
      await assert.rejects(() => store.searchClips({ ...query("words"), fieldWeights }), invalid);
      assert.deepEqual(await store.searchClips({ ...query("words"), limit: 0 }), []);
    });

    withStore("a slide shown across clips counts once for its video, not once per clip", async (store) => {
      const slide = "Quarterly revenue";
      await store.commitVideo(sampleVideo("long", ["one", "two", "three", "four"], { screen: [slide, slide, slide, slide] }));
      await store.commitVideo(sampleVideo("short", ["five"], { screen: [slide] }));
      const [first, second] = await store.searchVideos(query("revenue"));
      assert.ok(first && second);
      assert.ok(Math.abs(first.score - second.score) / first.score < 0.5, "equal term frequency, only lengths differ");
    });

    withStore("quoted phrases score extra where the words stand together", async (store) => {
      await store.commitVideo(sampleVideo("v", ["disc brake on the front", "brake fluid and a disc of felt"]));
      const [best] = await store.searchClips({ terms: [], phrases: ["disc brake"], limit: 5 });
      assert.equal(best?.clipIndex, 0);
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

    withStore("vector search returns the nearest vectors first, by cosine distance, up to the limit", async (store) => {
      const video = sampleVideo("v", ["zero", "one", "two", "three"]);
      await store.commitVideo({
        ...video,
        vectors: [
          clipVector("v", 0, [0, 1, 0]),
          clipVector("v", 1, [2, 0, 0]),
          clipVector("v", 2, [1, 1, 0]),
          clipVector("v", 3, [-1, 0, 0]),
        ],
      });
      const matches = await store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0, 0]), limit: 10 });
      assert.deepEqual(matches.map((match) => match.clipIndex), [1, 2, 0, 3]);
      assert.equal(matches[0]?.videoId, "v");
      assert.equal(matches[0]?.timeSecond, undefined, "clip vectors have no time");
      const distances = matches.map((match) => match.distance);
      [0, 1 - Math.SQRT1_2, 1, 2].forEach((expected, index) => {
        assert.ok(Math.abs((distances[index] ?? -9) - expected) < 1e-6, `distance ${index} is ${distances[index]}`);
      });
      const top = await store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0.1, 0]), limit: 2 });
      assert.deepEqual(top.map((match) => match.clipIndex), [1, 2]);
      assert.deepEqual(await store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0, 0]), limit: 0 }), []);
    });

    withStore("vector spaces are kept apart, each with its own dimension and count", async (store) => {
      await store.commitVideo({
        ...sampleVideo("v", ["zero", "one"]),
        vectors: [
          clipVector("v", 0, [1, 0, 0]),
          clipVector("v", 1, [0, 1, 0]),
          clipVector("v", 0, [1, 0, 0], "text:other-model"),
          frameVector("v", 1, 40, [1, 0]),
        ],
      });
      assert.deepEqual(await store.vectorSpaces(), [
        { space: imageSpace, dimensions: 2, count: 1 },
        { space: "text:other-model", dimensions: 3, count: 1 },
        { space: textSpace, dimensions: 3, count: 2 },
      ]);
      const text = await store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0, 0]), limit: 10 });
      assert.deepEqual(text.map((match) => match.clipIndex), [0, 1], "the other 3-d space's vector is not among them");
      const image = await store.searchVectors({ space: imageSpace, vector: new Float32Array([1, 0]), limit: 10 });
      assert.deepEqual(image, [{ videoId: "v", clipIndex: 1, timeSecond: 40, distance: 0 }]);
      assert.deepEqual(await store.searchVectors({ space: "text:unknown", vector: new Float32Array([1]), limit: 10 }), []);
    });

    withStore("vector search filters by owner and by video", async (store) => {
      await store.commitVideo({
        ...sampleVideo("a", ["zero", "one"]),
        vectors: [frameVector("a", 0, 5, [1, 0]), frameVector("a", 1, 35, [0, 1])],
      });
      await store.commitVideo({
        ...sampleVideo("b", ["zero"]),
        vectors: [frameVector("b", 0, 10, [1, 0.1]), { ...clipVector("b", 0, [1, 0]), space: imageSpace }],
      });
      const search = async (extra: { owner?: "clip" | "frame"; videoIds?: string[] }) =>
        (await store.searchVectors({ space: imageSpace, vector: new Float32Array([1, 0]), limit: 10, ...extra }))
          .map((match) => `${match.videoId}/${match.clipIndex}@${match.timeSecond ?? "clip"}`);
      assert.deepEqual(await search({}), ["a/0@5", "b/0@clip", "b/0@10", "a/1@35"]);
      assert.deepEqual(await search({ owner: "frame" }), ["a/0@5", "b/0@10", "a/1@35"]);
      assert.deepEqual(await search({ owner: "clip" }), ["b/0@clip"]);
      assert.deepEqual(await search({ videoIds: ["b"] }), ["b/0@clip", "b/0@10"]);
      assert.deepEqual(await search({ owner: "frame", videoIds: ["a", "missing"] }), ["a/0@5", "a/1@35"]);
      assert.deepEqual(await search({ videoIds: ["missing"] }), []);
      assert.deepEqual(await search({ videoIds: [] }), []);
    });

    withStore("removing a video removes its vectors, and a space left empty goes with them", async (store) => {
      const gone = [clipVector("gone", 0, [1, 0, 0]), frameVector("gone", 0, 1, [1, 0])];
      await store.commitVideo({ ...sampleVideo("gone", ["x"]), vectors: gone });
      await store.commitVideo({ ...sampleVideo("kept", ["y"]), vectors: [clipVector("kept", 0, [0, 1, 0])] });
      assert.equal(await store.vectorCount(), 3);
      assert.equal(await store.removeVideo("gone"), true);
      assert.equal(await store.vectorCount(), 1);
      assert.equal(await store.vectorCount("gone"), 0);
      const matches = await store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0, 0]), limit: 10 });
      assert.deepEqual(matches.map((match) => match.videoId), ["kept"]);
      assert.deepEqual(await store.vectorSpaces(), [{ space: textSpace, dimensions: 3, count: 1 }]);
      assert.deepEqual(await store.searchVectors({ space: imageSpace, vector: new Float32Array([1, 0]), limit: 10 }), []);
    });

    withStore("re-committing a video replaces its vectors; a version without vectors leaves none", async (store) => {
      const first = [clipVector("v", 0, [1, 0, 0]), clipVector("v", 1, [0, 1, 0])];
      await store.commitVideo({ ...sampleVideo("v", ["a", "b"]), vectors: first });
      await store.commitVideo({ ...sampleVideo("v", ["a"]), vectors: [clipVector("v", 0, [0, 0, 1])] });
      assert.equal(await store.vectorCount("v"), 1);
      const [match, ...rest] = await store.searchVectors({ space: textSpace, vector: new Float32Array([0, 0, 1]), limit: 10 });
      assert.deepEqual(match, { videoId: "v", clipIndex: 0, distance: 0 });
      assert.deepEqual(rest, []);
      await store.commitVideo(sampleVideo("v", ["a"]));
      assert.equal(await store.vectorCount(), 0);
      assert.deepEqual(await store.vectorSpaces(), []);
    });

    withStore("a vector of the wrong dimension for its space is ARGUMENT_INVALID naming both dimensions", async (store) => {
      await store.commitVideo({ ...sampleVideo("v", ["a"]), vectors: [clipVector("v", 0, [1, 0, 0])] });
      await assert.rejects(
        () => store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0]), limit: 5 }),
        invalidArgument(/3.*2|2.*3/),
      );
      await assert.rejects(
        () => store.addVectors("v", [clipVector("v", 0, [1, 0, 0, 0], imageSpace), clipVector("v", 0, [1, 0], imageSpace)]),
        invalidArgument(/4.*2|2.*4/),
        "two dimensions in one new space",
      );
      await assert.rejects(() => store.addVectors("v", [clipVector("v", 0, [1, 0, 0, 0, 0])]), invalidArgument(/3.*5|5.*3/));
      await assert.rejects(
        () => store.commitVideo({ ...sampleVideo("w", ["a"]), vectors: [clipVector("w", 0, [1, 0])] }),
        invalidArgument(/3.*2|2.*3/),
      );
      assert.equal(await store.getVideo("w"), undefined, "the commit rolled back");
      assert.deepEqual(await store.vectorSpaces(), [{ space: textSpace, dimensions: 3, count: 1 }], "nothing half-written");
      await assert.rejects(
        () => store.searchVectors({ space: textSpace, vector: new Float32Array([0, 0, 0]), limit: 5 }),
        invalidArgument(/zero/),
      );
      await assert.rejects(
        () => store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0, 0]), limit: Number.NaN }),
        invalidArgument(/limit/),
      );
    });

    withStore("vectors added to a ready video later are searchable, and adding them again changes nothing", async (store) => {
      await store.commitVideo(sampleVideo("v", ["a", "b"]));
      const records = [clipVector("v", 0, [1, 0, 0]), clipVector("v", 1, [0, 1, 0]), frameVector("v", 1, 31, [0, 1])];
      await store.addVectors("v", records);
      await store.addVectors("v", records);
      assert.equal(await store.vectorCount("v"), 3);
      await store.addVectors("v", [clipVector("v", 1, [1, 0.01, 0]), frameVector("v", 1, 32, [0, 1])]);
      assert.equal(await store.vectorCount("v"), 4, "a new time is a new frame; the same clip is replaced");
      const matches = await store.searchVectors({ space: textSpace, vector: new Float32Array([1, 0.01, 0]), limit: 1 });
      assert.deepEqual(matches.map((match) => match.clipIndex), [1], "the replaced vector is the one searched");
      await assert.rejects(
        () => store.addVectors("missing", [clipVector("missing", 0, [1, 0, 0])]),
        (error: unknown) => (error as { code?: string }).code === "VIDEO_NOT_FOUND",
      );
      await store.saveStage("pending", { stage: "probe", key: "k", output: null });
      await assert.rejects(
        () => store.addVectors("pending", [clipVector("pending", 0, [1, 0, 0])]),
        (error: unknown) => (error as { code?: string }).code === "VIDEO_NOT_FOUND",
        "a pending video is not there yet",
      );
      await assert.rejects(() => store.addVectors("v", [clipVector("other", 0, [1, 0, 0])]), invalidArgument(/other/));
      assert.equal(await store.vectorCount(), 4);
    });
    withStore("an entity named in two videos is one entity, with a source in each, by video then chunk", async (store) => {
      await store.commitVideo(
        withGraph(sampleVideo("b", ["a storm at sea", "Popeye eats his spinach", "and grows strong"]), [
          { entities: [] },
          {
            clips: [1, 2],
            entities: [["Popeye", "person", "eats spinach to get strong"], ["spinach", "object", "a can of it"]],
            relations: [["Popeye", "spinach", "eats", 8]],
          },
        ]),
      );
      await store.commitVideo(withGraph(sampleVideo("a", ["popeye the sailor man"]), [{ entities: [["popeye", "Person", "a sailor"]] }]));
      const popeye = await store.getEntity("popeye");
      assert.ok(popeye);
      assert.deepEqual({ ...popeye, key: 0, changeSequence: 0 }, {
        key: 0,
        changeSequence: 0,
        nameKey: "popeye",
        name: "Popeye",
        type: "person",
        description: "",
        descriptionStale: true,
        sources: [
          { videoId: "a", chunkIndex: 0, clipStart: 0, clipEnd: 0, description: "a sailor" },
          { videoId: "b", chunkIndex: 1, clipStart: 1, clipEnd: 2, description: "eats spinach to get strong" },
        ],
      });
      assert.deepEqual(await store.getEntity(popeye.key), popeye);
      // The first sources by video and chunk, or none: an entity view of a popular entity, a related entity's name.
      assert.deepEqual(await store.getEntity(popeye.key, { sourceLimit: 1 }), { ...popeye, sources: popeye.sources.slice(0, 1) });
      assert.deepEqual(await store.getEntity("popeye", { sourceLimit: 0 }), { ...popeye, sources: [] });
      assert.deepEqual(await store.getEntity("popeye", { sourceLimit: 5 }), popeye);
      await assert.rejects(store.getEntity("popeye", { sourceLimit: -1 }), { code: "ARGUMENT_INVALID" });
      assert.equal(await store.getEntity("nobody"), undefined);
      assert.equal(await store.getEntity(popeye.key + 1000), undefined);
      assert.deepEqual(await store.graphStats(), { chunks: 3, entities: 2, relations: 1, crossVideoEntities: 1 });
      assert.deepEqual(await store.getChunks([{ videoId: "b", chunkIndex: 1 }, { videoId: "b", chunkIndex: 7 }]), [
        {
          videoId: "b",
          index: 1,
          clipStart: 1,
          clipEnd: 2,
          startSecond: 30,
          endSecond: 90,
          text: "Popeye eats his spinach and grows strong",
          tokenCount: 3,
        },
      ]);
    });

    withStore("removing a video takes its sources; removing the last source takes the entity and its relations", async (store) => {
      await store.commitVideo(
        withGraph(sampleVideo("a", ["popeye and olive"]), [
          {
            entities: [["Popeye", "person", "a sailor"], ["Olive Oyl", "person", "his sweetheart"]],
            relations: [["Popeye", "Olive Oyl", "loves", 9]],
          },
        ]),
      );
      await store.commitVideo(withGraph(sampleVideo("b", ["popeye again"]), [{ entities: [["Popeye", "person", "sails"]] }]));
      const popeye = await store.getEntity("popeye");
      assert.ok(popeye);
      assert.equal(await store.setEntityDescriptions([{ key: popeye.key, description: "A sailor who sails." }]), 1);
      assert.equal((await store.getEntity("popeye"))?.descriptionStale, false);

      assert.equal(await store.removeVideo("a"), true);
      const kept = await store.getEntity("popeye");
      assert.deepEqual(kept?.sources.map((source) => source.videoId), ["b"]);
      assert.equal(kept?.key, popeye.key, "a surviving entity keeps its key");
      assert.equal(kept?.descriptionStale, true, "its sources changed, so its description is stale");
      assert.equal(kept?.description, "A sailor who sails.", "the old description stays until it is synthesised again");
      assert.equal(await store.getEntity("olive oyl"), undefined);
      assert.deepEqual(await store.relationsOf(popeye.key), []);
      assert.deepEqual(await store.searchEntities(query("olive")), []);
      assert.deepEqual(await store.graphStats(), { chunks: 1, entities: 1, relations: 0, crossVideoEntities: 0 });
      await store.commitVideo(withGraph(sampleVideo("c", ["an olive branch"]), [{ entities: [["Olive branch", "object", ""]] }]));
      assert.deepEqual(
        (await store.searchEntities(query("olive oyl", { limit: 1 }))).map((match) => match.name),
        ["Olive branch"],
        "nothing of the removed entity is left to take the only place",
      );
      assert.equal(await store.removeVideo("c"), true);

      assert.equal(await store.removeVideo("b"), true);
      assert.equal(await store.getEntity("popeye"), undefined);
      assert.equal(await store.getEntity(popeye.key), undefined);
      assert.deepEqual(await store.searchEntities(query("popeye sailor")), []);
      assert.deepEqual(await store.staleEntities(10), []);
      assert.equal(await store.setEntityDescriptions([{ key: popeye.key, description: "too late" }]), 0);
      assert.deepEqual(await store.graphStats(), { chunks: 0, entities: 0, relations: 0, crossVideoEntities: 0 });
    });

    withStore("a relation stated in two videos, in either direction, is one relation with the summed strength", async (store) => {
      await store.commitVideo(
        withGraph(sampleVideo("a", ["the fight", "the date"]), [
          {
            entities: [["Popeye", "person", ""], ["Bluto", "person", ""]],
            relations: [["Popeye", "Bluto", "fights", 6], ["Popeye", "Popeye", "talks to himself", 10]],
          },
          {
            entities: [["Popeye", "person", ""], ["Olive Oyl", "person", ""]],
            relations: [["Popeye", "Olive Oyl", "loves", 10]],
          },
        ]),
      );
      await store.commitVideo(
        withGraph(sampleVideo("b", ["the rematch"]), [
          { entities: [["Bluto", "person", ""], ["Popeye", "person", ""]], relations: [["Bluto", "Popeye", "punches", 9]] },
        ]),
      );
      const keyOf = async (name: string): Promise<number> => (await store.getEntity(name))?.key ?? -1;
      const [popeye, bluto, olive] = [await keyOf("popeye"), await keyOf("bluto"), await keyOf("olive oyl")];
      const [fight, love, ...none] = await store.relationsOf(popeye);
      assert.deepEqual(none, [], "talking to oneself is no relation");
      assert.deepEqual(fight, {
        sourceKey: Math.min(popeye, bluto),
        targetKey: Math.max(popeye, bluto),
        description: "punches",
        strength: 15,
        sources: [
          { videoId: "a", chunkIndex: 0, clipStart: 0, clipEnd: 0, description: "fights" },
          { videoId: "b", chunkIndex: 0, clipStart: 0, clipEnd: 0, description: "punches" },
        ],
      });
      assert.equal(love?.strength, 10);
      assert.equal(love?.description, "loves");
      assert.ok(fight && love);
      // Its first sources only: description and strength stay those of all of them ("punches" is the second source).
      assert.deepEqual(await store.relationsOf(popeye, 5, { sourceLimit: 1 }), [{ ...fight, sources: fight.sources.slice(0, 1) }, love]);
      assert.deepEqual(await store.relationsOf(popeye, 5, { sourceLimit: 0 }), [{ ...fight, sources: [] }, { ...love, sources: [] }]);
      assert.deepEqual(await store.relationsOf(popeye, 5, { sourceLimit: 3 }), [fight, love]);
      await assert.rejects(store.relationsOf(popeye, 5, { sourceLimit: -1 }), { code: "ARGUMENT_INVALID" });
      assert.equal((await store.relationsOf(popeye, 1)).length, 1);
      assert.deepEqual((await store.relationsOf(olive)).map((relation) => relation.description), ["loves"]);
      assert.deepEqual((await store.relationsAmong([bluto, popeye])).map((relation) => relation.strength), [15]);
      assert.deepEqual(await store.relationsAmong([bluto, olive]), []);
      assert.deepEqual((await store.relationsAmong([olive, bluto, popeye])).map((relation) => relation.description), ["punches", "loves"]);
      assert.equal((await store.graphStats()).relations, 2);

      // Of the sources tied for strongest, the first (by video, then chunk) gives the description, however few are read.
      await store.commitVideo(
        withGraph(sampleVideo("c", ["the wedding"]), [
          { entities: [["Olive Oyl", "person", ""], ["Popeye", "person", ""]], relations: [["Olive Oyl", "Popeye", "marries", 10]] },
        ]),
      );
      const [tied] = await store.relationsOf(olive);
      assert.deepEqual([tied?.description, tied?.strength, tied?.sources.length], ["loves", 20, 2]);
      assert.deepEqual(await store.relationsOf(olive, 5, { sourceLimit: 0 }), [{ ...tied, sources: [] }]);
    });

    withStore("re-committing a video leaves one copy of its sources, and an entity both versions name keeps its key", async (store) => {
      const first = withGraph(sampleVideo("a", ["popeye and olive"]), [
        {
          entities: [["Popeye", "person", "a sailor"], ["Olive Oyl", "person", "his sweetheart"]],
          relations: [["Popeye", "Olive Oyl", "loves", 9]],
        },
      ]);
      await store.commitVideo(first);
      const popeye = await store.getEntity("popeye");
      assert.ok(popeye);
      await store.setEntityDescriptions([{ key: popeye.key, description: "A sailor." }]);
      await store.commitVideo(first);
      const again = await store.getEntity("popeye");
      assert.equal(again?.key, popeye.key);
      assert.equal(again?.description, "A sailor.");
      assert.deepEqual(again?.sources, popeye.sources);
      assert.equal((await store.relationsOf(popeye.key))[0]?.strength, 9, "not 18");
      assert.equal((await store.entityChunks([popeye.key])).length, 1);
      assert.deepEqual(await store.graphStats(), { chunks: 1, entities: 2, relations: 1, crossVideoEntities: 0 });

      await store.commitVideo(withGraph(sampleVideo("a", ["olive alone"]), [{ entities: [["Olive Oyl", "person", "waits"]] }]));
      assert.equal(await store.getEntity("popeye"), undefined, "the new version no longer names Popeye");
      assert.deepEqual((await store.getEntity("olive oyl"))?.sources.map((source) => source.description), ["waits"]);
      assert.deepEqual(await store.graphStats(), { chunks: 1, entities: 1, relations: 0, crossVideoEntities: 0 });
      await store.commitVideo(sampleVideo("a", ["no graph this time"]));
      assert.deepEqual(await store.graphStats(), { chunks: 0, entities: 0, relations: 0, crossVideoEntities: 0 });
    });

    withStore("names of one type whose vectors are within the merge distance become one entity; other types do not", async (store) => {
      await store.commitVideo(
        withGraph(sampleVideo("a", ["bob smith speaks"]), [{ entities: [["Bob Smith", "person", "the speaker"]] }], {
          entityVectors: [nameVector("Bob Smith", [1, 0, 0])],
          entityVectorSpace: entitySpace,
        }),
      );
      await store.commitVideo(
        withGraph(
          sampleVideo("b", ["robert smith at smith hall"]),
          [
            {
              entities: [
                ["Robert Smith", "person", "gives a talk"],
                ["Smith Hall", "location", "where the talk is"],
                ["Rob Smythe", "person", "asks a question"],
              ],
              relations: [["Robert Smith", "Smith Hall", "speaks at", 5]],
            },
          ],
          {
            entityVectors: [
              nameVector("Robert Smith", [0.999, 0.04, 0]),
              nameVector("Smith Hall", [1, 0.01, 0]),
              nameVector("Rob Smythe", [0, 1, 0]),
            ],
            entityVectorSpace: entitySpace,
          },
        ),
      );
      const bob = await store.getEntity("bob smith");
      assert.ok(bob);
      assert.equal((await store.getEntity("robert smith"))?.key, bob.key, "found by the merged name too");
      assert.equal(bob.name, "Bob Smith");
      assert.deepEqual(bob.sources.map((source) => `${source.videoId}: ${source.description}`), [
        "a: the speaker",
        "b: gives a talk",
      ]);
      assert.notEqual((await store.getEntity("smith hall"))?.key, bob.key, "a place is not a person, however close the names");
      assert.equal((await store.getEntity("smith hall"))?.type, "location");
      assert.notEqual((await store.getEntity("rob smythe"))?.key, bob.key, "far vectors do not merge");
      assert.deepEqual(await store.graphStats(), { chunks: 2, entities: 3, relations: 1, crossVideoEntities: 1 });
      assert.deepEqual((await store.searchEntities(query("robert"))).map((match) => match.key), [bob.key], "merged names are searchable");

      // The merged name is remembered: a later video that writes it merges without any vector.
      await store.commitVideo(withGraph(sampleVideo("c", ["robert again"]), [{ entities: [["Robert Smith", "person", "returns"]] }]));
      assert.equal((await store.getEntity("bob smith"))?.sources.length, 3);
      // A tighter merge distance keeps close names apart.
      await store.commitVideo(
        withGraph(sampleVideo("d", ["bobby"]), [{ entities: [["Bobby Smith", "person", ""]] }], {
          entityVectors: [nameVector("Bobby Smith", [0.999, 0.04, 0])],
          entityVectorSpace: entitySpace,
          mergeDistance: 0.0001,
        }),
      );
      assert.notEqual((await store.getEntity("bobby smith"))?.key, bob.key);
    });

    withStore("entities are found by a word of their name and by their synthesised description", async (store) => {
      await store.commitVideo(
        withGraph(sampleVideo("a", ["popeye eats spinach with olive"]), [
          { entities: [["Popeye", "person", ""], ["spinach", "object", ""], ["Olive Oyl", "person", ""]] },
        ]),
      );
      await store.commitVideo(withGraph(sampleVideo("b", ["popeye alone"]), [{ entities: [["Popeye", "person", ""]] }]));
      const key = async (name: string): Promise<number> => (await store.getEntity(name))?.key ?? -1;
      const [olive] = await store.searchEntities(query("olive"));
      assert.deepEqual({ ...olive, score: 0 }, { key: await key("olive oyl"), name: "Olive Oyl", type: "person", description: "", score: 0 });
      assert.ok((olive?.score ?? 0) > 0, "higher is better, so a match scores above zero");
      const spinachDescription = "A leafy green vegetable Popeye eats for strength.";
      await store.setEntityDescriptions([{ key: await key("spinach"), description: spinachDescription }]);
      const [vegetable, ...rest] = await store.searchEntities(query("vegetables"));
      assert.deepEqual([vegetable?.name, vegetable?.description, rest], ["spinach", spinachDescription, []]);
      const names = (found: { name: string }[]) => found.map((match) => match.name);
      assert.deepEqual(names(await store.searchEntities(query("popeye"))), ["Popeye", "spinach"], "a name outweighs a description");
      assert.deepEqual(names(await store.searchEntities({ terms: [{ text: "popeye", weight: 0.5 }], limit: 5 })), ["Popeye", "spinach"]);
      assert.deepEqual(names(await store.searchEntities(query("popeye", { limit: 1 }))), ["Popeye"]);
      assert.deepEqual(names(await store.searchEntities(query("popeye", { videoIds: ["b"] }))), ["Popeye"]);
      assert.deepEqual(await store.searchEntities(query("popeye", { videoIds: ["missing"] })), []);
      assert.deepEqual(await store.searchEntities(query("submarine")), []);
      assert.deepEqual(await store.searchEntities({ terms: [{ text: "?!", weight: 1 }], limit: 5 }), []);
      await assert.rejects(() => store.searchEntities(query("popeye", { limit: -1 })), invalidArgument(/limit/));
    });

    withStore("entity chunks come at most a limit per entity, spread over videos first, and filtered by video", async (store) => {
      await store.commitVideo(
        withGraph(sampleVideo("a", ["one", "two", "three"]), [
          { entities: [["Popeye", "person", ""]] },
          { entities: [["Popeye", "person", ""], ["Olive Oyl", "person", ""]] },
          { entities: [["Popeye", "person", ""]] },
        ]),
      );
      await store.commitVideo(withGraph(sampleVideo("b", ["four"]), [{ entities: [["Popeye", "person", ""]] }]));
      const popeye = (await store.getEntity("popeye"))?.key ?? -1;
      const olive = (await store.getEntity("olive oyl"))?.key ?? -1;
      const chunks = async (keys: number[], options?: { limitPerEntity?: number; videoIds?: string[] }) =>
        (await store.entityChunks(keys, options)).map((row) => `${row.entityKey === popeye ? "P" : "O"} ${row.videoId}/${row.chunkIndex}`);
      assert.deepEqual(await chunks([popeye]), ["P a/0", "P b/0", "P a/1", "P a/2"]);
      assert.deepEqual(await chunks([popeye], { limitPerEntity: 2 }), ["P a/0", "P b/0"]);
      assert.deepEqual((await chunks([popeye, olive], { videoIds: ["a"], limitPerEntity: 1 })).sort(), ["O a/1", "P a/0"]);
      assert.deepEqual(await chunks([popeye], { videoIds: ["b"] }), ["P b/0"]);
      assert.deepEqual(await chunks([]), []);
      await assert.rejects(() => store.entityChunks([popeye], { limitPerEntity: 1.5 }), invalidArgument(/limitPerEntity/));
    });

    withStore("stale entities come oldest change first, and setting a description takes one off the list", async (store) => {
      await store.commitVideo(withGraph(sampleVideo("a", ["one"]), [{ entities: [["Popeye", "person", ""]] }]));
      await store.commitVideo(withGraph(sampleVideo("b", ["two"]), [{ entities: [["Olive Oyl", "person", ""]] }]));
      const stale = async () => (await store.staleEntities(10)).map((entity) => entity.name);
      assert.deepEqual(await stale(), ["Popeye", "Olive Oyl"]);
      assert.deepEqual((await store.staleEntities(1))[0]?.sources.map((source) => source.videoId), ["a"]);
      const popeye = (await store.getEntity("popeye"))?.key ?? -1;
      assert.equal(await store.setEntityDescriptions([{ key: popeye, description: "A sailor." }]), 1);
      assert.deepEqual(await stale(), ["Olive Oyl"]);
      await store.commitVideo(withGraph(sampleVideo("c", ["three"]), [{ entities: [["Popeye", "person", ""]] }]));
      assert.deepEqual(await stale(), ["Olive Oyl", "Popeye"], "Popeye changed last");
      assert.equal(await store.setEntityDescriptions([{ key: popeye + 1000, description: "nobody" }]), 0);
    });

    withStore("a description written from sources that changed meanwhile is refused, and the entity stays stale", async (store) => {
      await store.commitVideo(withGraph(sampleVideo("a", ["one"]), [{ entities: [["Popeye", "person", "a sailor"]] }]));
      await store.commitVideo(withGraph(sampleVideo("b", ["two"]), [{ entities: [["Olive Oyl", "person", "his sweetheart"]] }]));
      const [popeye, olive] = await store.staleEntities(10);
      assert.ok(popeye && olive);
      // Another process adds a source to Popeye while this one is describing both.
      await store.commitVideo(withGraph(sampleVideo("c", ["three"]), [{ entities: [["Popeye", "person", "eats spinach"]] }]));
      const written = await store.setEntityDescriptions([
        { key: popeye.key, description: "A sailor.", changeSequence: popeye.changeSequence },
        { key: olive.key, description: "His sweetheart.", changeSequence: olive.changeSequence },
      ]);
      assert.equal(written, 1, "only Olive's sources are as they were read");
      assert.deepEqual(
        (await store.staleEntities(10)).map((entity) => [entity.name, entity.description, entity.sources.length]),
        [["Popeye", "", 2]],
      );
      assert.equal((await store.getEntity("olive oyl"))?.description, "His sweetheart.");
      // Described again from both sources, it is accepted.
      const again = await store.getEntity("popeye");
      assert.ok(again && again.changeSequence > popeye.changeSequence, "the change sequence grows with each change");
      assert.equal(await store.setEntityDescriptions([{ key: again.key, description: "A sailor who eats spinach.", changeSequence: again.changeSequence }]), 1);
      assert.deepEqual(await store.staleEntities(10), []);
      await assert.rejects(() => store.setEntityDescriptions([{ key: again.key, description: 7 as unknown as string }]), invalidArgument(/description/));
    });

    withStore("change sequences never go back, even when the entity holding the largest is removed", async (store) => {
      await store.commitVideo(withGraph(sampleVideo("a", ["one"]), [{ entities: [["Popeye", "person", "a sailor"]] }]));
      await store.commitVideo(withGraph(sampleVideo("b", ["two"]), [{ entities: [["Bluto", "person", "a brute"]] }]));
      const bluto = await store.getEntity("bluto");
      assert.ok(bluto);
      await store.removeVideo("b");
      await store.commitVideo(withGraph(sampleVideo("c", ["three"]), [{ entities: [["Olive Oyl", "person", "his sweetheart"]] }]));
      const olive = await store.getEntity("olive oyl");
      assert.ok(olive && olive.changeSequence > bluto.changeSequence, `${olive?.changeSequence} after ${bluto.changeSequence}`);
    });

    withStore("a graph that contradicts itself or the video is ARGUMENT_INVALID, and the commit writes nothing", async (store) => {
      const good = withGraph(sampleVideo("a", ["popeye", "olive"]), [
        { entities: [["Popeye", "person", "a sailor"]] },
        { entities: [["Olive Oyl", "person", ""]] },
      ]);
      await store.commitVideo(good);
      const before = { stats: await store.graphStats(), popeye: await store.getEntity("popeye"), videos: await store.listVideos() };
      const broken = (change: (graph: VideoGraph) => void, id = "a"): VideoContent => {
        const content = withGraph(sampleVideo(id, ["popeye meets bluto", "olive"]), [
          { entities: [["Popeye", "person", "meets Bluto"], ["Bluto", "person", ""]], relations: [["Popeye", "Bluto", "meets", 3]] },
          { entities: [["Olive Oyl", "person", ""]] },
        ]);
        if (content.graph) change(content.graph);
        return content;
      };
      const cases: [string, VideoContent, RegExp][] = [
        ["a relation to a name the chunk does not list", broken((graph) => {
          const relation = graph.extractions[0]?.relations[0];
          if (relation) relation.targetKey = "olive oyl";
        }), /olive oyl.*not among/],
        ["an extraction of a chunk that is not there", broken((graph) => {
          const extraction = graph.extractions[1];
          if (extraction) extraction.chunkIndex = 5;
        }), /chunk 5/],
        ["a chunk over clips the video does not have", broken((graph) => {
          const chunk = graph.chunks[1];
          if (chunk) chunk.clipEnd = 9;
        }), /clips/],
        ["a name listed twice in one chunk", broken((graph) => {
          const extraction = graph.extractions[0];
          if (extraction?.entities[0]) extraction.entities.push(extraction.entities[0]);
        }), /twice/],
        ["entity vectors without their space", broken((graph) => {
          graph.entityVectors = [nameVector("Bluto", [1, 0, 0])];
        }), /entityVectorSpace/],
        ["a relation without a strength", broken((graph) => {
          const relation = graph.extractions[0]?.relations[0];
          if (relation) relation.strength = Number.NaN;
        }), /strength/],
      ];
      for (const [what, content, message] of cases) {
        await assert.rejects(() => store.commitVideo(content), invalidArgument(message), what);
        await assert.rejects(() => store.commitVideo({ ...content, video: { ...content.video, id: "new" } }), invalidArgument(message), what);
        assert.deepEqual(
          { stats: await store.graphStats(), popeye: await store.getEntity("popeye"), videos: await store.listVideos() },
          before,
          `${what}: the old version and the graph are untouched`,
        );
        assert.equal(await store.getEntity("bluto"), undefined, what);
        assert.equal(await store.getVideo("new"), undefined, what);
      }
    });

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
  });
}
