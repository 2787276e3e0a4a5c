// Speech recognition with the Debian `pocketsphinx_continuous` program and its en-us model.
// Pocketsphinx decodes one file on one core, so the audio is cut at pauses into chunks, one per core that other
// transcriptions in flight leave idle, that separate processes decode side by side; word times are shifted back onto
// the whole file's clock.

import { access, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { VideoRagError, toVideoRagError } from "../../spec/errors.js";
import type { Warning } from "../../spec/model.js";
import type { Transcriber, TranscriptSegment } from "../../spec/providers.js";
import { restrictedDictionary } from "./pocketsphinx-vocabulary.js";
import {
  energyFrameSamples,
  energyFramesPerSecond,
  extractWav,
  quietestCut,
  quietWindowFrames,
  readFrameEnergies,
  readWavLayout,
  requireSpeechLayout,
  runProcess,
  speechSampleRate,
  type AudioSpan,
} from "../../media/index.js";

export interface PocketsphinxTranscriberOptions {
  /** Folder holding `en-us/`, `en-us.lm.bin` and `cmudict-en-us.dict`. Default: Debian's pocketsphinx-en-us. */
  modelDir?: string;
  /** Pocketsphinx processes run at once for one file. Default: the number of CPU cores. */
  concurrency?: number;
  /** Program to run. Default "pocketsphinx_continuous" from PATH. */
  binary?: string;
  /** The decoder's search settings (beams, passes), as pocketsphinx arguments. Default: `pocketsphinxSearch`. */
  decoderArgs?: readonly string[];
  /**
   * The words listened for: the language model's likeliest this many (see pocketsphinx-vocabulary.ts), or "all" for
   * every word of the pronouncing dictionary. Default: `pocketsphinxVocabulary`.
   */
  vocabulary?: number | "all";
}

/** Pocketsphinx's own defaults: the search as Debian's program runs it when given no settings. */
export const pocketsphinxDefaultSearch: readonly string[] = [];
/**
 * The search the lite transcriber runs: pocketsphinx's defaults but at most 10 words ending per frame (`-maxwpf 10`),
 * and narrower beams for the last phone of a word (`-lpbeam 1e-30`, default 1e-40) and for the phones within one
 * (`-pbeam 1e-40`, default 1e-48): 1.4–1.5x less decoder CPU, and the word error rates went down, LibriVox 36.6% → 33.8%
 * and GRID 90.9% → 87.9% (`npm run bench transcriber`, 2026-11-27, third session). Settings that were faster still lost
 * the rare words answers hang on, in the narrated videos of `bench incremental`: a narrower window for the second pass
 * (`-fwdflatsfwin 5` or 10), a narrower beam for words of one phone (`-lponlybeam 1e-25`). Pruning the HMMs
 * (`-maxhmmpf 4000`) lost JFK's "what you can do for your country" within a longer talk with every word listened for.
 */
export const pocketsphinxSearch: readonly string[] = ["-maxwpf", "10", "-lpbeam", "1e-30", "-pbeam", "1e-40"];

/**
 * The words the lite transcriber listens for: the language model's 40,000 likeliest, of its 72,547. With the search
 * above, a full ingest of `bench incremental`'s 33 minutes of speech recognised it 1.3x faster (295 against 391 s)
 * and found as many answers (20 of 47 cited at the spoken moment, against 19); the word error rates stayed 36.6% and
 * 90.9%. 20,000 words were faster still (266 s) but lost two answers, 10,000 (232 s) six: a how-to video's telling
 * words are the rarer ones (docs/benchmarks.md `## transcriber`).
 */
export const pocketsphinxVocabulary = 40_000;

type TranscribedWord = NonNullable<TranscriptSegment["words"]>[number];
type TranscribeOptions = NonNullable<Parameters<Transcriber["transcribe"]>[1]>;
type Transcript = Awaited<ReturnType<Transcriber["transcribe"]>>;

// Chunks much shorter than 10 s lose accuracy: pocketsphinx adapts its cepstral mean over the first seconds, and a
// process's first seconds cost it the most (its search is wide until then). Chunks much longer than 30 s leave cores
// idle at the end of a file.
const minChunkSeconds = 10;
const maxChunkSeconds = 30;
// Segments end at a pause a listener would notice, and are kept short enough to cite a precise moment.
const segmentPauseSeconds = 0.6;
const maxSegmentSeconds = 12;

/** Creates a Transcriber that runs `pocketsphinx_continuous` on pause-aligned chunks in parallel. */
export function createPocketsphinxTranscriber(options: PocketsphinxTranscriberOptions = {}): Transcriber {
  const modelDir = options.modelDir ?? "/usr/share/pocketsphinx/model/en-us";
  const binary = options.binary ?? "pocketsphinx_continuous";
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? availableParallelism()));
  const modelFiles = {
    "-hmm": join(modelDir, "en-us"),
    "-lm": join(modelDir, "en-us.lm.bin"),
    "-dict": join(modelDir, "cmudict-en-us.dict"),
  };
  const decoderArgs = options.decoderArgs ?? pocketsphinxSearch;
  const vocabulary = options.vocabulary ?? pocketsphinxVocabulary;
  // The dictionary is chosen once per transcriber: the restricted one is written on first use and kept on disk.
  let dictionary: Promise<{ path: string; warning?: Warning }> | undefined;
  const chooseDictionary = (): Promise<{ path: string; warning?: Warning }> =>
    (dictionary ??= (async () => {
      if (vocabulary === "all") return { path: modelFiles["-dict"] };
      const whole = (why: string): { path: string; warning: Warning } => ({
        path: modelFiles["-dict"],
        warning: { type: "fallback", feature: "speech", detail: `listening for every word of the dictionary, not the ${vocabulary} likeliest: ${why}` },
      });
      try {
        const path = await restrictedDictionary(modelFiles["-dict"], modelFiles["-lm"], vocabulary);
        return path ? { path } : whole(`${modelFiles["-lm"]} is not a binary trie language model of that dictionary's words`);
      } catch (error) {
        return whole(error instanceof Error ? error.message : String(error));
      }
    })());

  // Transcriptions in flight on this transcriber: a file is cut for the cores the others leave (callers run clips side
  // by side, and two 30 s clips at a time, each cut in two 15 s chunks, took 1.35x the CPU of one chunk each: 82.5
  // against 60.9 s on a 226 s narrated video, 2026-11-27); a clip alone still has every core.
  let inFlight = 0;

  return {
    id: vocabulary === pocketsphinxVocabulary ? "pocketsphinx:en-us" : `pocketsphinx:en-us/${vocabulary}`,
    capabilities: { languages: ["en"], maxConcurrency: concurrency, timestamps: "word" },
    async transcribe(wavPath, transcribeOptions = {}) {
      if (transcribeOptions.signal?.aborted) throw interrupted(wavPath, transcribeOptions.signal);
      inFlight += 1;
      try {
        return await transcribeFile(wavPath, transcribeOptions);
      } finally {
        inFlight -= 1;
      }
    },
  };

  async function transcribeFile(wavPath: string, transcribeOptions: TranscribeOptions): Promise<Transcript> {
    const { signal, onProgress } = transcribeOptions;
    const warnings: Warning[] = [];
    // Checked up front: pocketsphinx itself only says "Failed to open" deep in a log we send to /dev/null.
    for (const path of Object.values(modelFiles)) await requireModelFile(path);
    const chosen = await chooseDictionary();
    // The first call writes the dictionary; a cancel meanwhile must not be missed by the listener added below.
    if (signal?.aborted) throw interrupted(wavPath, signal);
    if (chosen.warning) warnings.push(chosen.warning);
    const modelArgs = Object.entries({ ...modelFiles, "-dict": chosen.path }).flat();

    const file = await open(wavPath, "r").catch((error: unknown) => {
      throw new VideoRagError("INPUT_NOT_FOUND", `cannot read ${wavPath}`, { cause: error, subject: wavPath });
    });
    let tempDir: string | undefined;
    // Stops the other chunks when one fails, and follows the caller's signal.
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const layout = await readWavLayout(file, wavPath);
      requireSpeechLayout(layout, wavPath);
      const totalSamples = layout.dataBytes / 2;
      const totalSeconds = totalSamples / speechSampleRate;
      onProgress?.(0, totalSeconds);
      if (totalSamples < energyFrameSamples) return { segments: [], warnings };

      const energies = await readFrameEnergies(file, layout, energyFrameSamples);
      // Counted now, after the reads: clips started together have all begun by this point.
      const chunks = planChunks(energies, totalSamples, Math.max(1, Math.floor(concurrency / inFlight)));
      tempDir = await mkdtemp(join(transcribeOptions.scratchDir ?? tmpdir(), "videorag-pocketsphinx-"));
      const directory = tempDir;
      const wordsByChunk: TranscribedWord[][] = new Array(chunks.length);
      let doneSeconds = 0;
      let next = 0;
      // The first failure is the story; the chunks stopped because of it only fail with INTERRUPTED.
      let firstError: unknown;

      const worker = async () => {
        while (next < chunks.length && !stop.signal.aborted) {
          const index = next;
          next += 1;
          const chunk = chunks[index] as AudioSpan;
          const chunkPath = join(directory, `chunk-${index}.wav`);
          await writeFile(chunkPath, await extractWav(file, layout, chunk.startSample, chunk.endSample));
          const { stdout } = await runProcess(
            binary,
            ["-infile", chunkPath, "-time", "yes", "-logfn", "/dev/null", ...modelArgs, ...decoderArgs],
            { signal: stop.signal, installHint: "apt-get install pocketsphinx pocketsphinx-en-us" },
          );
          await rm(chunkPath, { force: true });
          wordsByChunk[index] = parsePocketsphinxWords(stdout.toString("utf8"), chunk.startSample / speechSampleRate);
          doneSeconds += (chunk.endSample - chunk.startSample) / speechSampleRate;
          onProgress?.(Math.min(doneSeconds, totalSeconds), totalSeconds);
        }
      };
      await Promise.all(
        Array.from({ length: Math.min(concurrency, chunks.length) }, () =>
          worker().catch((error: unknown) => {
            firstError ??= error;
            stop.abort(error);
          }),
        ),
      );
      if (signal?.aborted) throw interrupted(wavPath, signal);
      if (firstError !== undefined) throw toVideoRagError(firstError);
      return { segments: groupIntoSegments(wordsByChunk.flat()), warnings };
    } finally {
      signal?.removeEventListener("abort", onAbort);
      await file.close();
      if (tempDir) await rm(tempDir, { recursive: true, force: true });
    }
  }
}

/**
 * Cuts the audio into chunks of 10-30 s, each cut in the quietest 200 ms near its nominal place, so that no word is
 * split. The nominal length spreads a short file over the processes it may use and keeps a long one at about 30 s a
 * chunk.
 */
export function planChunks(energies: Float64Array, totalSamples: number, processes: number): AudioSpan[] {
  const totalSeconds = totalSamples / speechSampleRate;
  const nominalSeconds = Math.min(maxChunkSeconds, Math.max(minChunkSeconds, totalSeconds / processes));
  const chunks: AudioSpan[] = [];
  let startFrame = 0;
  const totalFrames = energies.length;
  // The last chunk may run up to a quarter over nominal rather than leave a sliver of a few seconds behind.
  while ((totalFrames - startFrame) / energyFramesPerSecond > nominalSeconds * 1.25) {
    const earliest = startFrame + Math.round(Math.max(minChunkSeconds, nominalSeconds * 0.75) * energyFramesPerSecond);
    // The tail keeps at least half a nominal chunk, so no chunk is a sliver.
    const latest = Math.min(
      startFrame + Math.round(Math.min(maxChunkSeconds, nominalSeconds * 1.25) * energyFramesPerSecond),
      totalFrames - Math.round(nominalSeconds * 0.5 * energyFramesPerSecond) - quietWindowFrames,
    );
    if (latest < earliest) break;
    // `earliest` and `latest` bound where the quiet window starts.
    const cutFrame = quietestCut(energies, earliest, latest + quietWindowFrames);
    chunks.push({ startSample: startFrame * energyFrameSamples, endSample: cutFrame * energyFrameSamples });
    startFrame = cutFrame;
  }
  chunks.push({ startSample: startFrame * energyFrameSamples, endSample: totalSamples });
  return chunks;
}

// `word start end posterior`, as printed with `-time yes`; the hypothesis lines in between have no numbers.
const wordLine = /^(\S+) (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?)$/;

/** Reads the timed words of `pocketsphinx_continuous -time yes` output, shifted by `offsetSeconds`. */
export function parsePocketsphinxWords(output: string, offsetSeconds: number): TranscribedWord[] {
  const words: TranscribedWord[] = [];
  for (const line of output.split("\n")) {
    const match = wordLine.exec(line.trim());
    if (!match) continue;
    const [, token, start, end] = match as unknown as [string, string, string, string];
    // Sentence marks, silence, [NOISE]/[SPEECH] and ++FILLER++ entries are not words anyone said.
    if (/^(<.*>|\[.*\]|\+\+.*\+\+)$/.test(token)) continue;
    // "for(2)" is the dictionary's second pronunciation of "for".
    const word = token.replace(/\(\d+\)$/, "");
    words.push({ word, startSecond: round(Number(start) + offsetSeconds), endSecond: round(Number(end) + offsetSeconds) });
  }
  return words;
}

/**
 * Joins words into segments, breaking at pauses over 0.6 s. A segment about to pass 12 s is split at its longest
 * gap between words instead, which in continuous speech is usually the end of a phrase.
 */
export function groupIntoSegments(words: TranscribedWord[]): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  let current: TranscribedWord[] = [];
  const emit = (segmentWords: TranscribedWord[]) => {
    const first = segmentWords[0];
    const last = segmentWords[segmentWords.length - 1];
    if (!first || !last) return;
    segments.push({
      startSecond: first.startSecond,
      endSecond: last.endSecond,
      text: segmentWords.map((word) => word.word).join(" "),
      words: segmentWords,
    });
  };
  for (const word of words) {
    const last = current[current.length - 1];
    if (last && word.startSecond - last.endSecond > segmentPauseSeconds) {
      emit(current);
      current = [];
    }
    // Each split leaves fewer words in `current`, so this ends.
    while (current[0] && word.endSecond - current[0].startSecond > maxSegmentSeconds) {
      const splitAt = longestGapIndex([...current, word]);
      emit(current.slice(0, splitAt));
      current = current.slice(splitAt);
    }
    current.push(word);
  }
  emit(current);
  return segments;
}

/** Index of the word after the longest silence between consecutive words (at least 1). */
function longestGapIndex(words: TranscribedWord[]): number {
  let bestIndex = words.length - 1;
  let bestGap = -Infinity;
  for (let index = 1; index < words.length; index += 1) {
    const gap = (words[index] as TranscribedWord).startSecond - (words[index - 1] as TranscribedWord).endSecond;
    // ">=" prefers the later of equal gaps, so the first segment stays as long as it may.
    if (gap >= bestGap) {
      bestGap = gap;
      bestIndex = index;
    }
  }
  return bestIndex;
}

function interrupted(wavPath: string, signal: AbortSignal): VideoRagError {
  return new VideoRagError("INTERRUPTED", "transcription was cancelled", { cause: signal.reason, subject: wavPath });
}

async function requireModelFile(path: string): Promise<void> {
  try {
    await access(path);
  } catch (error) {
    throw new VideoRagError("TOOL_MISSING", `the pocketsphinx model is missing at ${path} (apt-get install pocketsphinx-en-us)`, {
      cause: error,
      subject: path,
    });
  }
}

// Pocketsphinx reports times to 10 ms; adding the chunk offset should not turn 1.23 into 1.2300000000000002.
function round(seconds: number): number {
  return Math.round(seconds * 100) / 100;
}
