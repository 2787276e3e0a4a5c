// Object detection with a YOLOX ONNX model (yolox_nano.onnx: 80 COCO classes, 416 × 416 input) run by onnxruntime.
// The exported graph stops before box decoding, so the grid decode, score threshold and per-class NMS are done here.

import type { CallOptions, Detection, Detector, RgbImage } from "../../spec/index.js";
import { VideoRagError } from "../../spec/index.js";
import { boxFromLetterbox, letterbox, rgbImageProblem } from "./image-tensor.js";
import { lazySession, loadOnnxRuntime, modelId, readLabelFile, runSession, throwIfAborted } from "./onnx-session.js";

export interface YoloxDetectorOptions {
  /** Path of the .onnx file, e.g. yolox_nano.onnx. */
  modelPath: string;
  /** Class names, one a line, in output order (coco_labels.txt). */
  labelsPath: string;
  /**
   * Lowest objectness × class score kept. Default 0.35 for calls that name no `minScore`. When set here (a configured
   * `minScore`), it is also a floor: a call may ask for a higher score, never a lower one, so ingest asking for weak
   * boxes does not override what the user chose.
   */
  minScore?: number;
  /** Boxes of one class overlapping a better one by more than this intersection-over-union are dropped. Default 0.45. */
  iouThreshold?: number;
  /** Threads one inference may use. Default: onnxruntime's choice (one per physical core). */
  intraOpThreads?: number;
}

/** A scored box in model input pixels, before mapping back to the image. */
export interface BoxCandidate {
  classIndex: number;
  score: number;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

const inputSize = 416;
const strides = [8, 16, 32] as const;
// YOLOX's letterbox fill, the grey it was trained with.
const padValue = 114;
// A threshold near 0 passes up to 3549 cells × 80 classes; only the best go into the quadratic suppression.
const maxCandidatesPerImage = 2000;

/** Creates a Detector over a YOLOX ONNX model; the model loads on the first call. */
export function createYoloxDetector(options: YoloxDetectorOptions): Detector {
  const defaultMinScore = options.minScore ?? 0.35;
  const iouThreshold = options.iouThreshold ?? 0.45;
  const labels: readonly string[] = readLabelFile(options.labelsPath);
  const session = lazySession(options.modelPath, { intraOpThreads: options.intraOpThreads });
  return {
    id: modelId(options.modelPath),
    // The graph's batch dimension is fixed at 1; one session serves calls in turn, each using onnxruntime's threads.
    capabilities: { maxBatchSize: 1, maxConcurrency: 1, labels, inputSize },
    async detect(images: RgbImage[], callOptions: CallOptions & { minScore?: number } = {}): Promise<Detection[][]> {
      const minScore = Math.max(callOptions.minScore ?? defaultMinScore, options.minScore ?? 0);
      // The session first: a missing model file is the more useful error where onnxruntime is missing too.
      const ready = await session();
      const ort = await loadOnnxRuntime();
      const inputName = ready.inputNames[0] ?? "images";
      const outputName = ready.outputNames[0] ?? "output";
      const results: Detection[][] = [];
      for (const image of images) {
        throwIfAborted(callOptions.signal);
        const problem = rgbImageProblem(image);
        if (problem) throw new VideoRagError("ARGUMENT_INVALID", problem);
        const input = letterbox(image, inputSize, padValue);
        const outputs = await runSession(
          ready,
          { [inputName]: new ort.Tensor("float32", input.tensor, [1, 3, inputSize, inputSize]) },
          options.modelPath,
        );
        const output = outputs[outputName];
        if (!output || !(output.data instanceof Float32Array)) {
          throw new VideoRagError("MODEL_OUTPUT_INVALID", `the model has no float output "${outputName}"`, { subject: options.modelPath });
        }
        const candidates = decodeYoloxOutput(output.data, { inputSize, classCount: labels.length, minScore });
        results.push(
          nonMaxSuppression(candidates, iouThreshold)
            .map((candidate) => ({
              label: labels[candidate.classIndex] ?? `class ${candidate.classIndex}`,
              score: candidate.score,
              box: boxFromLetterbox(candidate, input.scale, image.width, image.height),
            }))
            .filter((detection) => detection.box.width > 0 && detection.box.height > 0),
        );
      }
      return results;
    },
  };
}

/**
 * Decodes YOLOX's raw output (rows of x, y, w, h, objectness, class scores over the grids of strides 8, 16 and 32) into
 * boxes in input pixels, one per class whose objectness × class score reaches `minScore`.
 */
export function decodeYoloxOutput(
  data: Float32Array,
  options: { inputSize: number; classCount: number; minScore: number },
): BoxCandidate[] {
  const rowLength = 5 + options.classCount;
  const rows = strides.reduce((sum, stride) => sum + (options.inputSize / stride) ** 2, 0);
  if (data.length !== rows * rowLength) {
    throw new VideoRagError(
      "MODEL_OUTPUT_INVALID",
      `a YOLOX output for ${options.inputSize}px input and ${options.classCount} classes has ${rows * rowLength} values, not ${data.length}`,
    );
  }
  const candidates: BoxCandidate[] = [];
  let row = 0;
  for (const stride of strides) {
    const cells = options.inputSize / stride;
    for (let gridY = 0; gridY < cells; gridY++) {
      for (let gridX = 0; gridX < cells; gridX++, row++) {
        const base = row * rowLength;
        const objectness = data[base + 4] as number;
        // Class scores are at most 1, so a weak objectness rules out every class at once.
        if (objectness < options.minScore) continue;
        const centreX = ((data[base] as number) + gridX) * stride;
        const centreY = ((data[base + 1] as number) + gridY) * stride;
        const halfWidth = (Math.exp(data[base + 2] as number) * stride) / 2;
        const halfHeight = (Math.exp(data[base + 3] as number) * stride) / 2;
        for (let classIndex = 0; classIndex < options.classCount; classIndex++) {
          const score = objectness * (data[base + 5 + classIndex] as number);
          if (score < options.minScore) continue;
          candidates.push({
            classIndex,
            score,
            x1: centreX - halfWidth,
            y1: centreY - halfHeight,
            x2: centreX + halfWidth,
            y2: centreY + halfHeight,
          });
        }
      }
    }
  }
  return candidates;
}

/**
 * Greedy non-maximum suppression within each class: best first, a box is kept unless a kept box of its class overlaps it
 * by more than `iouThreshold`. Returns the kept boxes, best first; only the best 2000 candidates are considered.
 */
export function nonMaxSuppression(candidates: BoxCandidate[], iouThreshold: number): BoxCandidate[] {
  const sorted = [...candidates].sort((a, b) => b.score - a.score).slice(0, maxCandidatesPerImage);
  const kept: BoxCandidate[] = [];
  for (const candidate of sorted) {
    const overlapped = kept.some(
      (other) => other.classIndex === candidate.classIndex && intersectionOverUnion(other, candidate) > iouThreshold,
    );
    if (!overlapped) kept.push(candidate);
  }
  return kept;
}

/** Intersection over union of two corner boxes; 0 when either is empty. */
export function intersectionOverUnion(a: BoxCandidate, b: BoxCandidate): number {
  const width = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const height = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  if (width <= 0 || height <= 0) return 0;
  const intersection = width * height;
  const union = (a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - intersection;
  return union > 0 ? intersection / union : 0;
}
