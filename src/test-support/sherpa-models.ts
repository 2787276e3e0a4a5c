// For tests only: writes stand-ins for the two models of the neural diarizer (a pyannote-shaped segmentation model and a
// WeSpeaker-shaped voice-embedding model), real ONNX graphs of a few kilobytes carrying the metadata sherpa-onnx reads, so
// the diarizer runs end to end where the real weights cannot be downloaded. What they find is deterministic but is not
// diarization: the segmentation model calls a frame "speaker 1" or "speaker 2" by its loudness alone, and the embedding is
// a fixed projection of the mean log-mel spectrum.

import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { defaultSherpaModels } from "../providers/sherpa/index.js";
import { findModel } from "../providers/models/index.js";

// ---------------------------------------------------------------------------------------------------------------------
// A minimal protobuf writer for the ONNX messages these graphs need (field numbers from onnx/onnx.proto). The
// transformers stand-ins (src/providers/transformers/test-models.ts) carry their own copy; these also need metadata.

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

const intField = (number: number, value: number): Buffer => Buffer.concat([varint(number << 3), varint(value)]);

function bytesField(number: number, value: Buffer | string): Buffer {
  const payload = typeof value === "string" ? Buffer.from(value, "utf8") : value;
  return Buffer.concat([varint((number << 3) | 2), varint(payload.length), payload]);
}

const message = (...fields: Buffer[]): Buffer => Buffer.concat(fields);
const floatType = 1;

/** ValueInfoProto of a float tensor whose dimensions are numbers or symbolic names. */
function valueInfo(name: string, dims: (number | string)[]): Buffer {
  const shape = message(...dims.map((dim) => bytesField(1, typeof dim === "number" ? intField(1, dim) : bytesField(2, dim))));
  return message(bytesField(1, name), bytesField(2, bytesField(1, message(intField(1, floatType), bytesField(2, shape)))));
}

function floatTensor(name: string, dims: number[], values: Float32Array): Buffer {
  return message(
    ...dims.map((dim) => intField(1, dim)),
    intField(2, floatType),
    bytesField(8, name),
    bytesField(9, Buffer.from(values.buffer, values.byteOffset, values.byteLength)),
  );
}

type Attribute = { name: string; ints: number[] } | { name: string; int: number };

function node(opType: string, inputs: string[], outputs: string[], attributes: Attribute[] = []): Buffer {
  const encoded = attributes.map((attribute) =>
    "ints" in attribute
      ? message(bytesField(1, attribute.name), ...attribute.ints.map((value) => intField(8, value)), intField(20, 7))
      : message(bytesField(1, attribute.name), intField(3, attribute.int), intField(20, 2)),
  );
  return message(
    ...inputs.map((input) => bytesField(1, input)),
    ...outputs.map((output) => bytesField(2, output)),
    bytesField(3, `${opType}_${outputs[0]}`),
    bytesField(4, opType),
    ...encoded.map((attribute) => bytesField(5, attribute)),
  );
}

interface Graph {
  nodes: Buffer[];
  initializers: Buffer[];
  inputs: Buffer[];
  outputs: Buffer[];
  /** ModelProto.metadata_props: what sherpa-onnx reads to know the model's shape and framework. */
  metadata: Record<string, string | number>;
}

function model(graph: Graph): Buffer {
  const graphProto = message(
    ...graph.nodes.map((entry) => bytesField(1, entry)),
    bytesField(2, "stand-in"),
    ...graph.initializers.map((entry) => bytesField(5, entry)),
    ...graph.inputs.map((entry) => bytesField(11, entry)),
    ...graph.outputs.map((entry) => bytesField(12, entry)),
  );
  const metadata = Object.entries(graph.metadata).map(([key, value]) => bytesField(14, message(bytesField(1, key), bytesField(2, String(value)))));
  // IR version 8, default-domain opset 13 (ReduceMean still takes `axes` as an attribute there).
  return message(
    intField(1, 8),
    bytesField(2, "videorag-test"),
    bytesField(7, graphProto),
    bytesField(8, message(bytesField(1, ""), intField(2, 13))),
    ...metadata,
  );
}

const constant = (length: number, value: number): Float32Array => new Float32Array(length).fill(value);

/** A fixed pseudo-random table, the same on every run. */
function table(rows: number, columns: number, seed: number): Float32Array {
  const values = new Float32Array(rows * columns);
  let state = seed;
  for (let index = 0; index < values.length; index += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    values[index] = state / 1_073_741_824 - 1;
  }
  return values;
}

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
    inputs: [valueInfo("x", ["N", 1, "T"])],
    outputs: [valueInfo("y", ["N", "frames", powersetClasses])],
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
    nodes: [
      node("ReduceMean", ["x"], ["average"], [{ name: "axes", ints: [1] }, { name: "keepdims", int: 0 }]),
      node("MatMul", ["average", "projection"], ["embedding"]),
    ],
    initializers: [floatTensor("projection", [melBands, dimensions], table(melBands, dimensions, 17))],
    inputs: [valueInfo("x", ["N", "T", melBands])],
    outputs: [valueInfo("embedding", ["N", dimensions])],
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
