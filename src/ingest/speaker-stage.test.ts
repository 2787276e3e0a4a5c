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

test("recognised speech across a change of voice is cut there, its words shared by their letters' share of its time", () => {
  const turns = [
    { startSecond: 12.4, endSecond: 23.4, speaker: "S2" },
    { startSecond: 23.4, endSecond: 39, speaker: "S1" },
  ];
  const across: Segment = { startSecond: 20.5, endSecond: 29.2, text: "and what you can do for you and i pray that had he married a more amiable woman he might have been made still more respectable", source: "speech", clipIndex: 0 };
  const labelled = assignTurns([across], turns);
  assert.deepEqual(labelled.map((segment) => [segment.startSecond, segment.endSecond, segment.speaker, segment.clipIndex]), [[20.5, 23.4, "S2", 0], [23.4, 29.2, "S1", 0]]);
  assert.equal(labelled.map((segment) => segment.text).join(" "), across.text, "no word lost or repeated");
  assert.match(labelled[0]?.text ?? "", /^and what you can do for you and i( pray( that)?)?$/, "cut within a word of the change");
  // Under a second of the other voice is not a change: the segment is the voice it overlaps most, whole.
  assert.deepEqual(assignTurns([said(22.6, 28)], turns).map((segment) => [segment.startSecond, segment.speaker]), [[22.6, "S1"]]);
  // A subtitle's cue is its author's line: it keeps the voice it overlaps most, whole.
  assert.deepEqual(assignTurns([{ ...across, source: "subtitle" }], turns).map((segment) => [segment.startSecond, segment.speaker]), [[20.5, "S1"]]);
  // A one-word segment is never cut.
  assert.deepEqual(assignTurns([{ ...said(22, 26), text: "hello" }], turns).map((segment) => segment.speaker), ["S1"]);
});
