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
  recognize(image: ImageInput, options?: { mode?: "screen" | "subtitle"; signal?: AbortSignal }): Promise<OcrLine[]>;
}

/** A transcribed stretch of speech with its times in seconds from the start of the audio. */
export interface TranscriptSegment {
  startSecond: number;
  endSecond: number;
  text: string;
  words?: { word: string; startSecond: number; endSecond: number }[];
}

/** Turns 16 kHz mono audio into timed text. */
export interface Transcriber {
  readonly id: string;
  readonly capabilities: { languages: string[]; maxConcurrency: number; timestamps: "word" | "segment" };
  /** `wavPath` is a 16 kHz mono 16-bit PCM WAV file. */
  transcribe(
    wavPath: string,
    options?: { signal?: AbortSignal; onProgress?: (doneSeconds: number, totalSeconds: number) => void },
  ): Promise<{ segments: TranscriptSegment[]; warnings: Warning[] }>;
}
