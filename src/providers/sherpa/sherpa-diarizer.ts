// The neural speaker diarizer: sherpa-onnx's offline diarization (pyannote segmentation-3.0 finds who speaks in each
// 10 s window, a speaker-embedding model gives each window's voices a vector, fast clustering joins them across the
// file), and one voice vector per speaker from the same embedding model, so the engine can match a voice across videos.
// sherpa-onnx-node is an optional dependency, loaded on first use; both models load once and serve every call.

import { basename } from "node:path";
import { openSpeechWav, speechRegionsWithin } from "../../media/index.js";
import type { Diarizer, SpeakerTurn, Warning } from "../../spec/index.js";
import { VideoRagError } from "../../spec/index.js";
import { readOnnxMetadata, requireMetadata } from "./onnx-metadata.js";
import { loadSherpaOnnx, type SherpaDiarization, type SherpaEmbeddingExtractor, type SherpaOnnx, type SherpaSegment } from "./sherpa-module.js";

/** The manifest models the neural diarizer uses unless configured otherwise. */
export const defaultSherpaModels = { segmentation: "pyannote-segmentation-3.0", embedding: "3dspeaker-campplus-en-voxceleb" } as const;

export interface SherpaDiarizerOptions {
  /** Path of the pyannote segmentation ONNX file (with sherpa-onnx's metadata: sample_rate, window_size, …). */
  segmentationModel: string;
  /** Path of the speaker-embedding ONNX file (a WeSpeaker, 3D-Speaker or NeMo export with sherpa-onnx's metadata). */
  embeddingModel: string;
  /** Names shown in the id and the summary line; default the files' names. */
  names?: { segmentation: string; embedding: string };
  /**
   * Clustering threshold when the number of speakers is not given: two groups of speech whose voices are further apart
   * than this (cosine distance) stay two speakers. Higher finds fewer speakers. Default 0.5, sherpa-onnx's.
   */
  threshold?: number;
  /** Turns shorter than this are dropped. Default 0.3 s (pyannote's). */
  minTurnSeconds?: number;
  /** Pauses shorter than this inside one speaker's speech are bridged. Default 0.5 s (pyannote's). */
  minPauseSeconds?: number;
  /** Threads each model may use. Default 1, so that two processes can share a 2-core machine. */
  threads?: number;
  /** The sherpa-onnx module; default: sherpa-onnx-node, imported on first use. Tests pass a fake. */
  loadSherpa?: () => Promise<SherpaOnnx>;
}

/** Bumped whenever a change can alter the turns or the vectors, so the speakers stage re-runs on ingested videos. */
const version = 1;
const sampleRate = 16_000;
/** A turn's voice vector is the mean of vectors over pieces of at most this long (one long turn is not one huge input). */
const embeddingPieceSeconds = 10;
/** Shorter pieces of a turn left inside the speech regions are dropped: too short to hold a word. */
const minPieceSeconds = 0.1;

type Region = [startSecond: number, endSecond: number];

/** Creates the diarizer; the models load on first use. */
export function createSherpaDiarizer(options: SherpaDiarizerOptions): Diarizer {
  const threshold = options.threshold ?? 0.5;
  const minTurn = options.minTurnSeconds ?? 0.3;
  const minPause = options.minPauseSeconds ?? 0.5;
  const threads = options.threads ?? 1;
  if (!(threshold > 0 && threshold < 2)) throw new VideoRagError("ARGUMENT_INVALID", `the clustering threshold is a cosine distance between 0 and 2, not ${threshold}`);
  if (!(minTurn >= 0 && minPause >= 0)) throw new VideoRagError("ARGUMENT_INVALID", "minTurnSeconds and minPauseSeconds must be zero or more");
  if (!(Number.isInteger(threads) && threads >= 1)) throw new VideoRagError("ARGUMENT_INVALID", `threads must be a whole number of at least 1, not ${threads}`);
  const names = options.names ?? { segmentation: basename(options.segmentationModel), embedding: basename(options.embeddingModel) };
  const load = options.loadSherpa ?? loadSherpaOnnx;

  let models: Promise<{ sherpa: SherpaOnnx; diarization: SherpaDiarization; extractor: SherpaEmbeddingExtractor }> | undefined;
  const loadModels = () => {
    models ??= (async () => {
      await checkModels(options.segmentationModel, options.embeddingModel);
      const sherpa = await load();
      const embedding = { model: options.embeddingModel, numThreads: threads, debug: 0 };
      try {
        const diarization = new sherpa.OfflineSpeakerDiarization({
          segmentation: { pyannote: { model: options.segmentationModel }, numThreads: threads, debug: 0 },
          embedding,
          clustering: { numClusters: -1, threshold },
          minDurationOn: minTurn,
          minDurationOff: minPause,
        });
        const extractor = new sherpa.SpeakerEmbeddingExtractor(embedding);
        if (diarization.sampleRate !== sampleRate) {
          throw new VideoRagError("MODEL_FAILED", `the segmentation model expects ${diarization.sampleRate} Hz audio, not 16 kHz`, { subject: options.segmentationModel });
        }
        return { sherpa, diarization, extractor };
      } catch (error) {
        if (VideoRagError.isInstance(error)) throw error;
        const why = error instanceof Error ? error.message : String(error);
        throw new VideoRagError("MODEL_FAILED", `sherpa-onnx cannot load the diarization models: ${why}`, { cause: error, subject: options.segmentationModel });
      }
    })().catch((error: unknown) => {
      // Not kept, so that models fetched after a failure are picked up.
      models = undefined;
      throw error;
    });
    return models;
  };

  return {
    id: `sherpa-onnx@${version}:${names.segmentation}+${names.embedding}${options.threshold === undefined ? "" : `:threshold=${threshold}`}`,
    // Each model is one native session; calls would queue inside it, and setConfig below is per call.
    capabilities: { maxConcurrency: 1, embeddings: true },
    async diarize(wavPath, callOptions = {}) {
      const { signal, speechRegions, speakers } = callOptions;
      if (speakers !== undefined && !(Number.isInteger(speakers) && speakers >= 1)) {
        throw new VideoRagError("ARGUMENT_INVALID", `speakers must be a whole number of at least 1, not ${speakers}`);
      }
      throwIfAborted(signal);
      const samples = await readSpeechSamples(wavPath);
      const durationSeconds = samples.length / sampleRate;
      const { sherpa, diarization, extractor } = await loadModels();
      throwIfAborted(signal);
      const warnings: Warning[] = [];
      if (samples.length === 0) return { turns: [], embeddings: {}, warnings };
      diarization.setConfig({ clustering: speakers ? { numClusters: speakers, threshold } : { numClusters: -1, threshold } });
      let segments: SherpaSegment[];
      try {
        segments = sherpa.processAsync
          ? await sherpa.processAsync(diarization.handle, samples, () => (signal?.aborted ? 1 : 0))
          : diarization.process(samples);
      } catch (error) {
        throwIfAborted(signal);
        const why = error instanceof Error ? error.message : String(error);
        throw new VideoRagError("MODEL_FAILED", `sherpa-onnx's diarization failed: ${why}`, { cause: error, subject: wavPath });
      }
      throwIfAborted(signal);
      const regions = speechRegions ? speechRegionsWithin(speechRegions, durationSeconds) : undefined;
      const turns = turnsFromSegments(segments, durationSeconds, regions);
      const embeddings = await voiceVectors(extractor, samples, turns, signal);
      const labels = [...new Set(turns.map((turn) => turn.speaker))];
      if (speakers !== undefined && labels.length !== speakers && turns.length > 0) {
        // sherpa-onnx gives one cluster when asked for more than the stretches of speech it found.
        warnings.push({ type: "degraded", feature: "speakers", detail: `${speakers} speakers were asked for; the neural diarizer could tell ${labels.length} apart in this audio` });
      }
      const missing = labels.filter((label) => !embeddings[label]);
      if (missing.length > 0) {
        warnings.push({ type: "degraded", feature: "speaker voice vectors", detail: `${missing.join(", ")} spoke too briefly for a voice vector; they cannot be matched across videos` });
      }
      return { turns, embeddings, warnings };
    },
  };
}

/** Refuses, with a message, models sherpa-onnx would answer by ending the process. */
async function checkModels(segmentationModel: string, embeddingModel: string): Promise<void> {
  const integer = null;
  requireMetadata(
    await readOnnxMetadata(segmentationModel),
    {
      sample_rate: integer,
      window_size: integer,
      receptive_field_size: integer,
      receptive_field_shift: integer,
      num_speakers: integer,
      powerset_max_classes: ["1", "2"],
      num_classes: integer,
    },
    "pyannote segmentation model",
    segmentationModel,
  );
  const embedding = await readOnnxMetadata(embeddingModel);
  requireMetadata(embedding, { framework: ["wespeaker", "3d-speaker", "nemo"] }, "speaker-embedding model", embeddingModel);
  if (embedding.framework !== "nemo") {
    requireMetadata(embedding, { output_dim: integer, sample_rate: integer, normalize_samples: integer, language: null }, "speaker-embedding model", embeddingModel);
  }
}

/** The samples of a 16 kHz mono 16-bit WAV file, scaled to [-1, 1). */
async function readSpeechSamples(wavPath: string): Promise<Float32Array> {
  const { file, layout } = await openSpeechWav(wavPath);
  try {
    const count = Math.floor(layout.dataBytes / 2);
    const bytes = Buffer.alloc(count * 2);
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await file.read(bytes, filled, bytes.length - filled, layout.dataOffset + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const samples = new Float32Array(Math.floor(filled / 2));
    for (let index = 0; index < samples.length; index += 1) samples[index] = bytes.readInt16LE(index * 2) / 32768;
    return samples;
  } finally {
    await file.close();
  }
}

/**
 * sherpa-onnx's segments as turns: clipped to the audio and, when voice activity detection gave regions, to those (a
 * turn across a pause becomes one turn a region), pieces under 0.1 s dropped, in time order, and the clusters labelled
 * "S1", "S2", … in the order they first speak. Exported for the tests.
 */
export function turnsFromSegments(segments: readonly SherpaSegment[], durationSeconds: number, regions?: readonly Region[]): SpeakerTurn[] {
  const pieces: { startSecond: number; endSecond: number; cluster: number }[] = [];
  for (const segment of segments) {
    const start = Math.max(0, segment.start);
    const end = Math.min(durationSeconds, segment.end);
    const spans: Region[] = regions
      ? regions.filter(([from, to]) => to > start && from < end).map(([from, to]): Region => [Math.max(start, from), Math.min(end, to)])
      : [[start, end]];
    for (const [from, to] of spans) {
      if (to - from >= minPieceSeconds) pieces.push({ startSecond: from, endSecond: to, cluster: segment.speaker });
    }
  }
  pieces.sort((a, b) => a.startSecond - b.startSecond || a.endSecond - b.endSecond || a.cluster - b.cluster);
  const labels = new Map<number, string>();
  return pieces.map((piece) => {
    let label = labels.get(piece.cluster);
    if (!label) {
      label = `S${labels.size + 1}`;
      labels.set(piece.cluster, label);
    }
    return { startSecond: piece.startSecond, endSecond: piece.endSecond, speaker: label };
  });
}

/**
 * One unit-length voice vector per label: the embedding model over each of the label's turns (long turns in pieces of
 * at most 10 s), averaged with each piece weighted by its length. A label whose speech is too short for the model to
 * read gets none.
 */
async function voiceVectors(
  extractor: SherpaEmbeddingExtractor,
  samples: Float32Array,
  turns: readonly SpeakerTurn[],
  signal: AbortSignal | undefined,
): Promise<Record<string, Float32Array>> {
  const sums = new Map<string, Float64Array>();
  for (const turn of turns) {
    const first = Math.round(turn.startSecond * sampleRate);
    const last = Math.min(samples.length, Math.round(turn.endSecond * sampleRate));
    const pieceSamples = embeddingPieceSeconds * sampleRate;
    for (let start = first; start < last; start += pieceSamples) {
      // Yield between pieces: each embedding is a blocking native call.
      await new Promise((resolve) => setImmediate(resolve));
      throwIfAborted(signal);
      const end = Math.min(last, start + pieceSamples);
      const vector = embed(extractor, samples.subarray(start, end));
      if (!vector) continue;
      const sum = sums.get(turn.speaker) ?? new Float64Array(vector.length);
      const weight = (end - start) / sampleRate;
      for (let index = 0; index < vector.length; index += 1) sum[index] = (sum[index] as number) + weight * (vector[index] as number);
      sums.set(turn.speaker, sum);
    }
  }
  const vectors: Record<string, Float32Array> = {};
  for (const [label, sum] of sums) {
    const unit = normalise(sum);
    if (unit) vectors[label] = unit;
  }
  return vectors;
}

/** The embedding of `piece`, scaled to unit length, or undefined when it is too short for the model or has no direction. */
function embed(extractor: SherpaEmbeddingExtractor, piece: Float32Array): Float32Array | undefined {
  const stream = extractor.createStream();
  // A copy: the native side may keep the array it is given beyond this call.
  stream.acceptWaveform({ samples: Float32Array.from(piece), sampleRate });
  stream.inputFinished();
  if (!extractor.isReady(stream)) return undefined;
  return normalise(extractor.compute(stream, false));
}

/** `vector` scaled to unit length, or undefined when it has none. */
function normalise(vector: ArrayLike<number>): Float32Array | undefined {
  let squares = 0;
  for (let index = 0; index < vector.length; index += 1) squares += (vector[index] as number) ** 2;
  const length = Math.sqrt(squares);
  if (!(length > 0) || !Number.isFinite(length)) return undefined;
  return Float32Array.from(vector, (value) => value / length);
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new VideoRagError("INTERRUPTED", "the diarization was cancelled", { cause: signal.reason });
}
