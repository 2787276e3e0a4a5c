// Whole-image tags from an ImageNet classifier (mobilenetv2-12-int8.onnx: 224 × 224 RGB input, 1000 logits) run by
// onnxruntime. Weak on its own; its tags are extra words for search beside the detector's objects.

import type { CallOptions, RgbImage, Tag, Tagger } from "../../spec/index.js";
import { VideoRagError } from "../../spec/index.js";
import { centreCropRect, resizeBilinear, rgbImageProblem, toPlanarTensor } from "./image-tensor.js";
import { lazySession, loadOnnxRuntime, modelId, readLabelFile, runSession, throwIfAborted } from "./onnx-session.js";

export interface MobilenetTaggerOptions {
  /** Path of the .onnx file, e.g. mobilenetv2-12-int8.onnx. */
  modelPath: string;
  /** Class names, one a line, in output order (imagenet_labels.txt); only the first comma-separated name is used. */
  labelsPath: string;
  /** Most tags per image; a call's `topK` overrides it. Default 5. */
  topK?: number;
  /** Lowest softmax probability kept; a call's `minScore` overrides it. Default 0.1. */
  minScore?: number;
  /** Threads one inference may use. Default: onnxruntime's choice (one per physical core). */
  intraOpThreads?: number;
}

const inputSize = 224;
// The ImageNet evaluation recipe the model was trained for: shorter side to 256, then the centre 224 × 224.
const resizeShorterSideTo = 256;
const imagenetNormalization = { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] } as const;
// The graph's batch dimension is free; a few images per run share its overhead without holding much memory.
const maxBatchSize = 8;

/** Creates a Tagger over an ImageNet classifier; the model loads on the first call. */
export function createMobilenetTagger(options: MobilenetTaggerOptions): Tagger {
  const defaultTopK = options.topK ?? 5;
  const defaultMinScore = options.minScore ?? 0.1;
  const labels: readonly string[] = readLabelFile(options.labelsPath).map(shortLabel);
  const session = lazySession(options.modelPath, { intraOpThreads: options.intraOpThreads });
  return {
    id: modelId(options.modelPath),
    capabilities: { maxBatchSize, maxConcurrency: 1, labels, inputSize },
    async tag(images: RgbImage[], callOptions: CallOptions & { topK?: number; minScore?: number } = {}): Promise<Tag[][]> {
      const topK = callOptions.topK ?? defaultTopK;
      const minScore = callOptions.minScore ?? defaultMinScore;
      // The session first: a missing model file is the more useful error where onnxruntime is missing too.
      const ready = await session();
      const ort = await loadOnnxRuntime();
      const inputName = ready.inputNames[0] ?? "input";
      const outputName = ready.outputNames[0] ?? "output";
      const planeValues = 3 * inputSize * inputSize;
      const results: Tag[][] = [];
      for (let start = 0; start < images.length; start += maxBatchSize) {
        throwIfAborted(callOptions.signal);
        const batch = images.slice(start, start + maxBatchSize);
        const input = new Float32Array(batch.length * planeValues);
        batch.forEach((image, position) => input.set(preprocess(image), position * planeValues));
        const outputs = await runSession(
          ready,
          { [inputName]: new ort.Tensor("float32", input, [batch.length, 3, inputSize, inputSize]) },
          options.modelPath,
        );
        const logits = outputs[outputName]?.data;
        if (!(logits instanceof Float32Array) || logits.length !== batch.length * labels.length) {
          throw new VideoRagError(
            "MODEL_OUTPUT_INVALID",
            `expected ${labels.length} float scores per image from "${outputName}" (one per label)`,
            { subject: options.modelPath },
          );
        }
        for (let position = 0; position < batch.length; position++) {
          const row = logits.subarray(position * labels.length, (position + 1) * labels.length);
          results.push(topTags(softmax(row), labels, topK, minScore));
        }
      }
      return results;
    },
  };
}

/** "tabby" for "tabby, tabby cat": the first of ImageNet's synonyms is the one people search for. */
export function shortLabel(label: string): string {
  return (label.split(",")[0] ?? label).trim();
}

/** Probabilities from logits, computed stably. */
export function softmax(logits: Float32Array): Float32Array {
  let max = Number.NEGATIVE_INFINITY;
  for (const value of logits) if (value > max) max = value;
  const out = new Float32Array(logits.length);
  let sum = 0;
  for (let index = 0; index < logits.length; index++) {
    const value = Math.exp((logits[index] as number) - max);
    out[index] = value;
    sum += value;
  }
  for (let index = 0; index < out.length; index++) out[index] = (out[index] as number) / sum;
  return out;
}

/** The `topK` best labels scoring at least `minScore`, best first; a label listed twice (ImageNet has two "crane"s) once. */
function topTags(probabilities: Float32Array, labels: readonly string[], topK: number, minScore: number): Tag[] {
  const order = Array.from(probabilities.keys())
    .filter((index) => (probabilities[index] as number) >= minScore)
    .sort((a, b) => (probabilities[b] as number) - (probabilities[a] as number));
  const tags: Tag[] = [];
  for (const index of order) {
    if (tags.length >= topK) break;
    const label = labels[index] ?? `class ${index}`;
    if (!tags.some((tag) => tag.label === label)) tags.push({ label, score: probabilities[index] as number });
  }
  return tags;
}

function preprocess(image: RgbImage): Float32Array {
  const problem = rgbImageProblem(image);
  if (problem) throw new VideoRagError("ARGUMENT_INVALID", problem);
  const crop = resizeBilinear(image, inputSize, inputSize, centreCropRect(image, resizeShorterSideTo, inputSize));
  return toPlanarTensor(crop, { channelOrder: "rgb", normalize: imagenetNormalization });
}
