// The VectorIndex part of every store: nearest vectors by cosine distance, spaces kept apart, filters, dimensions checked, vectors added later.

import assert from "node:assert/strict";
import { describe } from "node:test";
import { sampleVideo, textSpace, imageSpace, clipVector, frameVector, invalidArgument, storeCase, type OpenStore } from "./fixtures.js";

export function runVectorIndexConformance(name: string, open: OpenStore): void {
  describe(`VectorIndex: ${name}`, () => {
    const withStore = storeCase(open);

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
  });
}
