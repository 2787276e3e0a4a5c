// The neural speaker diarizer through sherpa-onnx-node (an optional dependency, loaded on first use).
export { createSherpaDiarizer, defaultSherpaModels, type SherpaDiarizerOptions } from "./sherpa-diarizer.js";
export { loadSherpaOnnx, type SherpaOnnx, type SherpaSegment } from "./sherpa-module.js";
