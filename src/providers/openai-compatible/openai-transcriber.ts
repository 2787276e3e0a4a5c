// Speech to timed text through POST /audio/transcriptions (Whisper's API), uploading the WAV as multipart form data.
// OpenAI refuses uploads over 25 MB (about 13 minutes of 16 kHz 16-bit mono), so longer audio is cut at pauses into
// pieces sent one after another, and each piece's times are shifted back onto the whole file's clock.
// Servers that return only text still give a usable transcript: one segment per upload, with a warning.
// Who speaks comes through as the server labels it, from a diarizing model's `diarized_json` (OpenAI's
// gpt-4o-transcribe-diarize) or from `speaker` on verbose_json segments (whisperX-style servers). The language the
// server heard (verbose_json's `language`, a Whisper name or a code) comes back as ISO 639-1.

import { mkdtemp, open, readFile, rm, writeFile, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, parse } from "node:path";
import { z } from "zod";
import { VideoRagError } from "../../spec/errors.js";
import type { Warning } from "../../spec/model.js";
import type { Transcriber, TranscriptSegment } from "../../spec/providers.js";
import {
  energyFramesPerSecond,
  extractWav,
  quietestCut,
  quietWindowFrames,
  readFrameEnergies,
  readWavLayout,
  type AudioSpan,
  type WavLayout,
} from "../../media/index.js";
import { whisperLanguages } from "../../text/index.js";
import { openAiEndpoint, providerId, type OpenAiConnectionOptions } from "./openai-endpoint.js";
import { reportedLanguage } from "./whisper-language-names.js";

export interface OpenAiTranscriberOptions extends OpenAiConnectionOptions {
  /** Languages the model transcribes, as ISO 639-1 codes. Default Whisper's (OpenAI's models and Whisper servers). */
  languages?: string[];
  /**
   * Longest audio sent in one request, in seconds (at least 1); longer audio is cut at pauses into pieces no longer
   * than this. Default 600: 19 MB of 16 kHz 16-bit mono, under OpenAI's 25 MB upload limit.
   */
  maxSecondsPerRequest?: number;
  /**
   * The reply asked for. "verbose_json" (default): Whisper's segments with segment and word times. "diarized_json":
   * segments with a `speaker` label ("A", "B", … per request) and no word times, for diarizing models such as
   * gpt-4o-transcribe-diarize, which take no `timestamp_granularities`. Either way a segment's `speaker`, when the
   * server gives one, becomes the TranscriptSegment's.
   */
  responseFormat?: "verbose_json" | "diarized_json";
}

type TranscriptWord = NonNullable<TranscriptSegment["words"]>[number];

const timedText = { start: z.number(), end: z.number() };
// whisperX-style servers label speakers "SPEAKER_00"; a number is taken as a label too, an empty one as none.
const speakerLabel = z.union([z.string(), z.number()]).nullish();
const transcriptionReply = z.object({
  text: z.string(),
  // Whisper's name of the language it heard ("german"), or its code: servers differ.
  language: z.string().nullish(),
  segments: z.array(z.object({ ...timedText, text: z.string(), speaker: speakerLabel })).nullish(),
  words: z.array(z.object({ ...timedText, word: z.string() })).nullish(),
});
type TranscriptionReply = z.infer<typeof transcriptionReply>;

/** Creates a Transcriber on an OpenAI-compatible server (OpenAI Whisper, faster-whisper-server, whisper.cpp's server). */
export function createOpenAiTranscriber(options: OpenAiTranscriberOptions): Transcriber {
  const endpoint = openAiEndpoint(options, "/audio/transcriptions");
  const id = providerId(options);
  const maxSecondsPerRequest = options.maxSecondsPerRequest ?? 600;
  const responseFormat = options.responseFormat ?? "verbose_json";
  if (responseFormat !== "verbose_json" && responseFormat !== "diarized_json") {
    throw new VideoRagError("CONFIG_INVALID", `responseFormat of ${id} must be "verbose_json" or "diarized_json"`, { subject: id });
  }
  if (!Number.isFinite(maxSecondsPerRequest) || maxSecondsPerRequest < 1) {
    throw new VideoRagError("CONFIG_INVALID", `maxSecondsPerRequest of ${id} must be a number of seconds of at least 1`, {
      subject: id,
    });
  }

  async function post(audio: Buffer, filename: string, signal: AbortSignal | undefined, language: string | undefined): Promise<TranscriptionReply> {
    const form = new FormData();
    form.append("file", new Blob([audio], { type: "audio/wav" }), filename);
    form.append("model", options.model);
    // The API's `language`: the video's, when it is known, so the model does not guess it from the first seconds.
    if (language) form.append("language", language);
    form.append("response_format", responseFormat);
    if (responseFormat === "diarized_json") {
      // OpenAI requires a chunking strategy for diarizing audio over 30 s; "auto" cuts at pauses it finds itself.
      form.append("chunking_strategy", "auto");
    } else {
      form.append("timestamp_granularities[]", "segment");
      form.append("timestamp_granularities[]", "word");
    }
    return endpoint.parse(transcriptionReply, await endpoint.post(form, signal));
  }

  return {
    id,
    // Word times are asked for, but servers may leave them out; segment times are what every verbose_json reply has.
    capabilities: { languages: options.languages ?? [...whisperLanguages], maxConcurrency: options.maxConcurrency ?? 4, timestamps: "segment" },

    async transcribe(wavPath, transcribeOptions = {}) {
      const { signal, onProgress } = transcribeOptions;
      const language = transcribeOptions.language && (options.languages ?? whisperLanguages).includes(transcribeOptions.language) ? transcribeOptions.language : undefined;
      const file = await open(wavPath, "r").catch((error: unknown) => {
        throw new VideoRagError("INPUT_NOT_FOUND", `cannot read ${wavPath}`, { cause: error, subject: wavPath });
      });
      let pieceDir: string | undefined;
      try {
        const layout = await readWavLayout(file, wavPath);
        const bytesPerSample = layout.channels * (layout.bitsPerSample / 8);
        const totalSeconds = layout.dataBytes / (layout.sampleRate * bytesPerSample);
        onProgress?.(0, totalSeconds);

        if (totalSeconds <= maxSecondsPerRequest) {
          const reply = await post(await file.readFile(), basename(wavPath), signal, language);
          onProgress?.(totalSeconds, totalSeconds);
          return transcriptOf(
            [{ reply, startSecond: 0, endSecond: totalSeconds }],
            `${id} returned text without segment times, so the transcript of ${basename(wavPath)} ` +
              `spans the whole ${totalSeconds.toFixed(1)} s`,
          );
        }

        const pieces = await planPieces(file, layout, wavPath, maxSecondsPerRequest);
        pieceDir = await mkdtemp(join(transcribeOptions.scratchDir ?? tmpdir(), "videorag-openai-transcribe-"));
        const stem = parse(wavPath).name;
        const replies: PieceReply[] = [];
        for (const [index, piece] of pieces.entries()) {
          if (signal?.aborted) {
            const done = `${index} of ${pieces.length} pieces`;
            throw new VideoRagError("INTERRUPTED", `transcribing ${basename(wavPath)} was cancelled after ${done}`, {
              cause: signal.reason,
              subject: id,
            });
          }
          const piecePath = join(pieceDir, `${stem}-${index + 1}.wav`);
          let reply: TranscriptionReply;
          try {
            await writeFile(piecePath, await extractWav(file, layout, piece.startSample, piece.endSample));
            reply = await post(await readFile(piecePath), basename(piecePath), signal, language);
          } finally {
            await rm(piecePath, { force: true });
          }
          const startSecond = piece.startSample / layout.sampleRate;
          const endSecond = piece.endSample / layout.sampleRate;
          replies.push({ reply, startSecond, endSecond });
          onProgress?.(endSecond, totalSeconds);
        }
        const transcript = transcriptOf(
          replies,
          `${id} returned text without segment times, so the transcript of ${basename(wavPath)} ` +
            `has one segment per piece of up to ${maxSecondsPerRequest} s`,
        );
        if (transcript.segments.some((segment) => segment.speaker !== undefined)) {
          transcript.warnings.push({
            type: "degraded",
            feature: "speakers",
            detail:
              `${id} labels speakers per request, and ${basename(wavPath)} was sent in ${pieces.length} pieces: ` +
              `the same label in two pieces need not be the same voice`,
          });
        }
        return transcript;
      } finally {
        await file.close();
        if (pieceDir) await rm(pieceDir, { recursive: true, force: true });
      }
    },
  };
}

/** A server's reply for the audio from `startSecond` to `endSecond`; its times count from `startSecond`. */
interface PieceReply {
  reply: TranscriptionReply;
  startSecond: number;
  endSecond: number;
}

/**
 * Joins the replies for consecutive stretches of the audio into one transcript on the whole file's clock; its language
 * the one most pieces were heard in.
 */
function transcriptOf(replies: PieceReply[], textOnlyDetail: string): { segments: TranscriptSegment[]; warnings: Warning[]; language?: string } {
  let textOnly = false;
  const segments = replies.flatMap(({ reply, startSecond, endSecond }) => {
    // Times are kept inside the stretch, so a piece's last segment never overlaps the next piece's first.
    const place = (seconds: number) => Math.min(endSecond, Math.max(startSecond, shift(seconds, startSecond)));
    const words = (reply.words ?? []).map((word) => ({ word: word.word.trim(), startSecond: place(word.start), endSecond: place(word.end) }));
    let pieceSegments: TranscriptSegment[] = (reply.segments ?? [])
      .map((segment): TranscriptSegment => {
        const timed = { startSecond: place(segment.start), endSecond: place(segment.end), text: segment.text.trim() };
        const speaker = String(segment.speaker ?? "").trim();
        return speaker === "" ? timed : { ...timed, speaker };
      })
      .filter((segment) => segment.text !== "");
    if (pieceSegments.length === 0 && reply.text.trim() !== "") {
      pieceSegments = [{ startSecond, endSecond, text: reply.text.trim() }];
      textOnly = true;
    }
    const lastIndex = pieceSegments.length - 1;
    return pieceSegments.map((segment, index) => withWords(segment, words, index === lastIndex));
  });
  const warnings: Warning[] = textOnly ? [{ type: "degraded", feature: "speech timestamps", detail: textOnlyDetail }] : [];
  const heard = replies.flatMap(({ reply }) => reportedLanguage(reply.language) ?? []);
  const language = heard.reduce<string | undefined>(
    (best, candidate) => (best !== undefined && heard.filter((entry) => entry === best).length >= heard.filter((entry) => entry === candidate).length ? best : candidate),
    undefined,
  );
  return { segments, warnings, ...(language ? { language } : {}) };
}

/**
 * Cuts audio longer than `maxSeconds` into the fewest pieces of at most `maxSeconds`, of about equal length, each cut
 * in the middle of the quietest 200 ms within a quarter of the limit of its even place, so that no word is split.
 */
async function planPieces(file: FileHandle, layout: WavLayout, wavPath: string, maxSeconds: number): Promise<AudioSpan[]> {
  if (layout.channels !== 1 || layout.bitsPerSample !== 16) {
    throw new VideoRagError(
      "INPUT_UNSUPPORTED",
      `audio longer than ${maxSeconds} s is cut into pieces, which needs mono 16-bit PCM WAV, ` +
        `got ${layout.channels} channel(s), ${layout.bitsPerSample}-bit`,
      { subject: wavPath },
    );
  }
  // Servers take any sample rate, so the frames are about 10 ms at the file's own rate.
  const frameSamples = Math.max(1, Math.round(layout.sampleRate / energyFramesPerSecond));
  const energies = await readFrameEnergies(file, layout, frameSamples);
  const totalSamples = Math.floor(layout.dataBytes / 2);
  const totalFrames = totalSamples / frameSamples;
  const maxFrames = Math.floor((maxSeconds * layout.sampleRate) / frameSamples);
  const pieces: AudioSpan[] = [];
  let startFrame = 0;
  while (totalFrames - startFrame > maxFrames) {
    const remainingFrames = totalFrames - startFrame;
    const piecesLeft = Math.ceil(remainingFrames / maxFrames);
    // The earliest cut still leaves a rest that fits in one piece fewer, so the count never grows.
    const earliest = startFrame + Math.ceil(remainingFrames - (piecesLeft - 1) * maxFrames);
    const latest = startFrame + maxFrames;
    const evenCut = startFrame + remainingFrames / piecesLeft;
    const first = Math.min(latest, Math.max(earliest, Math.floor(evenCut - maxFrames / 4)));
    const last = Math.max(first, Math.min(latest, Math.ceil(evenCut + maxFrames / 4)));
    // `first` and `last` bound the cut itself, which is the middle of its quiet window.
    const cutFrame = quietestCut(energies, first - quietWindowFrames / 2, last + quietWindowFrames / 2);
    pieces.push({ startSample: startFrame * frameSamples, endSample: cutFrame * frameSamples });
    startFrame = cutFrame;
  }
  pieces.push({ startSample: startFrame * frameSamples, endSample: totalSamples });
  return pieces;
}

// Times on a piece's clock plus the piece's start; rounded to the millisecond so 1.23 + 3 is not 4.2299999999999995.
function shift(seconds: number, offsetSeconds: number): number {
  return offsetSeconds === 0 ? seconds : Math.round((seconds + offsetSeconds) * 1000) / 1000;
}

/** Adds the words that start inside the segment (the last segment also takes any word starting at or after its end). */
function withWords(segment: TranscriptSegment, words: TranscriptWord[], isLast: boolean): TranscriptSegment {
  const inside = words.filter(
    (word) => word.startSecond >= segment.startSecond && (word.startSecond < segment.endSecond || isLast),
  );
  return inside.length > 0 ? { ...segment, words: inside } : segment;
}
