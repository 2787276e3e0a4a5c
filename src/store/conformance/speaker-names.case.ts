// The SpeakerNames part of every store: names given to a video's speaker labels, read, changed and cleared, checked,
// found by name or by label, kept across a re-commit from the same source and dropped with the video or a new source.

import assert from "node:assert/strict";
import { describe } from "node:test";
import type { Segment, VideoContent } from "../../spec/index.js";
import { invalidArgument, sampleVideo, storeCase, type OpenStore } from "./fixtures.js";

/** A video whose clip `i` is said by `speakers[i]` (no one where undefined). */
function spokenBy(id: string, speakers: (string | undefined)[], extra: { fingerprint?: string } = {}): VideoContent {
  const content = sampleVideo(id, speakers.map((speaker, index) => `line ${index} of ${speaker ?? "no one"}`), extra);
  const segments = content.segments.map((segment, index): Segment => {
    const speaker = speakers[index];
    return speaker === undefined ? segment : { ...segment, speaker };
  });
  return { ...content, segments };
}

const notFound = (error: unknown): boolean => (error as { code?: string }).code === "VIDEO_NOT_FOUND";

export function runSpeakerNamesConformance(name: string, open: OpenStore): void {
  describe(`SpeakerNames: ${name}`, () => {
    const withStore = storeCase(open);

    withStore("a speaker is named, renamed and cleared, without touching the segments", async (store) => {
      const content = spokenBy("talk", ["Speaker 1", "Speaker 2", undefined, "Speaker 1"]);
      await store.commitVideo(content);
      assert.deepEqual(await store.speakerNames("talk"), {});
      await store.setSpeakerName("talk", "Speaker 2", "  Dana ");
      await store.setSpeakerName("talk", "Speaker 1", "Sam");
      assert.deepEqual(await store.speakerNames("talk"), { "Speaker 1": "Sam", "Speaker 2": "Dana" }, "by label, the name trimmed");
      assert.deepEqual(Object.keys(await store.speakerNames("talk")), ["Speaker 1", "Speaker 2"]);
      await store.setSpeakerName("talk", "Speaker 1", "Samuel");
      assert.deepEqual(await store.speakerNames("talk"), { "Speaker 1": "Samuel", "Speaker 2": "Dana" });
      await store.setSpeakerName("talk", "Speaker 1", null);
      await store.setSpeakerName("talk", "Speaker 1", null);
      assert.deepEqual(await store.speakerNames("talk"), { "Speaker 2": "Dana" }, "cleared, and clearing again changes nothing");
      assert.deepEqual(await store.getSegments("talk", 0, 1000), content.segments, "the segments keep their labels");
      assert.deepEqual(await store.speakerNames("missing"), {});
    });

    withStore("two labels may share a name; a name may not be another speaker's label", async (store) => {
      await store.commitVideo(spokenBy("talk", ["Speaker 1", "Speaker 2", "Dana"]));
      await store.setSpeakerName("talk", "Speaker 1", "Sam");
      await store.setSpeakerName("talk", "Speaker 2", "sam");
      await store.setSpeakerName("talk", "Speaker 2", "Speaker 2");
      await assert.rejects(store.setSpeakerName("talk", "Speaker 2", "speaker 1"), invalidArgument(/label of another speaker/));
      await assert.rejects(store.setSpeakerName("talk", "Speaker 1", "DANA"), invalidArgument(/label of another speaker/));
      await store.setSpeakerName("talk", "Dana", "dana");
      assert.deepEqual(await store.speakerNames("talk"), { Dana: "dana", "Speaker 1": "Sam", "Speaker 2": "Speaker 2" });
    });

    withStore("naming checks the video, the label and the name", async (store) => {
      await store.commitVideo(spokenBy("talk", ["Speaker 1"]));
      await store.saveStage("pending", { stage: "probe", key: "k", output: null });
      await assert.rejects(store.setSpeakerName("missing", "Speaker 1", "Dana"), notFound);
      await assert.rejects(store.setSpeakerName("pending", "Speaker 1", "Dana"), notFound, "a video not yet ready");
      await assert.rejects(store.setSpeakerName("missing", "Speaker 1", null), notFound);
      await assert.rejects(store.setSpeakerName("talk", "Speaker 9", "Dana"), invalidArgument(/no speaker "Speaker 9" \(its speakers are "Speaker 1"\)/));
      await assert.rejects(store.setSpeakerName("talk", "speaker 1", "Dana"), invalidArgument(/no speaker/), "a label is matched exactly");
      for (const bad of ["", "   ", "x".repeat(101), "Dana\nSmith", 7 as unknown as string]) {
        await assert.rejects(store.setSpeakerName("talk", "Speaker 1", bad), invalidArgument(/speaker name/), JSON.stringify(bad));
        await assert.rejects(store.setSpeakerName("talk", bad, "Dana"), invalidArgument(/speaker label/), JSON.stringify(bad));
      }
      await store.setSpeakerName("talk", "Speaker 1", "é".repeat(100));
      assert.deepEqual(await store.speakerNames("talk"), { "Speaker 1": "é".repeat(100) }, "100 characters is not too long");
    });

    withStore("speakers are found by name, or by label where they have none, case-insensitively, in ready videos", async (store) => {
      await store.commitVideo(spokenBy("b-talk", ["Speaker 1", "Speaker 2"]));
      await store.commitVideo(spokenBy("a-talk", ["Speaker 2", "DANA", "Speaker 1"]));
      await store.commitVideo(spokenBy("quiet", [undefined]));
      await store.setSpeakerName("b-talk", "Speaker 2", "Dana");
      await store.setSpeakerName("a-talk", "Speaker 1", "Sam");
      assert.deepEqual(await store.findSpeakers("dana"), [
        { videoId: "a-talk", label: "DANA", name: "DANA" },
        { videoId: "b-talk", label: "Speaker 2", name: "Dana" },
      ]);
      assert.deepEqual(await store.findSpeakers(" SPEAKER 1 "), [{ videoId: "b-talk", label: "Speaker 1", name: "Speaker 1" }], "a named label is found by its name only");
      assert.deepEqual(await store.findSpeakers("sam"), [{ videoId: "a-talk", label: "Speaker 1", name: "Sam" }]);
      assert.deepEqual(await store.findSpeakers("Speaker 2"), [{ videoId: "a-talk", label: "Speaker 2", name: "Speaker 2" }]);
      assert.deepEqual(await store.findSpeakers("no one"), []);
      assert.deepEqual(await store.findSpeakers("  "), []);
      await store.saveStage("a-talk", { stage: "probe", key: "k", output: null });
      assert.equal((await store.findSpeakers("sam")).length, 1, "a re-ingest under way leaves the ready version found");
    });

    withStore("labels follow the segments: a write-back's new speakers can be named and found", async (store) => {
      const content = spokenBy("talk", ["Speaker 1", undefined]);
      await store.commitVideo(content);
      assert.deepEqual(await store.findSpeakers("Speaker 2"), []);
      await store.writeBack({
        videoId: "talk",
        documents: [],
        replaces: [],
        segments: [{ startSecond: 40, endSecond: 44, text: "a late voice", source: "speech", speaker: "Speaker 2", clipIndex: 1 }],
        vectors: [],
        stages: [],
      });
      assert.deepEqual(await store.findSpeakers("speaker 2"), [{ videoId: "talk", label: "Speaker 2", name: "Speaker 2" }]);
      await store.setSpeakerName("talk", "Speaker 2", "Ines");
      assert.deepEqual(await store.findSpeakers("ines"), [{ videoId: "talk", label: "Speaker 2", name: "Ines" }]);
      assert.deepEqual(await store.findSpeakers("Speaker 1"), [{ videoId: "talk", label: "Speaker 1", name: "Speaker 1" }], "the labels before it stay");
    });

    withStore("names stay when the same source is committed again, go with a new source, and go with the video", async (store) => {
      await store.commitVideo(spokenBy("talk", ["Speaker 1", "Speaker 2"], { fingerprint: "one" }));
      await store.setSpeakerName("talk", "Speaker 1", "Dana");
      await store.setSpeakerName("talk", "Speaker 2", "Sam");
      // Ingested again from the same file, this time with one voice only: the names stay, even the one whose label went.
      await store.commitVideo(spokenBy("talk", ["Speaker 1", "Speaker 1"], { fingerprint: "one" }));
      assert.deepEqual(await store.speakerNames("talk"), { "Speaker 1": "Dana", "Speaker 2": "Sam" });
      assert.deepEqual(await store.findSpeakers("dana"), [{ videoId: "talk", label: "Speaker 1", name: "Dana" }]);
      assert.deepEqual(await store.findSpeakers("speaker 2"), [], "a label its segments no longer carry is not found by label");
      await store.setSpeakerName("talk", "Speaker 2", "Samuel");
      assert.equal((await store.speakerNames("talk"))["Speaker 2"], "Samuel", "and a name whose label went can still be changed");

      await store.commitVideo(spokenBy("talk", ["Speaker 1", "Speaker 2"], { fingerprint: "two" }));
      assert.deepEqual(await store.speakerNames("talk"), {}, "a new source's labels may be other voices");
      assert.deepEqual(await store.findSpeakers("dana"), []);

      await store.setSpeakerName("talk", "Speaker 1", "Dana");
      await store.commitVideo(spokenBy("other", ["Speaker 1"]));
      await store.setSpeakerName("other", "Speaker 1", "Dana");
      assert.equal(await store.removeVideo("talk"), true);
      assert.deepEqual(await store.speakerNames("talk"), {});
      assert.deepEqual(await store.findSpeakers("dana"), [{ videoId: "other", label: "Speaker 1", name: "Dana" }]);
      assert.deepEqual(await store.findSpeakers("speaker 2"), []);
      await store.commitVideo(spokenBy("talk", ["Speaker 1"], { fingerprint: "one" }));
      assert.deepEqual(await store.speakerNames("talk"), {}, "a video added again after its removal starts without names");
    });

    withStore("voices are kept, replaced, listed by vector, and go with a new source or the video", async (store) => {
      await store.commitVideo(spokenBy("talk", ["Speaker 1", "Speaker 2"], { fingerprint: "one" }));
      await store.commitVideo(spokenBy("other", ["Speaker 1"]));
      assert.equal(await store.speakerVoices("talk"), undefined);
      const dana = new Float32Array([0.6, 0.8, 0]);
      await store.setSpeakerVoices("talk", {
        key: "lite@1",
        voices: [
          { label: "Speaker 2", turns: [[4.25, 9.5]], vector: dana },
          { label: "Speaker 1", turns: [[0, 4.25], [9.5, 12.125]], vector: new Float32Array([1, 0, 0]) },
        ],
      });
      assert.deepEqual(await store.speakerVoices("talk"), {
        key: "lite@1",
        voices: [
          { label: "Speaker 1", turns: [[0, 4.25], [9.5, 12.125]], vector: new Float32Array([1, 0, 0]) },
          { label: "Speaker 2", turns: [[4.25, 9.5]], vector: dana },
        ],
      }, "by label, vectors exact");
      await store.setSpeakerVoices("other", { key: "lite@1", voices: [{ label: "Speaker 1", turns: [[1, 2]] }] });
      assert.deepEqual(await store.voiceVectors(), [
        { videoId: "talk", label: "Speaker 1", vector: new Float32Array([1, 0, 0]) },
        { videoId: "talk", label: "Speaker 2", vector: dana },
      ], "voices without a vector are not listed");
      await store.setSpeakerVoices("talk", { key: "lite@2", voices: [{ label: "Speaker 1", turns: [[0, 12]] }] });
      assert.deepEqual(await store.speakerVoices("talk"), { key: "lite@2", voices: [{ label: "Speaker 1", turns: [[0, 12]] }] }, "replaced whole");

      for (const bad of [
        { key: "", voices: [] },
        { key: "k", voices: [{ label: " ", turns: [] }] },
        { key: "k", voices: [{ label: "A", turns: [] }, { label: "A", turns: [] }] },
        { key: "k", voices: [{ label: "A", turns: [[3, 2]] }] },
        { key: "k", voices: [{ label: "A", turns: [[-1, 2]] }] },
        { key: "k", voices: [{ label: "A", turns: [[0, Number.POSITIVE_INFINITY]] }] },
        { key: "k", voices: [{ label: "A", turns: [], vector: new Float32Array([1, 0]) }, { label: "B", turns: [], vector: new Float32Array([1]) }] },
        { key: "k", voices: [{ label: "A", turns: [], vector: new Float32Array([Number.NaN]) }] },
      ] as never[]) {
        await assert.rejects(store.setSpeakerVoices("talk", bad), invalidArgument(/voices of talk|speaker label/), JSON.stringify(bad));
      }
      assert.deepEqual((await store.speakerVoices("talk"))?.key, "lite@2", "a refused write leaves what was kept");
      await assert.rejects(store.setSpeakerVoices("missing", { key: "k", voices: [] }), notFound);

      await store.commitVideo(spokenBy("talk", ["Speaker 1", "Speaker 2"], { fingerprint: "one" }));
      assert.equal((await store.speakerVoices("talk"))?.key, "lite@2", "kept when the same source is committed again");
      await store.commitVideo(spokenBy("talk", ["Speaker 1", "Speaker 2"], { fingerprint: "two" }));
      assert.equal(await store.speakerVoices("talk"), undefined, "a new source's voices are other voices");
      await store.setSpeakerVoices("other", { key: "k", voices: [{ label: "Speaker 1", turns: [[1, 2]], vector: dana }] });
      assert.equal(await store.removeVideo("other"), true);
      assert.equal(await store.speakerVoices("other"), undefined);
      assert.deepEqual(await store.voiceVectors(), []);
    });
  });
}
