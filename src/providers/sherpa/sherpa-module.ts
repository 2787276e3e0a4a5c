// sherpa-onnx-node, an optional dependency, loaded on first use: the typed slice of it the diarizer calls, and its
// absence (or a native part that will not load on this platform) turned into a VideoRagError a user can act on.

import { VideoRagError } from "../../spec/index.js";

/** One turn as sherpa-onnx's offline diarization returns it: seconds, and a cluster index. */
export interface SherpaSegment {
  start: number;
  end: number;
  speaker: number;
}

/** Fast clustering: a fixed number of clusters when `numClusters` > 0, else merging up to the distance `threshold`. */
export interface SherpaClustering {
  numClusters: number;
  threshold: number;
}

export interface SherpaEmbeddingConfig {
  model: string;
  numThreads?: number;
  debug?: number;
  provider?: string;
}

export interface SherpaDiarizationConfig {
  segmentation: { pyannote: { model: string }; numThreads?: number; debug?: number; provider?: string };
  embedding: SherpaEmbeddingConfig;
  clustering: SherpaClustering;
  /** Turns shorter than this many seconds are dropped. */
  minDurationOn?: number;
  /** Pauses shorter than this many seconds inside one speaker's speech are bridged. */
  minDurationOff?: number;
}

export interface SherpaDiarization {
  readonly handle: unknown;
  readonly sampleRate: number;
  process(samples: Float32Array): SherpaSegment[];
  setConfig(config: { clustering: SherpaClustering }): void;
}

export interface SherpaStream {
  acceptWaveform(wave: { samples: Float32Array; sampleRate: number }): void;
  inputFinished(): void;
}

export interface SherpaEmbeddingExtractor {
  readonly dim: number;
  createStream(): SherpaStream;
  isReady(stream: SherpaStream): boolean;
  compute(stream: SherpaStream, enableExternalBuffer?: boolean): Float32Array;
}

/** The parts of sherpa-onnx-node the diarizer uses; tests pass a fake of this shape. */
export interface SherpaOnnx {
  OfflineSpeakerDiarization: new (config: SherpaDiarizationConfig) => SherpaDiarization;
  SpeakerEmbeddingExtractor: new (config: SherpaEmbeddingConfig) => SherpaEmbeddingExtractor;
  /**
   * The native addon's asynchronous `process`, which runs on a worker thread instead of blocking the event loop; the
   * package's JavaScript class does not expose it. `onProgress` returns non-zero to ask it to stop. Absent in a fake or
   * an addon without it: `process` is used then.
   */
  processAsync?: (handle: unknown, samples: Float32Array, onProgress: (done: number, total: number) => number) => Promise<SherpaSegment[]>;
}

const installHint = "npm install sherpa-onnx-node";

let loaded: Promise<SherpaOnnx> | undefined;

// A variable specifier: the package ships no type declarations, and this module states the types it relies on.
const packageName = "sherpa-onnx-node";
const addonPath = "sherpa-onnx-node/addon.js";

/** sherpa-onnx-node; fails with MODEL_UNAVAILABLE where it is not installed or its native part will not load. */
export function loadSherpaOnnx(): Promise<SherpaOnnx> {
  loaded ??= (async (): Promise<SherpaOnnx> => {
    const main = (await import(packageName)) as { default?: unknown };
    const addon = (await import(addonPath)) as { default?: unknown };
    const sherpa = (main.default ?? main) as SherpaOnnx;
    const native = (addon.default ?? addon) as { offlineSpeakerDiarizationProcessAsync?: SherpaOnnx["processAsync"] };
    if (typeof sherpa.OfflineSpeakerDiarization !== "function" || typeof sherpa.SpeakerEmbeddingExtractor !== "function") {
      throw new Error("it has no OfflineSpeakerDiarization or SpeakerEmbeddingExtractor (an older version?)");
    }
    const processAsync = native.offlineSpeakerDiarizationProcessAsync;
    return {
      OfflineSpeakerDiarization: sherpa.OfflineSpeakerDiarization,
      SpeakerEmbeddingExtractor: sherpa.SpeakerEmbeddingExtractor,
      ...(typeof processAsync === "function" ? { processAsync } : {}),
    };
  })().catch((error: unknown) => {
    loaded = undefined;
    const message = error instanceof Error ? error.message : String(error);
    // The package's own message lists the paths it tried; what is missing is the platform's native package.
    const platform = `${process.platform === "win32" ? "win" : process.platform}-${process.arch}`;
    const why = message.startsWith("Could not find sherpa-onnx-node")
      ? `its native package sherpa-onnx-${platform} is missing or does not load on this machine`
      : (message.split("\n").find((line) => line.trim() !== "") ?? message);
    throw new VideoRagError("MODEL_UNAVAILABLE", `sherpa-onnx-node could not be loaded (${installHint}): ${why}`, { cause: error });
  });
  return loaded;
}
