// The lite profile's model providers: Debian programs (tesseract, pocketsphinx) run as child processes, fully offline.
export { createPocketsphinxTranscriber, type PocketsphinxTranscriberOptions } from "./pocketsphinx-transcriber.js";
export { createTesseractOcr, type TesseractOcrOptions } from "./tesseract-ocr.js";
