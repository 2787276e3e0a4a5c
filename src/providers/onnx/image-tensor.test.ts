import assert from "node:assert/strict";
import { test } from "node:test";
import type { RgbImage } from "../../spec/index.js";
import { boxFromLetterbox, centreCropRect, letterbox, resizeBilinear, toPlanarTensor } from "./image-tensor.js";

/** A width × height image of `background` with the rectangle [x, x+w) × [y, y+h) painted `colour`. */
function paint(
  width: number,
  height: number,
  background: [number, number, number],
  rect?: { x: number; y: number; width: number; height: number; colour: [number, number, number] },
): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inside = rect && x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height;
      data.set(inside ? rect.colour : background, (y * width + x) * 3);
    }
  }
  return { width, height, data };
}

test("resizeBilinear keeps flat colours, and halving averages pixel pairs", () => {
  const flat = resizeBilinear(paint(50, 30, [10, 200, 90]), 17, 11);
  assert.equal(flat.data.length, 17 * 11 * 3);
  assert.ok(flat.data.every((value, index) => value === [10, 200, 90][index % 3]));
  // Columns alternate 0 and 100: each output pixel sits exactly between two of them.
  const stripes = { width: 4, height: 1, data: Uint8Array.from([0, 0, 0, 100, 100, 100, 0, 0, 0, 100, 100, 100]) };
  assert.deepEqual([...resizeBilinear(stripes, 2, 1).data], [50, 50, 50, 50, 50, 50]);
});

test("resizeBilinear of a source rectangle samples only inside it", () => {
  const image = paint(100, 100, [0, 0, 0], { x: 40, y: 40, width: 20, height: 20, colour: [255, 255, 255] });
  const crop = resizeBilinear(image, 10, 10, { x: 40, y: 40, width: 20, height: 20 });
  assert.ok(crop.data.every((value) => value === 255));
});

test("letterbox scales into the top-left corner, pads with the pad value, and orders planes BGR", () => {
  // 2:1, red: scaled by 0.5 into 416 × 208 at the top, grey below.
  const { tensor, scale } = letterbox(paint(832, 416, [255, 0, 0]), 416, 114);
  assert.equal(scale, 0.5);
  assert.equal(tensor.length, 3 * 416 * 416);
  const plane = 416 * 416;
  const at = (channel: number, x: number, y: number): number => tensor[channel * plane + y * 416 + x] ?? Number.NaN;
  assert.deepEqual([at(0, 10, 10), at(1, 10, 10), at(2, 10, 10)], [0, 0, 255], "blue, green, red planes");
  assert.deepEqual([at(0, 415, 207), at(1, 415, 207), at(2, 415, 207)], [0, 0, 255]);
  assert.deepEqual([at(0, 10, 208), at(1, 200, 300), at(2, 415, 415)], [114, 114, 114], "padding below the image");
});

test("a box found in the letterboxed input maps back onto the object in the original image", () => {
  // A white object at x 300..400, y 100..250 of a 640 × 360 frame.
  const image = paint(640, 360, [30, 30, 30], { x: 300, y: 100, width: 100, height: 150, colour: [255, 255, 255] });
  const { tensor, scale } = letterbox(image, 416, 114);
  // Find the white region in the input, as a detector would.
  let x1 = Infinity, y1 = Infinity, x2 = -Infinity, y2 = -Infinity;
  for (let y = 0; y < 416; y++) {
    for (let x = 0; x < 416; x++) {
      if ((tensor[y * 416 + x] ?? 0) > 200) {
        x1 = Math.min(x1, x);
        y1 = Math.min(y1, y);
        x2 = Math.max(x2, x + 1);
        y2 = Math.max(y2, y + 1);
      }
    }
  }
  const box = boxFromLetterbox({ x1, y1, x2, y2 }, scale, 640, 360);
  const expected = { x: 300 / 640, y: 100 / 360, width: 100 / 640, height: 150 / 360 };
  for (const key of ["x", "y", "width", "height"] as const) {
    assert.ok(Math.abs(box[key] - expected[key]) < 0.01, `${key} ${box[key]} vs ${expected[key]}`);
  }
});

test("boxFromLetterbox clamps boxes reaching past the image to 0..1", () => {
  const box = boxFromLetterbox({ x1: -20, y1: 100, x2: 50, y2: 300 }, 0.65, 640, 360);
  assert.equal(box.x, 0);
  assert.ok(Math.abs(box.width - 50 / 0.65 / 640) < 1e-9);
  assert.ok(Math.abs(box.y - 100 / 0.65 / 360) < 1e-9);
  assert.equal(box.y + box.height, 1);
});

test("toPlanarTensor normalises per channel, and centreCropRect keeps the middle square", () => {
  const tensor = toPlanarTensor(paint(2, 2, [255, 0, 51]), {
    channelOrder: "rgb",
    normalize: { mean: [0.5, 0.5, 0.5], std: [0.5, 0.25, 0.2] },
  });
  assert.deepEqual([tensor[0], tensor[4], tensor[8]].map((value) => Math.round((value ?? 0) * 1000) / 1000), [1, -2, -1.5]);
  assert.deepEqual(centreCropRect({ width: 640, height: 360 }, 256, 224), { x: 162.5, y: 22.5, width: 315, height: 315 });
});
