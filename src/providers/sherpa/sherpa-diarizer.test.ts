// The neural diarizer. The real weights cannot be downloaded where this was written, so sherpa-onnx runs end to end on
// stand-in models (src/test-support/sherpa-models.ts: real ONNX graphs with sherpa's metadata, whose "speakers" are
// loudness bands) over JFK's speech: the shape of what a user gets (turns inside the file, labels S1…, one unit voice
// vector per label), the speakers option, speech regions, cancellation, and onnxruntime-node loaded beside it. The mapping
// from sherpa's answer to turns and vectors is also checked on a fake of the module, which runs where the package is absent.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { VideoRagError, type SpeakerTurn } from "../../spec/index.js";
import { rejectsWith } from "../../test-support/assertions.js";
import { needsShared, sharedPath } from "../../test-support/shared.js";
import { testEmbeddingDimensions, testSegmentationModel, writeTestSherpaModels } from "../../test-support/sherpa-models.js";
import { createSileroVad } from "../onnx/index.js";
import { readOnnxMetadata } from "./onnx-metadata.js";
import { createSherpaDiarizer, loadSherpaOnnx, type SherpaOnnx, type SherpaSegment } from "./index.js";
import type { SherpaStream } from "./sherpa-module.js";
import { turnsFromSegments } from "./sherpa-diarizer.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-sherpa-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const sherpaMissing: string | false = await loadSherpaOnnx().then(
  () => false,
  (error: unknown) => `sherpa-onnx-node does not load here (an optional dependency): ${String(error)}`,
);
const needsSherpaAndShared = sherpaMissing || needsShared;

function assertUnit(vector: Float32Array | undefined, dimensions: number, label: string): void {
  assert.ok(vector, `no voice vector for ${label}`);
  assert.equal(vector.length, dimensions);
  const length = Math.hypot(...vector);
  assert.ok(Math.abs(length - 1) < 1e-4, `${label}'s vector has length ${length}`);
}

/** Labels S1, S2, … in the order of their first turn, turns in time order, each inside [0, durationSeconds]. */
function assertTurnShape(turns: readonly SpeakerTurn[], durationSeconds: number): string[] {
  const order: string[] = [];
  let previousStart = 0;
  for (const turn of turns) {
    assert.ok(turn.startSecond >= 0 && turn.endSecond <= durationSeconds + 1e-6 && turn.endSecond > turn.startSecond, JSON.stringify(turn));
    assert.ok(turn.startSecond >= previousStart, "turns are in time order");
    previousStart = turn.startSecond;
    if (!order.includes(turn.speaker)) order.push(turn.speaker);
  }
  assert.deepEqual(order, order.map((_, index) => `S${index + 1}`));
  return order;
}

describe("on stand-in models, through the real sherpa-onnx", { skip: needsSherpaAndShared }, () => {
  let models: { segmentationModel: string; embeddingModel: string };
  const jfk = () => sharedPath("media/audio/jfk.wav");
  const jfkSeconds = 11;
  before(async () => {
    models = await writeTestSherpaModels(join(scratch, "models"));
  });

  test("JFK's speech: turns inside the file, labels S1…, one unit voice vector of the model's size per label", async () => {
    const diarizer = createSherpaDiarizer({ ...models, names: { segmentation: "seg", embedding: "emb" } });
    assert.equal(diarizer.id, "sherpa-onnx@1:seg+emb");
    assert.equal(diarizer.capabilities.embeddings, true);
    const result = await diarizer.diarize(jfk());
    assert.ok(result.turns.length >= 2, JSON.stringify(result.turns));
    const labels = assertTurnShape(result.turns, jfkSeconds);
    // The stand-in hears speech where JFK speaks: more than 5 of the 11 s, starting in the first second.
    const speech = result.turns.reduce((sum, turn) => sum + turn.endSecond - turn.startSecond, 0);
    assert.ok(speech > 5, `${speech} s of turns`);
    assert.ok((result.turns[0]?.startSecond ?? 99) < 1);
    assert.deepEqual(Object.keys(result.embeddings ?? {}).sort(), [...labels].sort());
    for (const label of labels) assertUnit(result.embeddings?.[label], testEmbeddingDimensions, label);
    assert.deepEqual(result.warnings, []);
  });

  test("the number of speakers, when given, is the number of labels; their voice vectors differ", async () => {
    const diarizer = createSherpaDiarizer(models);
    const two = await diarizer.diarize(jfk(), { speakers: 2 });
    assert.deepEqual(assertTurnShape(two.turns, jfkSeconds), ["S1", "S2"]);
    const [first, second] = [two.embeddings?.S1, two.embeddings?.S2];
    assertUnit(first, testEmbeddingDimensions, "S1");
    assertUnit(second, testEmbeddingDimensions, "S2");
    const cosine = (first as Float32Array).reduce((sum, value, index) => sum + value * ((second as Float32Array)[index] as number), 0);
    assert.ok(cosine < 0.9999, `the two voices' vectors are the same (cosine ${cosine})`);
    assert.deepEqual(two.warnings, []);
    const one = await diarizer.diarize(jfk(), { speakers: 1 });
    assert.deepEqual(assertTurnShape(one.turns, jfkSeconds), ["S1"]);
    // More than the stretches of speech it found: sherpa-onnx answers with one cluster, and the user is told.
    const many = await diarizer.diarize(jfk(), { speakers: 10 });
    assert.match(many.warnings.find((warning) => warning.feature === "speakers")?.detail ?? "", /10 speakers were asked for; the neural diarizer could tell 1 apart/);
    await rejectsWith(diarizer.diarize(jfk(), { speakers: 0 }), "ARGUMENT_INVALID");
  });

  test("turns stay inside the speech regions given; a cancelled call fails with INTERRUPTED", async () => {
    const diarizer = createSherpaDiarizer(models);
    const regions: [number, number][] = [[0, 4], [6, 9]];
    const result = await diarizer.diarize(jfk(), { speechRegions: regions });
    assert.ok(result.turns.length > 0);
    for (const turn of result.turns) {
      assert.ok(regions.some(([start, end]) => turn.startSecond >= start && turn.endSecond <= end), `${JSON.stringify(turn)} is outside ${JSON.stringify(regions)}`);
    }
    assert.ok(result.turns.some((turn) => turn.startSecond >= 6), "the second region has turns");
    const controller = new AbortController();
    controller.abort();
    await rejectsWith(diarizer.diarize(jfk(), { signal: controller.signal }), "INTERRUPTED");
  });

  test("onnxruntime-node (Silero VAD) and sherpa-onnx in one process: each runs, in either order, and the regions feed the diarizer", async () => {
    const diarizer = createSherpaDiarizer(models);
    const vad = createSileroVad({ modelPath: sharedPath("models/silero_vad.onnx") });
    const before = await diarizer.diarize(jfk());
    const regions = await vad.detect(jfk());
    assert.ok(regions.length >= 2, JSON.stringify(regions));
    const after = await diarizer.diarize(jfk(), { speechRegions: regions.map((region): [number, number] => [region.startSecond, region.endSecond]) });
    assert.ok(before.turns.length > 0 && after.turns.length > 0);
    assert.deepEqual(await vad.detect(jfk()), regions, "onnxruntime still answers the same after sherpa-onnx ran");
  });

  test("a model without sherpa's metadata is refused with MODEL_FAILED instead of ending the process", async () => {
    const wrong = join(scratch, "segmentation-as-embedding.onnx");
    await writeFile(wrong, testSegmentationModel());
    const diarizer = createSherpaDiarizer({ segmentationModel: models.segmentationModel, embeddingModel: wrong });
    const error = await rejectsWith(diarizer.diarize(jfk()), "MODEL_FAILED");
    assert.match(error.message, /no "framework"/);
    await rejectsWith(createSherpaDiarizer({ ...models, segmentationModel: join(scratch, "absent.onnx") }).diarize(jfk()), "MODEL_NOT_FOUND");
  });
});

test("the stand-ins carry the metadata keys sherpa-onnx reads", async () => {
  const models = await writeTestSherpaModels(join(scratch, "metadata"));
  const segmentation = await readOnnxMetadata(models.segmentationModel);
  assert.equal(segmentation.window_size, "160000");
  assert.equal(segmentation.num_classes, "7");
  const embedding = await readOnnxMetadata(models.embeddingModel);
  assert.equal(embedding.framework, "wespeaker");
  assert.equal(embedding.output_dim, String(testEmbeddingDimensions));
});

describe("sherpa's answer as turns", () => {
  test("clusters become S1, S2, … in the order they first speak; turns are clipped to the file and sorted", () => {
    const segments: SherpaSegment[] = [
      { start: 5, end: 7, speaker: 0 },
      { start: 0.5, end: 2, speaker: 3 },
      { start: 2.5, end: 4, speaker: 0 },
      { start: 9, end: 12.5, speaker: 3 },
    ];
    assert.deepEqual(turnsFromSegments(segments, 11), [
      { startSecond: 0.5, endSecond: 2, speaker: "S1" },
      { startSecond: 2.5, endSecond: 4, speaker: "S2" },
      { startSecond: 5, endSecond: 7, speaker: "S2" },
      { startSecond: 9, endSecond: 11, speaker: "S1" },
    ]);
  });

  test("with speech regions, a turn across a pause becomes one turn a region; slivers and turns outside go, and so do their labels", () => {
    const segments: SherpaSegment[] = [
      { start: 0, end: 1, speaker: 2 },
      { start: 1, end: 6, speaker: 1 },
      { start: 2.95, end: 3.5, speaker: 2 },
      { start: 4.2, end: 4.8, speaker: 0 },
    ];
    assert.deepEqual(turnsFromSegments(segments, 10, [[4, 5], [1.5, 3]]), [
      { startSecond: 1.5, endSecond: 3, speaker: "S1" },
      { startSecond: 4, endSecond: 5, speaker: "S1" },
      { startSecond: 4.2, endSecond: 4.8, speaker: "S2" },
    ]);
  });
});

type FakeStream = SherpaStream & { received: number[] };

/** A fake of sherpa-onnx-node: fixed segments, and a "voice vector" (1, seconds) for pieces of at least 0.2 s. */
function fakeSherpa(segments: SherpaSegment[], calls: { clustering: unknown[] }): () => Promise<SherpaOnnx> {
  return async () => ({
    OfflineSpeakerDiarization: class {
      readonly handle = {};
      readonly sampleRate = 16_000;
      process(): SherpaSegment[] {
        return segments;
      }
      setConfig(config: { clustering: unknown }): void {
        calls.clustering.push(config.clustering);
      }
    },
    SpeakerEmbeddingExtractor: class {
      readonly dim = 2;
      createStream(): FakeStream {
        const received: number[] = [];
        return {
          received,
          acceptWaveform(wave: { samples: Float32Array }) {
            received.push(...wave.samples);
          },
          inputFinished() {},
        };
      }
      isReady(stream: SherpaStream): boolean {
        return (stream as FakeStream).received.length >= 3200;
      }
      compute(stream: SherpaStream): Float32Array {
        return Float32Array.of(1, (stream as FakeStream).received.length / 16_000);
      }
    },
  });
}

describe("on a fake of the sherpa-onnx module", () => {
  let wav: string;
  let stubModels: { segmentationModel: string; embeddingModel: string };
  before(async () => {
    // Two seconds of silence in a 16 kHz mono 16-bit WAV.
    const samples = 32_000;
    const header = Buffer.alloc(44);
    header.write("RIFF", 0, "ascii");
    header.writeUInt32LE(36 + samples * 2, 4);
    header.write("WAVEfmt ", 8, "ascii");
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(16_000, 24);
    header.writeUInt32LE(32_000, 28);
    header.writeUInt16LE(2, 32);
    header.writeUInt16LE(16, 34);
    header.write("data", 36, "ascii");
    header.writeUInt32LE(samples * 2, 40);
    wav = join(scratch, "silence.wav");
    await writeFile(wav, Buffer.concat([header, Buffer.alloc(samples * 2)]));
    stubModels = await writeTestSherpaModels(join(scratch, "fake-models"));
  });

  test("each label's vector averages its turns by length and has unit length; one too short for the model gets none and a warning", async () => {
    const calls = { clustering: [] as unknown[] };
    const segments = [
      { start: 0, end: 1, speaker: 1 },
      { start: 1.2, end: 1.5, speaker: 1 },
      { start: 1.5, end: 1.65, speaker: 0 },
      { start: 1.7, end: 1.85, speaker: 0 },
    ];
    const diarizer = createSherpaDiarizer({ ...stubModels, loadSherpa: fakeSherpa(segments, calls) });
    const result = await diarizer.diarize(wav, { speakers: 2 });
    assert.deepEqual(result.turns.map((turn) => turn.speaker), ["S1", "S1", "S2", "S2"]);
    assert.deepEqual(calls.clustering, [{ numClusters: 2, threshold: 0.5 }]);
    // S1: the 1 s turn's unit vector along (1, 1) and the 0.3 s turn's along (1, 0.3), averaged by length.
    const first = [1, 1].map((value) => value / Math.SQRT2);
    const second = [1, 0.3].map((value) => value / Math.hypot(1, 0.3));
    const mean = first.map((value, index) => value + 0.3 * (second[index] as number));
    const length = Math.hypot(...mean);
    const vector = result.embeddings?.S1;
    assert.ok(vector);
    assert.ok(Math.abs((vector[0] as number) - (mean[0] as number) / length) < 1e-6 && Math.abs((vector[1] as number) - (mean[1] as number) / length) < 1e-6, String(vector));
    assert.equal(result.embeddings?.S2, undefined, "0.15 s turns are too short for the fake model");
    assert.deepEqual(result.warnings.map((warning) => warning.feature), ["speaker voice vectors"]);
    assert.match(result.warnings[0]?.detail ?? "", /S2/);
    await diarizer.diarize(wav);
    assert.deepEqual(calls.clustering.at(-1), { numClusters: -1, threshold: 0.5 }, "without a number, the threshold decides");
  });

  test("when sherpa-onnx-node will not load, the call fails with MODEL_UNAVAILABLE and the next call tries again", async () => {
    let attempts = 0;
    const diarizer = createSherpaDiarizer({
      ...stubModels,
      loadSherpa: async () => {
        attempts += 1;
        throw new VideoRagError("MODEL_UNAVAILABLE", "sherpa-onnx-node could not be loaded (npm install sherpa-onnx-node): not installed");
      },
    });
    await rejectsWith(diarizer.diarize(wav), "MODEL_UNAVAILABLE");
    await rejectsWith(diarizer.diarize(wav), "MODEL_UNAVAILABLE");
    assert.equal(attempts, 2);
  });
});
