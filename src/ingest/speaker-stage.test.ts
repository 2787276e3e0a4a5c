import assert from "node:assert/strict";
import { test } from "node:test";
import type { Segment } from "../spec/index.js";
import { assignTurns, isMachineLabel, numberSpeakers } from "./speaker-stage.js";

const said = (startSecond: number, endSecond: number, speaker?: string): Segment => ({ startSecond, endSecond, text: "words", source: "speech", ...(speaker ? { speaker } : {}) });

test("machine labels are numbered by first appearance; names stay", () => {
  const labelled = numberSpeakers([said(10, 12, "SPEAKER_01"), said(0, 2, "SPEAKER_00"), said(5, 6, "Dana"), said(14, 15, "SPEAKER_00")]);
  assert.deepEqual(labelled.map((segment) => segment.speaker), ["Speaker 2", "Speaker 1", "Dana", "Speaker 1"]);
  for (const label of ["A", "S2", "SPEAKER_00", "spk_3", "speaker 4"]) assert.ok(isMachineLabel(label), label);
  for (const name of ["Dana", "Dr. Ruth", "MANAGER"]) assert.ok(!isMachineLabel(name), name);
});

test("a segment takes the voice of the turn it overlaps most, and none where no turn is", () => {
  const turns = [
    { startSecond: 0, endSecond: 4.2, speaker: "S1" },
    { startSecond: 4.2, endSecond: 9, speaker: "S2" },
  ];
  const labelled = assignTurns([said(0, 2), said(3.8, 6), said(8.5, 12), said(20, 21)], turns);
  assert.deepEqual(labelled.map((segment) => segment.speaker), ["S1", "S2", "S2", undefined]);
});
