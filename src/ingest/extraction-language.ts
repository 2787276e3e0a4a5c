// The language of what the deferred stages read: speech in the language the transcriber heard in its clip (or was
// asked for), screen text in the video's where OCR reads that language, and the language of a video that had none,
// found from its speech: what the transcriber heard first, then what the recognised text reads as. The user's word and
// the subtitles' tags outrank both, and are set before any of this runs (ingest-media.ts).

import type { OcrEngine, Segment, Transcriber, Video } from "../spec/index.js";
import { identifyLanguage, tesseractLanguage } from "../text/index.js";

/** A video's language found from its speech, and how. */
export interface SpokenLanguage {
  /** ISO 639-1. */
  language: string;
  /** "transcriber": the language it reported hearing; "text": the recognised text identified. */
  by: "transcriber" | "text";
}

/**
 * The transcriber, telling `heard` the language it reports for each call: a clip's speech stage keeps only the
 * transcript's segments, so this is how what a Whisper-class model detected reaches the clip.
 */
export function reportingLanguage(transcriber: Transcriber, heard: (language: string) => void): Transcriber {
  return {
    id: transcriber.id,
    capabilities: transcriber.capabilities,
    async transcribe(wavPath, options) {
      const transcript = await transcriber.transcribe(wavPath, options);
      if (transcript.language) heard(transcript.language);
      return transcript;
    },
  };
}

/** Segments with `language` where they have none; as they are when it is unknown. */
export function withLanguage(segments: Segment[], language: string | undefined): Segment[] {
  return language ? segments.map((segment) => (segment.language ? segment : { ...segment, language })) : segments;
}

/**
 * The language OCR read a video's screen text in: the video's, where it is among the languages the engine reads
 * (tesseract's codes, or ISO 639-1); unknown otherwise, since text in another language read as this one is no guide.
 */
export function screenLanguage(videoLanguage: string | undefined, ocr: OcrEngine | undefined): string | undefined {
  if (!videoLanguage || !ocr) return undefined;
  const code = tesseractLanguage(videoLanguage);
  return ocr.capabilities.languages.some((read) => read === videoLanguage || read === code) ? videoLanguage : undefined;
}

/**
 * The language of a video that has none, from the speech recognised in some of its clips: the one the transcriber
 * heard in most of them (the first heard of a tie), else what the recognised text reads as; undefined when neither
 * tells (no speech yet: a later batch tries again).
 */
export async function spokenLanguage(heard: readonly string[], speech: readonly Segment[]): Promise<SpokenLanguage | undefined> {
  const counts = new Map<string, number>();
  for (const language of heard) counts.set(language, (counts.get(language) ?? 0) + 1);
  const most = [...counts].reduce<[string, number] | undefined>((best, entry) => (best && best[1] >= entry[1] ? best : entry), undefined);
  if (most) return { language: most[0], by: "transcriber" };
  const identified = speech.length > 0 ? await identifyLanguage(speech.map((segment) => segment.text)) : undefined;
  return identified ? { language: identified, by: "text" } : undefined;
}

/** The language a stage's segments are in, as far as it is known: see the module's header. */
export function stageLanguage(stage: string, video: Video, found: SpokenLanguage | undefined, heard: string | undefined, ocr: OcrEngine | undefined): string | undefined {
  const videoLanguage = video.language ?? found?.language;
  if (stage === "speech") return heard ?? videoLanguage;
  if (stage === "screen-text") return screenLanguage(videoLanguage, ocr);
  return undefined;
}
