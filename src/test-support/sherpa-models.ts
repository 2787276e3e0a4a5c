// For tests only: writes stand-ins for the two models of the neural diarizer (a pyannote-shaped segmentation model and a
// WeSpeaker-shaped voice-embedding model), real ONNX graphs of a few kilobytes carrying the metadata sherpa-onnx reads, so
// the diarizer runs end to end where the real weights cannot be downloaded. What they find is deterministic but is not
// diarization: the segmentation model calls a frame "speaker 1" or "speaker 2" by its loudness alone, and the embedding is
// a fixed projection of the mean log-mel spectrum.

import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { defaultSherpaModels } from "../providers/sherpa/index.js";
import { findModel } from "../providers/models/index.js";
import { elementType, floatTensor, model, node, table, valueInfo } from "./onnx-writer.js";

const constant = (length: number, value: number): Float32Array => new Float32Array(length).fill(value);


// ---------------------------------------------------------------------------------------------------------------------
// The stand-ins.

/** pyannote segmentation-3.0's shape: 10 s windows at 16 kHz, frames every 270 samples over 991, 3 local speakers. */
const segmentation = { sampleRate: 16_000, windowSize: 160_000, receptiveFieldSize: 991, receptiveFieldShift: 270 };
/** Powerset classes of 3 speakers, at most 2 at once: silence, {1}, {2}, {3}, {1,2}, {1,3}, {2,3}. */
const powersetClasses = 7;

/** Natural log of a frame's mean square amplitude above which the stand-in hears speaker 1, and then speaker 2. */
export const testSegmentationThresholds = { speech: -7, loud: -4.5 } as const;

/** Dimensions of the stand-in voice vectors. */
export const testEmbeddingDimensions = 64;

/**
 * The segmentation stand-in: x (N, 1, T) → per frame, the log of the mean square amplitude over the receptive field,
 * mapped to powerset logits so that quiet frames are silence, speech up to `loud` is local speaker 1 and louder speech
 * local speaker 2 (both scores rise with loudness; speaker 2's twice as fast, crossing speaker 1's at `loud`).
 */
export function testSegmentationModel(): Buffer {
  const { speech, loud } = testSegmentationThresholds;
  const weights = new Float32Array(powersetClasses);
  const bias = constant(powersetClasses, -1_000);
  bias[0] = 0;
  weights[1] = 1;
  bias[1] = -speech;
  weights[2] = 2;
  bias[2] = -(speech + loud);
  return model({
    name: "stand-in",
    nodes: [
      node("Mul", ["x", "x"], ["power"]),
      node("Conv", ["power", "window"], ["energy"], [
        { name: "kernel_shape", ints: [segmentation.receptiveFieldSize] },
        { name: "strides", ints: [segmentation.receptiveFieldShift] },
      ]),
      node("Add", ["energy", "epsilon"], ["floored"]),
      node("Log", ["floored"], ["loudness"]),
      node("Transpose", ["loudness"], ["frames"], [{ name: "perm", ints: [0, 2, 1] }]),
      node("MatMul", ["frames", "weights"], ["scaled"]),
      node("Add", ["scaled", "bias"], ["y"]),
    ],
    initializers: [
      floatTensor("window", [1, 1, segmentation.receptiveFieldSize], constant(segmentation.receptiveFieldSize, 1 / segmentation.receptiveFieldSize)),
      floatTensor("epsilon", [1], constant(1, 1e-10)),
      floatTensor("weights", [1, powersetClasses], weights),
      floatTensor("bias", [powersetClasses], bias),
    ],
    inputs: [valueInfo("x", elementType.float, ["N", 1, "T"])],
    outputs: [valueInfo("y", elementType.float, ["N", "frames", powersetClasses])],
    metadata: {
      model_type: "pyannote-segmentation-3.0",
      sample_rate: segmentation.sampleRate,
      window_size: segmentation.windowSize,
      receptive_field_size: segmentation.receptiveFieldSize,
      receptive_field_shift: segmentation.receptiveFieldShift,
      num_speakers: 3,
      powerset_max_classes: 2,
      num_classes: powersetClasses,
    },
  });
}

/** The embedding stand-in: 80-band fbank frames (N, T, 80) → their mean, through a fixed random projection. */
export function testEmbeddingModel(dimensions = testEmbeddingDimensions): Buffer {
  const melBands = 80;
  return model({
    name: "stand-in",
    nodes: [
      node("ReduceMean", ["x"], ["average"], [{ name: "axes", ints: [1] }, { name: "keepdims", int: 0 }]),
      node("MatMul", ["average", "projection"], ["embedding"]),
    ],
    initializers: [floatTensor("projection", [melBands, dimensions], table(melBands, dimensions, 17))],
    inputs: [valueInfo("x", elementType.float, ["N", "T", melBands])],
    outputs: [valueInfo("embedding", elementType.float, ["N", dimensions])],
    metadata: {
      framework: "wespeaker",
      output_dim: dimensions,
      sample_rate: 16_000,
      normalize_samples: 1,
      language: "English",
    },
  });
}

/**
 * Writes both stand-ins into `modelsDir` at the paths the manifest gives the default models, so `requireModel` and the
 * provider registry find them as if `videorag models pull` had fetched them. Returns their absolute paths.
 */
export async function writeTestSherpaModels(modelsDir: string): Promise<{ segmentationModel: string; embeddingModel: string }> {
  const write = async (name: string, bytes: Buffer): Promise<string> => {
    const [file] = findModel(name).files;
    if (!file) throw new Error(`${name} has no files in the manifest`);
    const target = join(modelsDir, ...file.path.split("/"));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, bytes);
    return target;
  };
  return {
    segmentationModel: await write(defaultSherpaModels.segmentation, testSegmentationModel()),
    embeddingModel: await write(defaultSherpaModels.embedding, testEmbeddingModel()),
  };
}
