// Hugging Face models by name through transformers.js: CLIP image-text vectors, sentence vectors and Whisper speech
// recognition, read from the models folder or downloaded into it.
export { createClipEncoder, type ClipEncoderOptions } from "./clip-encoder.js";
export { type TransformersProviderOptions } from "./load-pretrained.js";
export { createSentenceEmbedder, type SentenceEmbedderOptions } from "./sentence-embedder.js";
export { createWhisperTranscriber, type WhisperTranscriberOptions } from "./whisper-transcriber.js";
