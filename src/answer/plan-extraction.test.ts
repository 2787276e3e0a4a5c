// The planner of question-time extraction: stages chosen by the question's kind, placed candidates before priors, the
// cap, clips planned in earlier rounds and clips with nothing pending left out, and the language model's verdicts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { questionKinds } from "../retrieval/index.js";
import type { ClipSignals, ClipStageState, Video } from "../spec/index.js";
import { clipId, extractionSteps, planExtraction, stagesForKinds, StepTimes, type PlanInput } from "./plan-extraction.js";

const video = (id: string, hasAudio = true): Video => ({
  id,
  path: `/v/${id}.mp4`,
  title: `${id}.mp4`,
  durationSeconds: 300,
  kind: "media",
  sizeBytes: 1,
  hasAudio,
  hasVideo: true,
  timesEstimated: false,
  ingestedAt: "2026-11-24T00:00:00Z",
  clipCount: 10,
});

const pending = (videoId: string, clips: number[], stages: string[]): ClipStageState[] =>
  clips.flatMap((clipIndex) => stages.map((stage) => ({ videoId, clipIndex, stage, key: "k", status: "pending" as const })));

function input(overrides: Partial<PlanInput>): PlanInput {
  const signals: Record<string, ClipSignals[]> = {
    talk: Array.from({ length: 10 }, (_, clipIndex) => ({ clipIndex, speechSeconds: clipIndex === 7 ? 28 : clipIndex === 2 ? 12 : 0, screenChanges: 0 })),
    street: Array.from({ length: 10 }, (_, clipIndex) => ({ clipIndex, screenChanges: clipIndex === 4 ? 6 : 1 })),
  };
  return {
    kinds: [],
    candidates: [],
    pending: [...pending("talk", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], ["speech", "screen-text"]), ...pending("street", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], ["screen-text", "visual"])],
    signals: (videoId) => signals[videoId] ?? [],
    videos: [video("talk"), video("street", false)],
    exclude: new Set(),
    maxClips: 3,
    ...overrides,
  };
}

test("the question's kind picks the stages: said → speech, written → OCR, shown → the visual pass, unclear → all", () => {
  assert.deepEqual(questionKinds("what did she say about pgvector?"), ["said"]);
  assert.deepEqual(questionKinds("what is written on the slide?"), ["written"]);
  assert.deepEqual(questionKinds("when does a bicycle appear?"), ["shown"]);
  assert.deepEqual(questionKinds("pgvector latency numbers"), []);
  assert.deepEqual(stagesForKinds(["said"]), ["speech"]);
  assert.deepEqual(stagesForKinds(["written", "shown"]), ["screen-text", "visual"]);
  assert.deepEqual(stagesForKinds([]), ["speech", "screen-text", "visual"]);
});

test("who or what a question is about names no kind: the question gets every stage, its speech heard first", () => {
  // Spoken answers in the incremental benchmark and the how-to questions, once planned for the pictures alone.
  for (const question of [
    "was the young man ill disposed?",
    "how do I reset the drive system?",
    "how do I flex the joint to see where to cut?",
    "How To Change The Brake Pads in Your Car",
    "How To Refinish Particle Board Cabinets",
    "What are some key features to look for in high-quality measuring cups in a kitchen setting?",
    "What tool or product is typically used to enhance the appearance of a vehicle's tires?",
  ]) {
    assert.deepEqual(questionKinds(question), [], question);
  }
  assert.deepEqual(questionKinds("where is a bicycle seen?"), ["shown"]);
  assert.deepEqual(questionKinds("where do the man and the woman talk?"), ["said"]);
  assert.deepEqual(questionKinds("what does the sign say?"), ["said", "written"]);
});

test("placed candidates come first, capped, with only the stages still pending on them", async () => {
  const plan = await planExtraction(
    input({
      kinds: ["said"],
      candidates: [
        { videoId: "street", clipIndex: 1 }, // no speech to recognise there
        { videoId: "talk", clipIndex: 5 },
        { videoId: "talk", clipIndex: 5 },
        { videoId: "talk", clipIndex: 1 },
        { videoId: "talk", clipIndex: 3 },
        { videoId: "talk", clipIndex: 8 },
      ],
    }),
  );
  assert.deepEqual(plan.stages, ["speech"]);
  assert.deepEqual(plan.clips.map((clip) => [clip.videoId, clip.clipIndex, clip.reason, clip.stages.join()]), [
    ["talk", 5, "placed", "speech"],
    ["talk", 1, "placed", "speech"],
    ["talk", 3, "placed", "speech"],
  ]);
});

test("a question the light index cannot place falls back to the clips with the most speech, skipping silent ones", async () => {
  const plan = await planExtraction(input({ kinds: ["said"] }));
  assert.deepEqual(plan.clips.map((clip) => [clip.videoId, clip.clipIndex, clip.reason]), [["talk", 7, "prior"], ["talk", 2, "prior"]]);
  const pictures = await planExtraction(input({ kinds: ["shown"], maxClips: 1 }));
  assert.deepEqual(pictures.clips.map((clip) => [clip.videoId, clip.clipIndex]), [["street", 4]], "the most picture change first");
});

test("a question nothing places is heard across the videos, the least heard first", async () => {
  const speech = (seconds: number[]): ClipSignals[] => seconds.map((speechSeconds, clipIndex) => ({ clipIndex, speechSeconds, screenChanges: 0 }));
  const signals: Record<string, ClipSignals[]> = { lecture: speech([30, 30, 30, 30, 30, 30]), reading: speech([22, 14]), other: speech([25, 25, 25]) };
  const library = { kinds: ["said"] as const, signals: (videoId: string) => signals[videoId] ?? [], videos: [video("lecture"), video("reading"), video("other")] };
  // Three of the lecture's clips were heard for earlier questions and did not hold this one's words.
  const plan = await planExtraction(
    input({ ...library, kinds: ["said"], maxClips: 4, pending: [...pending("lecture", [3, 4, 5], ["speech"]), ...pending("reading", [0, 1], ["speech"]), ...pending("other", [0, 1, 2], ["speech"])] }),
  );
  assert.deepEqual(plan.clips.map(clipId), ["other#0", "reading#0", "other#1", "reading#1"], "30 s of a video heard thrice counts as 3.75 s");
  // Nothing heard yet: one clip of each video before a second of any.
  const fresh = await planExtraction(
    input({ ...library, kinds: ["said"], maxClips: 4, pending: [...pending("lecture", [0, 1, 2, 3, 4, 5], ["speech"]), ...pending("reading", [0, 1], ["speech"]), ...pending("other", [0, 1, 2], ["speech"])] }),
  );
  assert.deepEqual(fresh.clips.map(clipId), ["lecture#0", "other#0", "reading#0", "lecture#1"]);
});

test("clips planned in an earlier round, or with nothing pending, are not planned again", async () => {
  const plan = await planExtraction(
    input({
      kinds: ["said"],
      exclude: new Set(["talk#7"]),
      pending: pending("talk", [2, 7], ["speech"]),
      candidates: [{ videoId: "talk", clipIndex: 4 }],
    }),
  );
  assert.deepEqual(plan.clips.map((clip) => clip.clipIndex), [2], "4 has nothing pending, 7 was planned before: the prior picks 2");
});

test("the language model's no drops a placed candidate", async () => {
  const plan = await planExtraction(
    input({
      kinds: ["said"],
      candidates: [{ videoId: "talk", clipIndex: 1 }, { videoId: "talk", clipIndex: 2 }],
      relevant: async (candidates) => candidates.map((candidate) => candidate.clipIndex !== 1),
    }),
  );
  assert.deepEqual(plan.clips.map((clip) => clip.clipIndex), [2]);
});

test("a plan of speech and pictures hears every planned clip before reading any clip's pictures, the best clips first", async () => {
  const plan = await planExtraction(
    input({
      candidates: [
        { videoId: "talk", clipIndex: 3 },
        { videoId: "street", clipIndex: 2 }, // nothing to hear there
        { videoId: "talk", clipIndex: 6 },
      ],
    }),
  );
  const steps = extractionSteps(plan, 2).map((step) => ({ clips: step.clips.map(clipId), stages: step.stages }));
  assert.deepEqual(steps, [
    { clips: ["talk#3", "talk#6"], stages: ["speech"] },
    { clips: ["talk#3", "street#2"], stages: ["screen-text", "visual"] },
    { clips: ["talk#6"], stages: ["screen-text", "visual"] },
  ]);
  // A question of one kind runs its stages together.
  const said = await planExtraction(input({ kinds: ["said"], candidates: [{ videoId: "talk", clipIndex: 3 }] }));
  assert.deepEqual(extractionSteps(said, 2).map((step) => step.stages), [["speech"]]);
});

test("a step starts only when the longest of the last steps of its stages ends within the time left", () => {
  const times = new StepTimes(2);
  assert.equal(times.fits(["speech"], 0.5), true, "the first step runs whatever it takes");
  assert.equal(times.fits(["speech"], 0), false, "no time left, no step");
  times.record(["speech"], 3);
  times.record(["speech"], 2);
  assert.equal(times.fits(["speech"], 3.5), true);
  assert.equal(times.fits(["speech"], 2.9), false, "the longest step, not the last, sets what is expected");
  assert.equal(times.fits(["screen-text", "visual"], 2.9), false, "pictures before any picture step: as long as the longest step");
  times.record(["screen-text", "visual"], 6);
  assert.equal(times.fits(["screen-text", "visual"], 5), false);
  assert.equal(times.fits(["speech"], 3.5), true, "each set of stages keeps its own time");
  times.record(["speech"], 1);
  assert.equal(times.fits(["speech"], 2.5), true, "only the last two steps count: the 3 s one is forgotten");
});

test("one slow step does not keep later questions from extracting: a question's first step goes by the typical step", () => {
  const times = new StepTimes(5);
  for (const seconds of [4, 5, 16, 4, 6]) times.record(["speech"], seconds);
  assert.equal(times.fits(["speech"], 14.8), false, "a later step: as long as the longest, 16 s");
  assert.equal(times.fits(["speech"], 14.8, true), true, "a question's first step: the median, 5 s");
  assert.equal(times.fits(["speech"], 4.5, true), false, "not even a typical step ends in time");
  assert.equal(times.fits(["speech"], 0, true), false);
});
