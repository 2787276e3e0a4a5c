// The real models from ../shared/models on frames of the real surveillance clips, one frame every 2 s. The expected
// frames were checked by eye on contact sheets of the same frames (see the notes at each test).
import assert from "node:assert/strict";
import { test } from "node:test";
import { sampleRgbFrames, type TimedRgbImage } from "../../media/rgb-frames.js";
import type { Detection, Detector, Tagger } from "../../spec/index.js";
import { needsShared, sharedPath } from "../../test-support/shared.js";
import { createMobilenetTagger, createYoloxDetector } from "./index.js";

const skip = needsShared;

let models: { detector: Detector; tagger: Tagger } | undefined;
function loadModels(): { detector: Detector; tagger: Tagger } {
  models ??= {
    detector: createYoloxDetector({ modelPath: sharedPath("models/yolox_nano.onnx"), labelsPath: sharedPath("models/coco_labels.txt") }),
    tagger: createMobilenetTagger({
      modelPath: sharedPath("models/mobilenetv2-12-int8.onnx"),
      labelsPath: sharedPath("models/imagenet_labels.txt"),
    }),
  };
  return models;
}

interface DetectedFrame {
  timeSecond: number;
  detections: Detection[];
}

/** Each frame of the clip (one every 2 s) with what the detector found at its default threshold. */
async function detectClip(clip: string): Promise<DetectedFrame[]> {
  const { detector } = loadModels();
  const frames: DetectedFrame[] = [];
  for await (const frame of sampleRgbFrames(sharedPath("media/surveillance", clip))) {
    const [detections = []] = await detector.detect([frame]);
    frames.push({ timeSecond: frame.timeSecond, detections });
  }
  return frames;
}

function timesWith(frames: DetectedFrame[], label: string): number[] {
  return frames.filter((frame) => frame.detections.some((detection) => detection.label === label)).map((frame) => frame.timeSecond);
}

test("the detector describes itself: id, 80 COCO labels, one 416 px image per call", { skip }, () => {
  const { detector, tagger } = loadModels();
  assert.equal(detector.id, "yolox-nano");
  assert.equal(detector.capabilities.labels.length, 80);
  assert.deepEqual(detector.capabilities.labels.slice(0, 3), ["person", "bicycle", "car"]);
  assert.equal(detector.capabilities.inputSize, 416);
  assert.equal(detector.capabilities.maxBatchSize, 1);
  assert.equal(tagger.capabilities.labels.length, 1000);
  assert.equal(tagger.capabilities.labels[281], "tabby");
});

test("one-by-one-person-detection.mp4: a person in most frames, boxed standing upright", { skip }, async () => {
  const frames = await detectClip("one-by-one-person-detection.mp4");
  const times = timesWith(frames, "person");
  console.log(`person in ${times.length} of ${frames.length} frames`);
  // Measured 54 of 70: the empty room shows between one person leaving and the next entering.
  assert.ok(times.length >= frames.length * 0.6, `person in only ${times.length} of ${frames.length} frames`);
  const standing = frames.find((frame) => frame.timeSecond === 30)?.detections.find((detection) => detection.label === "person");
  assert.ok(standing, "the person standing in the middle at 30 s");
  const { x, width, height } = standing.box;
  assert.ok(height > 0.6 && width < 0.35 && x > 0.3 && x < 0.7, JSON.stringify(standing.box));
  assert.ok(standing.score > 0.8, `score ${standing.score}`);
});

test("bottle-detection.mp4: bottles in every frame, a person only where an arm reaches in", { skip }, async () => {
  const frames = await detectClip("bottle-detection.mp4");
  assert.equal(frames.length, 20);
  assert.deepEqual(timesWith(frames, "bottle"), frames.map((frame) => frame.timeSecond));
  // Bottles stand upright: tall, narrow boxes.
  const clearBottles = frames.flatMap((frame) => frame.detections).filter((detection) => detection.label === "bottle" && detection.score > 0.9);
  assert.ok(clearBottles.length >= 40);
  for (const detection of clearBottles) {
    assert.ok(detection.box.height > 0.45 && detection.box.width < 0.15, JSON.stringify(detection.box));
  }
  // COCO's "person" covers arms and hands: an arm in a red sleeve reaches in to move bottles at 12, 16 and 22 s.
  // Measured: person in exactly those 3 frames and in none of the 17 that show bottles alone.
  const personTimes = timesWith(frames, "person");
  console.log(`person at ${personTimes.join(", ")} s`);
  assert.ok(personTimes.every((time) => [12, 16, 22].includes(time)), `person at ${personTimes.join(", ")} s`);
});

test("person-bicycle-car-detection.mp4: cars and a bicycle where they pass", { skip }, async () => {
  const frames = await detectClip("person-bicycle-car-detection.mp4");
  const bicycleTimes = timesWith(frames, "bicycle");
  const carTimes = timesWith(frames, "car");
  console.log(`bicycle at ${bicycleTimes.join(", ")} s; car at ${carTimes.join(", ")} s`);
  // A cyclist crosses the top of the lot at 10-12 s and 30-32 s, some 20 px tall: found at 12 s (0.38).
  assert.ok(bicycleTimes.length >= 1);
  assert.ok(bicycleTimes.every((time) => [10, 12, 30, 32].includes(time)), `bicycle at ${bicycleTimes.join(", ")} s`);
  // Cars seen at an angle at 2 s and 32 s (0.80, 0.89).
  assert.ok(carTimes.includes(2) && carTimes.includes(32), `car at ${carTimes.join(", ")} s`);
});

test("car-detection.mp4: an object where each car passes, nothing on the empty road", { skip }, async () => {
  const frames = await detectClip("car-detection.mp4");
  const carTimes = timesWith(frames, "car");
  const found = frames.filter((frame) => frame.detections.length > 0).map((frame) => frame.timeSecond);
  console.log(`car at [${carTimes.join(", ")}] s; anything at [${found.join(", ")}] s`);
  // The camera looks straight down; COCO has few cars seen from above and YOLOX-nano labels their roofs "cellphone"
  // (0.90, 0.86) or "suitcase", never "car" (measured: car in 0 of 15 frames). What it does find is where they are:
  // a whole car is in view at 6, 16 and 26 s, the road is empty at 8-12, 20 and 24 s.
  for (const time of [6, 16, 26]) assert.ok(found.includes(time), `nothing found at ${time} s`);
  for (const time of [8, 10, 12, 20, 24]) assert.ok(!found.includes(time), `something found on the empty road at ${time} s`);
  // The white car at 6 s is in the top middle of the picture.
  const [best] = frames.find((frame) => frame.timeSecond === 6)?.detections ?? [];
  assert.ok(best && best.box.x > 0.3 && best.box.x + best.box.width < 0.6 && best.box.y < 0.1, JSON.stringify(best?.box));
});

test("the tagger names water bottles, and returns topK tags best first", { skip }, async () => {
  const { tagger } = loadModels();
  let frame: TimedRgbImage | undefined;
  for await (const sampled of sampleRgbFrames(sharedPath("media/surveillance/bottle-detection.mp4"), { endSecond: 1 })) frame = sampled;
  assert.ok(frame);
  const [[best, ...rest] = [], fiveTags = []] = [
    ...(await tagger.tag([frame])),
    ...(await tagger.tag([frame], { minScore: 0 })),
  ];
  assert.equal(best?.label, "water bottle");
  assert.ok((best?.score ?? 0) > 0.5);
  assert.ok(rest.every((tag) => tag.score >= 0.1), "the default minScore is 0.1");
  assert.equal(fiveTags.length, 5);
  assert.ok(fiveTags.every((tag, position) => position === 0 || tag.score <= (fiveTags[position - 1]?.score ?? 0)), "best first");
  assert.ok(fiveTags.every((tag) => tag.score > 0 && tag.score <= 1));
  // A batch gives the same answer per image as single calls.
  const batch = await tagger.tag([frame, frame], { minScore: 0 });
  assert.equal(batch.length, 2);
  assert.deepEqual(batch[1]?.map((tag) => tag.label), fiveTags.map((tag) => tag.label));
});

test("a configured minScore is a floor: a call asking for weaker boxes gets none below it", { skip }, async () => {
  let frame: TimedRgbImage | undefined;
  for await (const sampled of sampleRgbFrames(sharedPath("media/surveillance/bottle-detection.mp4"), { startSecond: 12, endSecond: 13 })) frame ??= sampled;
  assert.ok(frame);
  const [loose = []] = await loadModels().detector.detect([frame], { minScore: 0.1 });
  // The table under the bottles and the arm reaching in score 0.1-0.5 at 12 s (measured: the table 0.39, the arm 0.52).
  assert.ok(loose.some((detection) => detection.score < 0.5), loose.map((detection) => `${detection.label} ${detection.score.toFixed(2)}`).join(", "));
  const floored = createYoloxDetector({ modelPath: sharedPath("models/yolox_nano.onnx"), labelsPath: sharedPath("models/coco_labels.txt"), minScore: 0.5 });
  const [strict = []] = await floored.detect([frame], { minScore: 0.1 });
  assert.deepEqual(strict.map((detection) => detection.label), loose.filter((detection) => detection.score >= 0.5).map((detection) => detection.label));
  assert.ok(strict.length >= 2, "the bottles stay");
});
