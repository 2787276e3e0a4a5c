// Speech to timed text through POST /audio/transcriptions (Whisper's API), uploading the WAV as multipart form data.
// Servers that return only text still give a usable transcript: one segment over the whole audio, with a warning.

import { open } from "node:fs/promises";
import { basename } from "node:path";
import { z } from "zod";
import { VideoRagError } from "../../spec/errors.js";
import type { Warning } from "../../spec/model.js";
import type { Transcriber, TranscriptSegment } from "../../spec/providers.js";
import { readWavLayout } from "../../media/index.js";
import { openAiEndpoint, providerId, type OpenAiConnectionOptions } from "./openai-endpoint.js";

export interface OpenAiTranscriberOptions extends OpenAiConnectionOptions {
  /** Languages the model transcribes, as ISO 639-1 codes. Default ["en"]. */
  languages?: string[];
}

const timedText = { start: z.number(), end: z.number() };
const transcriptionReply = z.object({
  text: z.string(),
  segments: z.array(z.object({ ...timedText, text: z.string() })).nullish(),
  words: z.array(z.object({ ...timedText, word: z.string() })).nullish(),
});

/** Creates a Transcriber on an OpenAI-compatible server (OpenAI Whisper, faster-whisper-server, whisper.cpp's server). */
export function createOpenAiTranscriber(options: OpenAiTranscriberOptions): Transcriber {
  const endpoint = openAiEndpoint(options, "/audio/transcriptions");

  return {
    id: providerId(options),
    // Word times are asked for, but servers may leave them out; segment times are what every verbose_json reply has.
    capabilities: { languages: options.languages ?? ["en"], maxConcurrency: options.maxConcurrency ?? 4, timestamps: "segment" },

    async transcribe(wavPath, transcribeOptions = {}) {
      const { signal, onProgress } = transcribeOptions;
      const { audio, durationSeconds } = await readWav(wavPath);
      onProgress?.(0, durationSeconds);

      const form = new FormData();
      form.append("file", new Blob([audio], { type: "audio/wav" }), basename(wavPath));
      form.append("model", options.model);
      form.append("response_format", "verbose_json");
      form.append("timestamp_granularities[]", "segment");
      form.append("timestamp_granularities[]", "word");
      const reply = endpoint.parse(transcriptionReply, await endpoint.post(form, signal));
      onProgress?.(durationSeconds, durationSeconds);

      const warnings: Warning[] = [];
      const words = (reply.words ?? []).map((word) => ({ word: word.word.trim(), startSecond: word.start, endSecond: word.end }));
      let segments: TranscriptSegment[] = (reply.segments ?? [])
        .map((segment) => ({ startSecond: segment.start, endSecond: segment.end, text: segment.text.trim() }))
        .filter((segment) => segment.text !== "");
      if (segments.length === 0 && reply.text.trim() !== "") {
        segments = [{ startSecond: 0, endSecond: durationSeconds, text: reply.text.trim() }];
        warnings.push({
          type: "degraded",
          feature: "speech timestamps",
          detail:
            `${providerId(options)} returned text without segment times, ` +
            `so the transcript of ${basename(wavPath)} spans the whole ${durationSeconds.toFixed(1)} s`,
        });
      }
      const lastIndex = segments.length - 1;
      return { segments: segments.map((segment, index) => withWords(segment, words, index === lastIndex)), warnings };
    },
  };
}

async function readWav(wavPath: string): Promise<{ audio: Buffer; durationSeconds: number }> {
  const file = await open(wavPath, "r").catch((error: unknown) => {
    throw new VideoRagError("INPUT_NOT_FOUND", `cannot read ${wavPath}`, { cause: error, subject: wavPath });
  });
  try {
    const layout = await readWavLayout(file, wavPath);
    const bytesPerSecond = layout.sampleRate * layout.channels * (layout.bitsPerSample / 8);
    return { audio: await file.readFile(), durationSeconds: layout.dataBytes / bytesPerSecond };
  } finally {
    await file.close();
  }
}

/** Adds the words that start inside the segment (the last segment also takes any word starting at or after its end). */
function withWords(segment: TranscriptSegment, words: NonNullable<TranscriptSegment["words"]>, isLast: boolean): TranscriptSegment {
  const inside = words.filter(
    (word) => word.startSecond >= segment.startSecond && (word.startSecond < segment.endSecond || isLast),
  );
  return inside.length > 0 ? { ...segment, words: inside } : segment;
}
