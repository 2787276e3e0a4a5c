// The lite profile's model providers: Debian programs (tesseract, pocketsphinx) run as child processes, fully offline,
// and a speaker diarizer computed in-process with no model weights.
export { createLiteDiarizer, defaultLiteDiarizerSettings, type LiteDiarizerOptions, type LiteDiarizerSettings } from "./lite-diarizer.js";
export { createPocketsphinxTranscriber, type PocketsphinxTranscriberOptions } from "./pocketsphinx-transcriber.js";
export { createTesseractOcr, type TesseractOcrOptions } from "./tesseract-ocr.js";
