import assert from "node:assert/strict";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { test } from "node:test";
import { VideoRagError } from "../../spec/index.js";
import { createMobilenetTagger } from "./mobilenet-tagger.js";
import { createYoloxDetector, decodeYoloxOutput, intersectionOverUnion, nonMaxSuppression, type BoxCandidate } from "./yolox-detector.js";

const rowLength = 85;
const rows = 52 * 52 + 26 * 26 + 13 * 13;

interface Row {
  x: number;
  y: number;
  w: number;
  h: number;
  objectness: number;
  classes: Record<number, number>;
}

/** A YOLOX output with every row empty except those given: row index → values. */
function output(rowValues: Record<number, Row>): Float32Array {
  const data = new Float32Array(rows * rowLength);
  for (const [row, value] of Object.entries(rowValues)) {
    const base = Number(row) * rowLength;
    data.set([value.x, value.y, value.w, value.h, value.objectness], base);
    for (const [classIndex, score] of Object.entries(value.classes)) data[base + 5 + Number(classIndex)] = score;
  }
  return data;
}

test("decodeYoloxOutput turns grid offsets into boxes on the stride's grid and multiplies the scores", () => {
  // Stride 16 grid, cell (3, 5): its rows follow the 52² rows of stride 8.
  const row = 52 * 52 + 5 * 26 + 3;
  const data = output({ [row]: { x: 0.5, y: 0.5, w: Math.log(2), h: 0, objectness: 0.9, classes: { 2: 0.8, 7: 0.3 } } });
  const candidates = decodeYoloxOutput(data, { inputSize: 416, classCount: 80, minScore: 0.2 });
  assert.equal(candidates.length, 2, "car (0.72) and truck (0.27) both pass 0.2");
  const [car] = candidates.filter((candidate) => candidate.classIndex === 2);
  assert.ok(car);
  assert.ok(Math.abs(car.score - 0.72) < 1e-6);
  // Centre (0.5 + 3) · 16 = 56, (0.5 + 5) · 16 = 88; size e^ln2 · 16 = 32 by e^0 · 16 = 16.
  for (const [key, value] of Object.entries({ x1: 40, y1: 80, x2: 72, y2: 96 })) {
    assert.ok(Math.abs(car[key as keyof BoxCandidate] - value) < 1e-4, `${key} ${car[key as keyof BoxCandidate]}`);
  }
  assert.equal(decodeYoloxOutput(data, { inputSize: 416, classCount: 80, minScore: 0.5 }).length, 1, "only the car passes 0.5");
  // The last row is cell (12, 12) of stride 32.
  const last = decodeYoloxOutput(output({ [rows - 1]: { x: 0, y: 0, w: 0, h: 0, objectness: 1, classes: { 0: 1 } } }), {
    inputSize: 416,
    classCount: 80,
    minScore: 0.5,
  });
  assert.deepEqual(last.map((candidate) => [candidate.x1, candidate.y1, candidate.x2, candidate.y2]), [[368, 368, 400, 400]]);
});

test("decodeYoloxOutput rejects an output of the wrong shape with MODEL_OUTPUT_INVALID", () => {
  assert.throws(
    () => decodeYoloxOutput(new Float32Array(rows * 84), { inputSize: 416, classCount: 80, minScore: 0.3 }),
    (error: unknown) => VideoRagError.isInstance(error) && error.code === "MODEL_OUTPUT_INVALID",
  );
});

function box(classIndex: number, score: number, x1: number, y1: number, x2: number, y2: number): BoxCandidate {
  return { classIndex, score, x1, y1, x2, y2 };
}

test("nonMaxSuppression drops weaker overlapping boxes of the same class only", () => {
  const kept = nonMaxSuppression(
    [
      box(0, 0.6, 12, 10, 112, 110), // same person as the next, weaker: dropped
      box(0, 0.9, 10, 10, 110, 110),
      box(0, 0.5, 300, 10, 400, 110), // another person far away: kept
      box(2, 0.7, 10, 10, 110, 110), // a car on the same spot: another class, kept
      box(0, 0.4, 60, 10, 160, 110), // overlaps the best person by IoU 1/3: under 0.45, kept
    ],
    0.45,
  );
  assert.deepEqual(kept.map((candidate) => [candidate.classIndex, candidate.score]), [[0, 0.9], [2, 0.7], [0, 0.5], [0, 0.4]]);
  assert.ok(Math.abs(intersectionOverUnion(box(0, 1, 10, 10, 110, 110), box(0, 1, 60, 10, 160, 110)) - 1 / 3) < 1e-9);
  assert.equal(intersectionOverUnion(box(0, 1, 0, 0, 10, 10), box(0, 1, 10, 0, 20, 10)), 0, "touching boxes do not overlap");
  assert.deepEqual(nonMaxSuppression([], 0.45), []);
});

test("a missing model file fails with MODEL_NOT_FOUND naming the path; a missing label file at creation", async () => {
  const labelsPath = join(tmpdir(), "videorag-no-such-labels.txt");
  assert.throws(
    () => createYoloxDetector({ modelPath: "yolox_nano.onnx", labelsPath }),
    (error: unknown) => VideoRagError.isInstance(error) && error.code === "MODEL_NOT_FOUND" && error.message.includes(labelsPath),
  );
  const modelPath = join(tmpdir(), "videorag-no-such-model.onnx");
  const detector = createYoloxDetector({ modelPath, labelsPath: new URL(import.meta.url).pathname });
  assert.equal(detector.id, "videorag-no-such-model");
  const image = { width: 2, height: 2, data: new Uint8Array(12) };
  await assert.rejects(
    detector.detect([image]),
    (error: unknown) => VideoRagError.isInstance(error) && error.code === "MODEL_NOT_FOUND" && error.message.includes(modelPath),
  );
  const tagger = createMobilenetTagger({ modelPath, labelsPath: new URL(import.meta.url).pathname });
  await assert.rejects(tagger.tag([image]), (error: unknown) => VideoRagError.isInstance(error) && error.code === "MODEL_NOT_FOUND");
});
