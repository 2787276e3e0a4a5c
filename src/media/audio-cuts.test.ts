import assert from "node:assert/strict";
import { test } from "node:test";
import { quietestCut, quietWindowFrames } from "./audio-cuts.js";

test("the cut lands in the middle of a silent gap inside the range", () => {
  // 10 s of speech-level energy with 300 ms of silence from frame 600.
  const energies = new Float64Array(1000).fill(1_000_000);
  energies.fill(0, 600, 630);
  const cut = quietestCut(energies, 400, 800);
  assert.ok(cut >= 600 + quietWindowFrames / 2 && cut <= 630 - quietWindowFrames / 2, `cut at frame ${cut}`);
  // A window must lie wholly inside the range: one ending at frame 615 holds the gap's first 15 frames at most.
  assert.equal(quietestCut(energies, 100, 615), 605);
});

test("without a gap, the cut is the middle of the quietest window, the earliest of equal ones", () => {
  // Energy falling towards frame 300 and rising after it: the window centred there is quietest.
  const energies = Float64Array.from({ length: 1000 }, (_, frame) => 1 + Math.abs(frame - 300));
  assert.equal(quietestCut(energies, 0, 1000), 300);
  // A range that ends before the dip cuts as late as it can.
  assert.equal(quietestCut(energies, 0, 200), 200 - quietWindowFrames / 2);
  // A flat profile gives the first window of the range, and the range never reaches past the profile.
  assert.equal(quietestCut(new Float64Array(100).fill(5), 30, 500), 30 + quietWindowFrames / 2);
});
