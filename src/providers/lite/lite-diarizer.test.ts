// The lite diarizer on real voices: one speaker alone stays one speaker; a conversation built from two real readers
// (JFK and the LibriVox reader of ../shared) is split where the voice changes and labelled consistently; speech regions,
// a known speaker count, silence, bad arguments and cancellation behave as a caller relies on.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { VideoRagError } from "../../spec/errors.js";
import type { SpeakerTurn } from "../../spec/providers.js";
import { needsShared, sharedPath } from "../../test-support/shared.js";
import { decodeSpeech, mixConversation, trimSilence, writeSpeechWav, type Conversation } from "./lite-diarizer-conversation.js";
import { createFft } from "./lite-diarizer-features.js";
import { createLiteDiarizer } from "./lite-diarizer.js";
import { clusterByVoiceDistance } from "./lite-diarizer-voices.js";

const workDir = mkdtempSync(join(tmpdir(), "videorag-diarizer-test-"));
after(() => rmSync(workDir, { recursive: true, force: true }));

const diarizer = createLiteDiarizer();
const speakersOf = (turns: SpeakerTurn[]): string[] => [...new Set(turns.map((turn) => turn.speaker))];
const rate = 16_000;

/** Seconds of `turns` labelled `speaker` inside [startSecond, endSecond). */
function labelledSeconds(turns: SpeakerTurn[], speaker: string, startSecond: number, endSecond: number): number {
  return turns
    .filter((turn) => turn.speaker === speaker)
    .reduce((sum, turn) => sum + Math.max(0, Math.min(endSecond, turn.endSecond) - Math.max(startSecond, turn.startSecond)), 0);
}

// JFK's 11 s cut at three of his pauses, between the five LibriVox sentences: seven turns, six changes of voice.
let conversation: Conversation;
let conversationPath = "";
before(async () => {
  if (needsShared) return;
  const librivox = (name: string): Promise<Float32Array> => decodeSpeech(sharedPath("media", "audio", "librivox", `sense_and_sensibility_01_austen_64kb-${name}.wav`));
  const jfk = await decodeSpeech(sharedPath("media", "audio", "jfk.wav"));
  const jfkPart = (startSecond: number, endSecond: number): Float32Array => trimSilence(jfk.subarray(startSecond * rate, endSecond * rate));
  const parts: [string, Float32Array][] = [
    ["librivox", await librivox("0870")],
    ["jfk", jfkPart(0.2, 2.3)],
    ["librivox", await librivox("0880")],
    ["jfk", jfkPart(5.3, 7.7)],
    ["librivox", await librivox("0890")],
    ["jfk", jfkPart(8.1, 10.5)],
    ["librivox", await librivox("0920")],
  ];
  conversation = mixConversation(
    parts.map(([speaker, samples]) => ({ speaker, samples: trimSilence(samples), gapSeconds: 0.4 })),
    { leadSeconds: 0.5, tailSeconds: 0.5 },
  );
  conversationPath = join(workDir, "conversation.wav");
  await writeSpeechWav(conversationPath, conversation.samples);
});

test("one voice alone is one speaker (JFK, 11 s, no speech regions given)", { skip: needsShared }, async () => {
  const { turns, warnings } = await diarizer.diarize(sharedPath("media", "audio", "jfk.wav"));
  assert.deepEqual(speakersOf(turns), ["S1"]);
  assert.deepEqual(warnings, []);
  // Silence before his first word and the long pauses go to no one.
  const first = turns[0] as SpeakerTurn;
  assert.ok(first.startSecond > 0.1 && first.startSecond < 0.5, `speech starts at ${first.startSecond}`);
  assert.ok(!turns.some((turn) => turn.startSecond < 3 && turn.endSecond > 3), "the pause at 2.5-3.2 s is nobody's");
});

test("two real voices alternating: two speakers, every change found within 0.5 s, each turn labelled as its voice", { skip: needsShared }, async () => {
  const started = performance.now();
  const { turns } = await diarizer.diarize(conversationPath);
  const seconds = (performance.now() - started) / 1000;
  assert.deepEqual(speakersOf(turns), ["S1", "S2"]);
  // The label each true turn mostly carries: the same for one voice, different for the other, and covering the turn.
  const labelOf = new Map<string, string>();
  for (const span of conversation.turnSpans) {
    const length = span.endSecond - span.startSecond;
    const best = ["S1", "S2"].map((speaker) => ({ speaker, seconds: labelledSeconds(turns, speaker, span.startSecond, span.endSecond) })).sort((a, b) => b.seconds - a.seconds)[0];
    assert.ok(best && best.seconds >= 0.85 * length, `turn ${span.startSecond.toFixed(1)}-${span.endSecond.toFixed(1)} (${span.speaker}) is ${best?.seconds.toFixed(2)} s of ${length.toFixed(2)} s one label`);
    const known = labelOf.get(span.speaker);
    if (known) assert.equal(best.speaker, known, `${span.speaker}'s turn at ${span.startSecond.toFixed(1)} s changed label`);
    labelOf.set(span.speaker, best.speaker);
  }
  assert.notEqual(labelOf.get("jfk"), labelOf.get("librivox"));
  // Every true change has a change of label within 0.5 s of the pause between the two voices.
  const changes = turns.slice(1).filter((turn, index) => turn.speaker !== (turns[index] as SpeakerTurn).speaker);
  for (let index = 1; index < conversation.turnSpans.length; index += 1) {
    const pauseStart = (conversation.turnSpans[index - 1] as { endSecond: number }).endSecond;
    const pauseEnd = (conversation.turnSpans[index] as { startSecond: number }).startSecond;
    const near = changes.some((turn) => turn.startSecond >= pauseStart - 0.5 && turn.startSecond <= pauseEnd + 0.5);
    assert.ok(near, `no change of speaker near ${pauseStart.toFixed(2)}-${pauseEnd.toFixed(2)} s`);
  }
  assert.equal(changes.length, conversation.turnSpans.length - 1, "no change of speaker inside a turn");
  // Far faster than real time: the whole file is 28 s.
  assert.ok(seconds < 28 / 20, `took ${seconds.toFixed(2)} s`);
});

test("the known number of speakers is honoured; more than the audio tells apart is a warning", { skip: needsShared }, async () => {
  const two = await diarizer.diarize(conversationPath, { speakers: 2 });
  assert.deepEqual(speakersOf(two.turns), ["S1", "S2"]);
  const one = await diarizer.diarize(conversationPath, { speakers: 1 });
  assert.deepEqual(speakersOf(one.turns), ["S1"]);
  const many = await diarizer.diarize(sharedPath("media", "audio", "librivox", "sense_and_sensibility_01_austen_64kb-0880.wav"), { speakers: 40 });
  assert.ok(speakersOf(many.turns).length < 40);
  assert.equal(many.warnings[0]?.type, "degraded");
  await assert.rejects(diarizer.diarize(conversationPath, { speakers: 0 }), (error: unknown) => VideoRagError.isInstance(error) && error.code === "ARGUMENT_INVALID");
});

test("only the speech regions given are assigned, and turns keep to their edges", { skip: needsShared }, async () => {
  // The first two turns only: the rest of the file is left to no one.
  const [first, second] = conversation.turnSpans;
  assert.ok(first && second);
  const speechRegions: [number, number][] = [
    [first.startSecond, first.endSecond],
    [second.startSecond, second.endSecond],
  ];
  const { turns } = await diarizer.diarize(conversationPath, { speechRegions });
  assert.ok(turns.length >= 2);
  for (const turn of turns) {
    assert.ok(speechRegions.some(([start, end]) => turn.startSecond >= start - 1e-9 && turn.endSecond <= end + 1e-9), `turn ${turn.startSecond}-${turn.endSecond} outside the regions`);
  }
  assert.equal(turns[0]?.startSecond, first.startSecond);
  assert.equal(turns.at(-1)?.endSecond, second.endSecond);
});

test("silence has no turns; a missing file and a cancelled call fail with their codes", async () => {
  const silence = join(workDir, "silence.wav");
  await writeSpeechWav(silence, new Float32Array(5 * rate));
  assert.deepEqual((await diarizer.diarize(silence)).turns, []);
  assert.deepEqual((await diarizer.diarize(silence, { speechRegions: [] })).turns, []);
  await assert.rejects(diarizer.diarize(join(workDir, "absent.wav")), (error: unknown) => VideoRagError.isInstance(error) && error.code === "INPUT_NOT_FOUND");
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(diarizer.diarize(silence, { signal: controller.signal }), (error: unknown) => VideoRagError.isInstance(error) && error.code === "INTERRUPTED");
});

test("groups of one voice merge by T², a short distinct voice keeps its own group, and a count given is reached", () => {
  // Frames of 4 values: groups 0 and 1 from one voice (mean 0), group 2 a short voice shifted by 1.5 deviations in
  // every value; each group 20 s, 20 s and 3 s of consecutive frames.
  let state = 12345;
  const uniform = (): number => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) + 0.5) / 2 ** 32;
  const gaussian = (): number => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const sizes = [2000, 2000, 300];
  const total = sizes.reduce((sum, size) => sum + size, 0);
  const dimensions = 4;
  const values = new Float32Array(total * dimensions);
  const labels = new Int32Array(total);
  let frame = 0;
  sizes.forEach((size, group) => {
    for (let index = 0; index < size; index += 1, frame += 1) {
      labels[frame] = group;
      for (let d = 0; d < dimensions; d += 1) values[frame * dimensions + d] = gaussian() + (group === 2 ? 1.5 : 0);
    }
  });
  const speech = Int32Array.from({ length: total }, (_, index) => index);
  const features = { values, stride: dimensions, dimensions };
  const settings = { pieceFrames: 50, minReliableFrames: 10, threshold: 175, minClusters: 1 };
  const merged = clusterByVoiceDistance(features, speech, labels, 3, settings);
  assert.equal(merged[0], merged[2500]);
  assert.notEqual(merged[0], merged[total - 1]);
  assert.equal(Math.max(...merged) + 1, 2);
  const one = clusterByVoiceDistance(features, speech, labels, 3, { ...settings, maxClusters: 1 });
  assert.equal(Math.max(...one) + 1, 1);
});

test("two groups alike in cepstra but an octave apart in pitch stay two voices, unless a count says one", () => {
  // Frames of 4 values from one distribution; group 0 voiced at 110 Hz, group 1 at 220 Hz (every tenth frame unvoiced).
  let state = 777;
  const uniform = (): number => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) + 0.5) / 2 ** 32;
  const gaussian = (): number => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const total = 4000;
  const dimensions = 4;
  const values = Float32Array.from({ length: total * dimensions }, gaussian);
  const labels = Int32Array.from({ length: total }, (_, index) => (index < total / 2 ? 0 : 1));
  const logPitches = Float32Array.from({ length: total }, (_, index) => (index % 10 === 0 ? Number.NaN : Math.log(index < total / 2 ? 110 : 220) + 0.03 * gaussian()));
  const speech = Int32Array.from({ length: total }, (_, index) => index);
  const features = { values, stride: dimensions, dimensions };
  const settings = { pieceFrames: 50, minReliableFrames: 10, threshold: 175, minClusters: 1 };
  assert.equal(Math.max(...clusterByVoiceDistance(features, speech, labels, 2, settings)) + 1, 1, "without pitch: one voice");
  const pitch = { logPitches, veto: 0.3 };
  assert.equal(Math.max(...clusterByVoiceDistance(features, speech, labels, 2, { ...settings, pitch })) + 1, 2, "an octave apart: two");
  const near = { logPitches: logPitches.map((value, index) => (index < total / 2 ? value : value - Math.log(2) + 0.1)), veto: 0.3 };
  assert.equal(Math.max(...clusterByVoiceDistance(features, speech, labels, 2, { ...settings, pitch: near })) + 1, 1, "a tenth apart: one");
  assert.equal(Math.max(...clusterByVoiceDistance(features, speech, labels, 2, { ...settings, pitch, maxClusters: 1 })) + 1, 1, "one asked for");
});

test("the FFT matches a direct DFT", () => {
  const size = 64;
  const real = Float64Array.from({ length: size }, (_, index) => Math.sin(index * 0.3) + 0.5 * Math.cos(index * 1.7) + (index % 5) / 10);
  const imaginary = new Float64Array(size);
  const input = Float64Array.from(real);
  createFft(size)(real, imaginary);
  for (let bin = 0; bin < size; bin += 1) {
    let re = 0;
    let im = 0;
    for (let index = 0; index < size; index += 1) {
      re += (input[index] as number) * Math.cos((2 * Math.PI * bin * index) / size);
      im -= (input[index] as number) * Math.sin((2 * Math.PI * bin * index) / size);
    }
    assert.ok(Math.abs((real[bin] as number) - re) < 1e-9 && Math.abs((imaginary[bin] as number) - im) < 1e-9, `bin ${bin}`);
  }
});
