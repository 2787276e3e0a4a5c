// Model interfaces, one per kind, with capabilities as data. The lite profile implements them with Debian programs.

import type { Warning } from "./model.js";

/** An image handed to a model: encoded bytes plus the moment it shows. */
export interface ImageInput {
  /** PNG or JPEG bytes. */
  data: Buffer;
  mimeType: "image/png" | "image/jpeg";
  timeSecond?: number;
}

export interface OcrLine {
  text: string;
  /** 0..100, as tesseract reports it; the mean over the line's words. */
  confidence: number;
}

/** Reads text in images (screen text, bitmap subtitles). */
export interface OcrEngine {
  readonly id: string;
  readonly capabilities: { languages: string[]; maxConcurrency: number };
  /** Text lines found in the image, in reading order; empty when there is none. */
  /**
   * `language`: the ISO 639-1 language the text is known to be in (a subtitle stream's tag); read with that language
   * first when the engine has it, with its configured languages otherwise.
   */
  recognize(image: ImageInput, options?: { mode?: "screen" | "subtitle"; language?: string; signal?: AbortSignal }): Promise<OcrLine[]>;
}

/** A transcribed stretch of speech with its times in seconds from the start of the audio. */
export interface TranscriptSegment {
  startSecond: number;
  endSecond: number;
  text: string;
  words?: { word: string; startSecond: number; endSecond: number }[];
  /** Who speaks, when the transcriber tells (a diarizing server's label, e.g. "A" or "SPEAKER_00"). */
  speaker?: string;
}

/** Turns 16 kHz mono audio into timed text. */
export interface Transcriber {
  readonly id: string;
  readonly capabilities: { languages: string[]; maxConcurrency: number; timestamps: "word" | "segment" };
  /** `wavPath` is a 16 kHz mono 16-bit PCM WAV file. */
  transcribe(
    wavPath: string,
    options?: {
      signal?: AbortSignal;
      onProgress?: (doneSeconds: number, totalSeconds: number) => void;
      /** A folder for the transcriber's own pieces, which it removes (the library's per-process scratch); default the system's. */
      scratchDir?: string;
      /** The language spoken (ISO 639-1), when known: a multilingual model transcribes in it instead of guessing. */
      language?: string;
    },
  ): Promise<{
    segments: TranscriptSegment[];
    warnings: Warning[];
    /** The language the transcriber heard (ISO 639-1), where it reports one (Whisper-class servers' `language`). */
    language?: string;
  }>;
}

/** A stretch of audio where one voice speaks. */
export interface SpeakerTurn {
  startSecond: number;
  endSecond: number;
  /** The diarizer's label for the voice, stable within one call ("S1", "S2", … in order of first appearance). */
  speaker: string;
}

/** Who speaks when: splits 16 kHz mono audio into speaker turns. */
export interface Diarizer {
  readonly id: string;
  readonly capabilities: {
    maxConcurrency: number;
    /** True when it gives a voice vector per speaker, so the same voice can be matched across videos. */
    embeddings: boolean;
  };
  /** `wavPath` is a 16 kHz mono 16-bit PCM WAV file. */
  diarize(
    wavPath: string,
    options?: {
      signal?: AbortSignal;
      /** Where voice activity detection heard speech, in seconds; the whole file is searched when absent. */
      speechRegions?: [startSecond: number, endSecond: number][];
      /** The number of speakers, when the user knows it; estimated otherwise. */
      speakers?: number;
    },
  ): Promise<{ turns: SpeakerTurn[]; embeddings?: Record<string, Float32Array>; warnings: Warning[] }>;
}

// ---------------------------------------------------------------------------------------------------------------------
// Model kinds beyond the lite profile. Each provider states what it can do as data; the core (providers/runtime) does
// batching, retries with backoff, timeouts, concurrency limits and the on-disk output cache once, for every provider.

/** Decoded pixels: 8-bit RGB, interleaved, row-major. What detectors, taggers and image encoders take. */
export interface RgbImage {
  width: number;
  height: number;
  /** width × height × 3 bytes. */
  data: Uint8Array;
  timeSecond?: number;
}

/** What every model call accepts. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Limits the core honours for a provider. */
export interface BaseCapabilities {
  /** Most inputs one call may carry; the core splits larger requests. */
  maxBatchSize: number;
  /** Most calls in flight at once; the core queues the rest. */
  maxConcurrency: number;
}

export type ChatRole = "system" | "user" | "assistant";
export type ChatPart = { type: "text"; text: string } | { type: "image"; image: ImageInput };
export interface ChatMessage {
  role: ChatRole;
  /** Plain text, or parts mixing text and images (images only for models that accept them). */
  content: string | ChatPart[];
}

export interface ChatOptions extends CallOptions {
  temperature?: number;
  maxTokens?: number;
  /** Ask the server for a JSON object (OpenAI `response_format: {type: "json_object"}`). */
  json?: boolean;
}

export interface ChatResult {
  text: string;
  finishReason?: string;
  usage?: { promptTokens: number; completionTokens: number };
}

/** A chat model. Streaming yields text deltas in order; their concatenation equals `chat`'s text. */
export interface LanguageModel {
  readonly id: string;
  readonly capabilities: BaseCapabilities & {
    acceptsImages: boolean;
    /** Most images one request may carry (0 when images are not accepted). */
    maxImages: number;
    jsonOutput: boolean;
    contextTokens?: number;
  };
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;
  stream(messages: ChatMessage[], options?: ChatOptions): AsyncIterable<string>;
}

/** A chat model that accepts images in its messages. */
export interface VisionLanguageModel extends LanguageModel {
  readonly capabilities: LanguageModel["capabilities"] & { acceptsImages: true };
}

/** Text → dense vectors (sentence embeddings). Vectors are L2-normalised. */
export interface TextEmbedder {
  readonly id: string;
  readonly capabilities: BaseCapabilities & { dimensions: number };
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
}

export interface EmbedOptions extends CallOptions {
  /**
   * What the texts are: "query" for a question, "passage" (default) for what is searched. Models trained with the two
   * apart (the E5 family, multilingual-e5 among them) are given their prefix ("query: ", "passage: ").
   */
  purpose?: "query" | "passage";
}

/** Images and text into one vector space (CLIP family). Vectors are L2-normalised. */
export interface ImageTextEncoder {
  readonly id: string;
  readonly capabilities: BaseCapabilities & { dimensions: number };
  embedImages(images: RgbImage[], options?: CallOptions): Promise<Float32Array[]>;
  embedTexts(texts: string[], options?: CallOptions): Promise<Float32Array[]>;
}

/** A detected object. The box is in fractions of the image (0..1), top-left origin. */
export interface Detection {
  label: string;
  /** 0..1 */
  score: number;
  box: { x: number; y: number; width: number; height: number };
}

/** Finds objects in images. */
export interface Detector {
  readonly id: string;
  readonly capabilities: BaseCapabilities & { labels: readonly string[]; inputSize: number };
  /** One list per image, best first. */
  detect(images: RgbImage[], options?: CallOptions & { minScore?: number }): Promise<Detection[][]>;
}

export interface Tag {
  label: string;
  /** 0..1 */
  score: number;
}

/** Names what an image shows as a whole (an image classifier). */
export interface Tagger {
  readonly id: string;
  readonly capabilities: BaseCapabilities & { labels: readonly string[]; inputSize: number };
  /** One list per image, best first. */
  tag(images: RgbImage[], options?: CallOptions & { topK?: number; minScore?: number }): Promise<Tag[][]>;
}

/** A stretch of audio where someone speaks, in seconds from the start of the audio. */
export interface SpeechRegion {
  startSecond: number;
  endSecond: number;
}

/** Finds where speech is in 16 kHz mono audio (voice-activity detection): cheap, so it belongs to the light index. */
export interface VoiceActivityDetector {
  readonly id: string;
  readonly capabilities: { sampleRate: 16000; maxConcurrency: number };
  /** `wavPath` is a 16 kHz mono 16-bit PCM WAV file; regions in time order, not overlapping. */
  detect(wavPath: string, options?: CallOptions & { onProgress?: (doneSeconds: number, totalSeconds: number) => void }): Promise<SpeechRegion[]>;
}
