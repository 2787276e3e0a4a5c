// Picks the provider for each stage from the configuration and what this machine has, wraps each in the core runtime
// (batching, retries, timeouts, concurrency, output cache), and says — one line per stage — what runs it and what fell
// back to the lite profile.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { configSchema, type ModelsConfig, type VideoRagConfig } from "../config/index.js";
import type { Diarizer,
  Detector,
  ImageTextEncoder,
  LanguageModel,
  OcrEngine,
  Tagger,
  TextEmbedder,
  Transcriber,
  VoiceActivityDetector,
  Warning,
} from "../spec/index.js";
import { runProcess, spawnTied } from "../media/index.js";
import { VideoRagError } from "../spec/index.js";
import { createLiteDiarizer, createPocketsphinxTranscriber, createTesseractOcr } from "./lite/index.js";
import { findManifestModel, modelsDir, pullModels, requireModel } from "./models/index.js";
import { createOpenAiEmbedder, createOpenAiLanguageModel, createOpenAiTranscriber } from "./openai-compatible/index.js";
import { createMobilenetTagger, createSileroVad, createYoloxDetector } from "./onnx/index.js";
import { createModelCache, createModelRuntime, type ModelRuntime } from "./runtime/index.js";
import { createSherpaDiarizer, defaultSherpaModels, loadSherpaOnnx } from "./sherpa/index.js";
import { createClipEncoder, createSentenceEmbedder, createWhisperTranscriber } from "./transformers/index.js";

/** The providers in effect, each already wrapped by the runtime. */
export interface ProviderChoice {
  ocr?: OcrEngine;
  transcriber?: Transcriber;
  detector?: Detector;
  /** Splits recognised speech into speakers. */
  diarizer?: Diarizer;
  /** Finds where speech is, for the light index; the one provider not wrapped by the runtime. */
  vad?: VoiceActivityDetector;
  tagger?: Tagger;
  imageText?: ImageTextEncoder;
  /** Captions clips from frames; answers with frames. */
  vision?: LanguageModel;
  /** Answers questions. */
  llm?: LanguageModel;
  textEmbedder?: TextEmbedder;
  warnings: Warning[];
  /** One line per stage naming what runs it, e.g. "speech: pocketsphinx:en-us (lite)". */
  summary: string[];
  runtime: ModelRuntime;
}

export interface ChooseProvidersOptions {
  /** The on-disk cache of model outputs; in memory when absent. */
  cachePath?: string;
  /** Command-line switches that turn a stage off whatever the configuration says. */
  ocr?: boolean;
  speech?: boolean;
  env?: NodeJS.ProcessEnv;
  /** False to never download (doctor only looks); default: as the configuration's allowDownloads says. */
  download?: boolean;
  /** Download progress of models fetched on first use (only when the configuration allows downloads). */
  onDownloadProgress?: (model: string, file: string, doneBytes: number, totalBytes: number | undefined) => void;
}

/** True when the program starts; its exit status does not matter (some print usage and exit 1). */
export function programExists(program: string, args: string[] = ["--version"]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawnTied(program, args, { stdio: "ignore" });
    child.on("error", () => resolve(false));
    child.on("close", () => resolve(true));
  });
}

/** The language packs tesseract has (`tesseract --list-langs`), "osd" aside; empty when it cannot say. */
async function tesseractLanguages(): Promise<string[]> {
  try {
    const { stdout } = await runProcess("tesseract", ["--list-langs"], { allowFailure: true });
    return stdout.toString("utf8").split("\n").slice(1).map((line) => line.trim()).filter((line) => /^[a-z]{3}(?:_[a-z]{3,4})?$/.test(line) && line !== "osd");
  } catch {
    return [];
  }
}

/** Which manifest model runs a stage when the configuration does not name one. */
const defaultOnnx = { detector: "yolox-nano", tagger: "mobilenetv2" } as const;

const fallbacks: Record<keyof ModelsConfig, string> = {
  llm: "answers are extractive (the best sentences, quoted with citations)",
  vision: "clip captions are built from detections, tags and screen text",
  textEmbedder: "retrieval is BM25 only",
  imageText: "visual search uses the detector's and tagger's words",
  transcriber: "videos without subtitles get no transcript",
  ocr: "screen text and bitmap subtitles are skipped",
  detector: "no object words are indexed",
  tagger: "no scene tags are indexed",
  vad: "every clip of a video without subtitles may hold speech",
  diarizer: "speech is not split into speakers",
};

/** What a missing neural diarizer leaves; the manifest's fallback says the same for missing model files. */
const liteSpeakers = "speech is split into speakers by the lite diarizer meanwhile";

type SherpaDiarizerConfig = Extract<NonNullable<ModelsConfig["diarizer"]>, { provider: "sherpa-onnx" }>;

/**
 * The neural diarizer, or why it cannot run: `reason` (the full message, for the warning) and `summary` (a few words and
 * the command that fixes it, for the summary line).
 */
async function chooseSherpaDiarizer(
  config: SherpaDiarizerConfig,
  dir: string,
  ensureLocal: (name: string) => Promise<string>,
): Promise<{ diarizer: Diarizer } | { reason: string; summary: string }> {
  const names = { segmentation: config.segmentation ?? defaultSherpaModels.segmentation, embedding: config.embedding ?? defaultSherpaModels.embedding };
  for (const [part, kind] of [["segmentation", "speaker-segmentation"], ["embedding", "speaker-embedding"]] as const) {
    const model = findManifestModel(names[part]);
    if (model?.kind !== kind) {
      const summary = `"${names[part]}" is not a ${kind} model (see videorag models list)`;
      return { reason: `${summary}; ${liteSpeakers}`, summary };
    }
  }
  const missing: string[] = [];
  const reasons: string[] = [];
  for (const name of [names.segmentation, names.embedding]) {
    const reason = await ensureLocal(name);
    if (reason) {
      missing.push(name);
      reasons.push(reason);
    }
  }
  if (missing.length > 0) {
    return { reason: reasons.join(" "), summary: `${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not in ${dir} (videorag models pull ${missing.join(" ")})` };
  }
  try {
    await loadSherpaOnnx();
  } catch (error) {
    const reason = VideoRagError.isInstance(error) ? error.message : String(error);
    return { reason: `${reason}; ${liteSpeakers}`, summary: "the npm package sherpa-onnx-node is not installed or does not load here (npm install sherpa-onnx-node)" };
  }
  const [segmentationModel = ""] = requireModel(dir, names.segmentation);
  const [embeddingModel = ""] = requireModel(dir, names.embedding);
  return {
    diarizer: createSherpaDiarizer({ segmentationModel, embeddingModel, names, ...(config.threshold !== undefined ? { threshold: config.threshold } : {}) }),
  };
}

function apiKeyReader(variable: string, env: NodeJS.ProcessEnv): () => string | undefined {
  return () => env[variable] || undefined;
}

/** Chooses and wraps the providers. Never throws for a missing model: it falls back and says so. */
export async function chooseProviders(config: VideoRagConfig, options: ChooseProvidersOptions = {}): Promise<ProviderChoice> {
  const env = options.env ?? process.env;
  const runtime = createModelRuntime({
    cache: options.cachePath ? createModelCache(options.cachePath) : undefined,
    retries: config.runtime.retries,
    timeoutMs: config.runtime.timeoutSeconds * 1000,
  });
  const dir = modelsDir({ modelsDir: config.modelsDir });
  const choice: ProviderChoice = { warnings: [], summary: [], runtime };
  const models = config.models;
  const fallback = (stage: keyof ModelsConfig, label: string, reason: string): void => {
    choice.warnings.push({ type: "fallback", feature: label, detail: `${reason}; ${fallbacks[stage]}` });
    choice.summary.push(`${label}: off (${reason})`);
  };
  // A model the manifest knows is present when all its files are; any other Hugging Face name when its folder has a
  // config.json (transformers.js reads the rest on load and says what is missing).
  const missingLocal = (name: string): string => {
    if (!findManifestModel(name)) {
      return existsSync(join(dir, name, "config.json"))
        ? ""
        : `model "${name}" is not in ${dir} (no ${join(name, "config.json")}); copy its Hugging Face files there, or set allowDownloads`;
    }
    try {
      requireModel(dir, name);
      return "";
    } catch (error) {
      return VideoRagError.isInstance(error) ? error.message : String(error);
    }
  };
  const local = (name: string): boolean => missingLocal(name) === "";
  // A configured Hugging Face model that is missing is fetched now, with progress, when downloads are allowed; a model the
  // manifest does not know is left to transformers.js to fetch on first use. Returns why it is unavailable, or "".
  const ensureLocal = async (name: string): Promise<string> => {
    const missing = missingLocal(name);
    if (!missing || !config.allowDownloads) return missing;
    if (options.download === false) return `${missing} It will be downloaded when the library opens (allowDownloads).`;
    if (!findManifestModel(name)) return "";
    try {
      await pullModels(dir, [name], { onProgress: (file, done, total) => options.onDownloadProgress?.(name, file, done, total) });
      return "";
    } catch (error) {
      return VideoRagError.isInstance(error) ? error.message : String(error);
    }
  };
  const onDownload = options.onDownloadProgress;
  const transformersOptions = (model: string) => ({
    modelsDir: dir,
    allowDownload: config.allowDownloads,
    ...(onDownload ? { onProgress: (file: string, done: number, total: number | undefined) => onDownload(model, file, done, total) } : {}),
  });

  // Screen text.
  const ocr = models.ocr;
  if (options.ocr === false || ocr?.provider === "off") choice.summary.push("screen text: off");
  else if (await programExists("tesseract")) {
    const installed = await tesseractLanguages();
    const wanted = ocr?.provider === "tesseract" && ocr.languages ? ocr.languages : ["eng"];
    const missing = wanted.filter((code) => !installed.includes(code));
    const usable = wanted.filter((code) => installed.includes(code));
    const packs = missing.map((code) => `tesseract-ocr-${code.replace(/_/g, "-")}`).join(" ");
    if (missing.length > 0) choice.warnings.push({ type: "fallback", feature: "screen text", detail: `tesseract has no ${missing.join(", ")} language pack (apt-get install ${packs}); ${usable.length > 0 ? `reading ${usable.join("+")} only` : "screen text is off"}` });
    if (usable.length > 0) {
      choice.ocr = runtime.wrapOcr(createTesseractOcr({ language: usable.join("+"), installed }));
      choice.summary.push(`screen text: ${choice.ocr.id} (lite${missing.length > 0 ? `; missing ${packs}` : ""})`);
    } else choice.summary.push(`screen text: off (no configured language is installed: apt-get install ${packs})`);
  } else fallback("ocr", "screen text", "tesseract is not installed (apt-get install tesseract-ocr tesseract-ocr-eng)");

  // Speech.
  const speech = models.transcriber;
  const whisperMissing = speech?.provider === "transformers" && options.speech !== false ? await ensureLocal(speech.model) : undefined;
  if (options.speech === false || speech?.provider === "off") choice.summary.push("speech: off");
  else if (speech?.provider === "openai") {
    choice.transcriber = runtime.wrapTranscriber(
      createOpenAiTranscriber({
        baseUrl: speech.baseUrl ?? "https://api.openai.com/v1",
        model: speech.model,
        apiKey: apiKeyReader(speech.apiKeyEnv, env),
        ...(speech.responseFormat ? { responseFormat: speech.responseFormat } : {}),
      }),
    );
    choice.summary.push(`speech: ${choice.transcriber.id} (${speech.baseUrl ?? "api.openai.com"})`);
  } else if (speech?.provider === "transformers" && whisperMissing === "") {
    choice.transcriber = runtime.wrapTranscriber(createWhisperTranscriber({ model: speech.model, ...transformersOptions(speech.model) }));
    choice.summary.push(`speech: ${choice.transcriber.id} (transformers.js)`);
  } else if (await programExists("pocketsphinx_continuous", ["-h"])) {
    if (speech?.provider === "transformers") choice.warnings.push({ type: "fallback", feature: "speech", detail: `${whisperMissing}; using pocketsphinx` });
    choice.transcriber = runtime.wrapTranscriber(createPocketsphinxTranscriber(speech?.provider === "pocketsphinx" && speech.vocabulary ? { vocabulary: speech.vocabulary } : {}));
    choice.summary.push(`speech: ${choice.transcriber.id} (lite; English only: speech in other languages needs a Whisper model)`);
  } else fallback("transcriber", "speech", "pocketsphinx is not installed (apt-get install pocketsphinx pocketsphinx-en-us)");

  // Speakers: the neural diarizer when configured and its package and models are here; else the lite diarizer, which
  // needs no weights, so it runs wherever speech is recognised.
  const diarizer = models.diarizer;
  if (options.speech === false || diarizer?.provider === "off" || !choice.transcriber) choice.summary.push("speakers: off");
  else {
    const neural = diarizer?.provider === "sherpa-onnx" ? await chooseSherpaDiarizer(diarizer, dir, ensureLocal) : undefined;
    if (neural && "diarizer" in neural) {
      choice.diarizer = neural.diarizer;
      choice.summary.push(`speakers: ${neural.diarizer.id} (sherpa-onnx, ${dir})`);
    } else {
      if (neural) choice.warnings.push({ type: "fallback", feature: "speakers", detail: neural.reason });
      choice.diarizer = createLiteDiarizer();
      const notes = [
        "lite",
        ...(speech?.provider === "openai" && speech.responseFormat === "diarized_json" ? ["the transcriber's own labels within a clip"] : []),
        ...(neural ? [`sherpa-onnx is not used: ${neural.summary}`] : []),
      ];
      choice.summary.push(`speakers: ${choice.diarizer.id} (${notes.join("; ")})`);
    }
  }

  // Detector and tagger: local ONNX files from the models folder.
  for (const stage of ["detector", "tagger"] as const) {
    const entry = models[stage];
    const label = stage === "detector" ? "objects" : "scene tags";
    if (entry?.provider === "off") {
      choice.summary.push(`${label}: off`);
      continue;
    }
    const name = entry?.model ?? defaultOnnx[stage];
    const manifest = findManifestModel(name);
    if (!manifest) {
      fallback(stage, label, `unknown ${stage} model "${name}" (see videorag models list)`);
      continue;
    }
    if (!local(name)) {
      fallback(stage, label, `${name} is not in ${dir} (videorag models pull ${name}, or set --models-dir)`);
      continue;
    }
    const [modelPath, labelsPath] = requireModel(dir, name);
    if (!modelPath || !labelsPath) {
      fallback(stage, label, `${name} is incomplete in ${dir}`);
      continue;
    }
    if (stage === "detector") {
      choice.detector = runtime.wrapDetector(createYoloxDetector({ modelPath, labelsPath, ...(entry?.minScore ? { minScore: entry.minScore } : {}) }));
      choice.summary.push(`${label}: ${choice.detector.id} (onnx, ${dir})`);
    } else {
      choice.tagger = runtime.wrapTagger(createMobilenetTagger({ modelPath, labelsPath }));
      choice.summary.push(`${label}: ${choice.tagger.id} (onnx, ${dir})`);
    }
  }

  // Voice-activity detection: a local ONNX file; without it nothing is lost but the light index's map of speech, so a
  // missing file is a summary line, not a warning. Not wrapped by the runtime: a local file read needs no retries or
  // server timeout, and the ingest stage already keeps its result.
  const vad = models.vad;
  const vadName = vad?.provider === "onnx" ? vad.model : "silero-vad";
  if (vad?.provider === "off") {
    choice.summary.push("speech activity: off");
  } else if (findManifestModel(vadName)?.kind !== "vad") {
    fallback("vad", "speech activity", `unknown voice-activity model "${vadName}" (see videorag models list)`);
  } else if (!local(vadName)) {
    choice.summary.push(`speech activity: off (${vadName} is not in ${dir}: videorag models pull ${vadName}; ${fallbacks.vad})`);
  } else {
    const [modelPath = ""] = requireModel(dir, vadName);
    // An onnx entry's minScore is, for this model, the speech probability at which a region starts.
    const threshold = vad?.provider === "onnx" ? vad.minScore : undefined;
    choice.vad = createSileroVad({ modelPath, ...(threshold !== undefined ? { threshold } : {}) });
    choice.summary.push(`speech activity: ${choice.vad.id} (onnx, ${dir})`);
  }

  // Image-text vectors.
  const imageText = models.imageText;
  const imageTextMissing = imageText?.provider === "transformers" ? await ensureLocal(imageText.model) : undefined;
  if (!imageText || imageText.provider === "off") choice.summary.push("image-text vectors: off (not configured)");
  else if (imageTextMissing === "") {
    choice.imageText = runtime.wrapImageTextEncoder(createClipEncoder({ model: imageText.model, ...transformersOptions(imageText.model) }));
    choice.summary.push(`image-text vectors: ${choice.imageText.id} (transformers.js)`);
  } else fallback("imageText", "image-text vectors", imageTextMissing ?? "");

  // Dense text vectors.
  const embedder = models.textEmbedder;
  const embedderMissing = embedder?.provider === "transformers" ? await ensureLocal(embedder.model) : undefined;
  if (!embedder || embedder.provider === "off") choice.summary.push("text vectors: off (not configured)");
  else if (embedder.provider === "openai") {
    choice.textEmbedder = runtime.wrapTextEmbedder(
      createOpenAiEmbedder({
        baseUrl: embedder.baseUrl ?? "https://api.openai.com/v1",
        model: embedder.model,
        dimensions: embedder.dimensions,
        apiKey: apiKeyReader(embedder.apiKeyEnv, env),
        ...(embedder.maxConcurrency ? { maxConcurrency: embedder.maxConcurrency } : {}),
      }),
    );
    choice.summary.push(`text vectors: ${choice.textEmbedder.id} (${embedder.baseUrl ?? "api.openai.com"})`);
  } else if (embedderMissing === "") {
    choice.textEmbedder = runtime.wrapTextEmbedder(createSentenceEmbedder({ model: embedder.model, ...transformersOptions(embedder.model) }));
    choice.summary.push(`text vectors: ${choice.textEmbedder.id} (transformers.js)`);
  } else fallback("textEmbedder", "text vectors", embedderMissing ?? "");

  // Chat models: the captioner and the answerer.
  for (const stage of ["vision", "llm"] as const) {
    const entry = models[stage];
    const label = stage === "vision" ? "captions" : "answers";
    if (stage === "llm" && !entry && choice.vision) {
      // The captioner answers too when no separate language model is configured.
      choice.llm = choice.vision;
      choice.summary.push(`answers: ${choice.vision.id} (the vision model)`);
      continue;
    }
    if (!entry || entry.provider === "off") {
      choice.summary.push(`${label}: ${stage === "vision" ? "templates from detections, tags and screen text" : "extractive"} (lite)`);
      continue;
    }
    const model = runtime.wrapLanguageModel(
      createOpenAiLanguageModel({
        baseUrl: entry.baseUrl ?? "https://api.openai.com/v1",
        model: entry.model,
        apiKey: apiKeyReader(entry.apiKeyEnv, env),
        acceptsImages: stage === "vision" || entry.acceptsImages,
        ...(entry.maxImages !== undefined ? { maxImages: entry.maxImages } : {}),
        ...(entry.maxConcurrency ? { maxConcurrency: entry.maxConcurrency } : {}),
      }),
    );
    choice[stage] = model;
    choice.summary.push(`${label}: ${model.id} (${entry.baseUrl ?? "api.openai.com"})`);
  }
  return choice;
}

/** The lite profile alone: no configuration, the switches given. */
export function liteConfig(): VideoRagConfig {
  return configSchema.parse({ allowDownloads: false });
}
