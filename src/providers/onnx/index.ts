// Local image models run by onnxruntime-node (loaded on first use): a YOLOX object detector and an ImageNet tagger.
export { createYoloxDetector, type YoloxDetectorOptions } from "./yolox-detector.js";
export { createMobilenetTagger, type MobilenetTaggerOptions } from "./mobilenet-tagger.js";
export { disableOnnxTelemetry, loadOnnxRuntime } from "./onnx-session.js";
export { createSileroVad, type SileroVadOptions } from "./silero-vad.js";
