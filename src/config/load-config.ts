// Loads the configuration: videorag.config.json (or --config, or VIDEORAG_CONFIG), then environment variables on top.
// Every problem is a CONFIG_INVALID error naming the file or variable and the key.

import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { VideoRagError } from "../spec/index.js";
import { configSchema, type ModelStage, type VideoRagConfig } from "./config-schema.js";

export const configFileName = "videorag.config.json";

/** `VIDEORAG_<STAGE>=<provider>:<model>` (or `off`) sets one stage's model. */
const stageVariables: Record<ModelStage, string> = {
  llm: "VIDEORAG_LLM",
  vision: "VIDEORAG_VISION",
  textEmbedder: "VIDEORAG_TEXT_EMBEDDER",
  imageText: "VIDEORAG_IMAGE_TEXT",
  transcriber: "VIDEORAG_TRANSCRIBER",
  ocr: "VIDEORAG_OCR",
  detector: "VIDEORAG_DETECTOR",
  tagger: "VIDEORAG_TAGGER",
  vad: "VIDEORAG_VAD",
  diarizer: "VIDEORAG_DIARIZER",
};

export interface LoadedConfig {
  config: VideoRagConfig;
  /** The file read, if any. */
  file?: string;
  /** The environment variables that changed something (names only; values may be secrets). */
  variables: string[];
}

export interface LoadConfigOptions {
  /** An explicit file; it must exist. */
  file?: string;
  /** Where to look for videorag.config.json; default the working directory. */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new VideoRagError("CONFIG_INVALID", `cannot read the configuration file`, { cause: error, subject: path });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new VideoRagError("CONFIG_INVALID", `not valid JSON: ${(error as Error).message}`, { cause: error, subject: path });
  }
}

/** `openai:gpt-4o-mini`, `transformers:Xenova/all-MiniLM-L6-v2`, `onnx:yolox-nano`, `pocketsphinx`, `off`. */
function parseStageVariable(stage: ModelStage, value: string, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const separator = value.indexOf(":");
  const provider = separator === -1 ? value : value.slice(0, separator);
  const model = separator === -1 ? undefined : value.slice(separator + 1);
  const entry: Record<string, unknown> = { provider, ...(model ? { model } : {}) };
  if (provider === "openai" && (stage === "llm" || stage === "vision")) entry.acceptsImages = stage === "vision";
  if (provider === "openai" && stage === "textEmbedder") {
    const dimensions = Number(env.VIDEORAG_TEXT_EMBEDDER_DIMENSIONS);
    if (Number.isFinite(dimensions) && dimensions > 0) entry.dimensions = dimensions;
  }
  return entry;
}

function applyEnvironment(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, variables: string[]): void {
  const set = (variable: string, apply: (value: string) => void): void => {
    const value = env[variable];
    if (value === undefined || value === "") return;
    apply(value);
    variables.push(variable);
  };
  set("VIDEORAG_LIBRARY", (value) => (raw.library = value));
  set("VIDEORAG_MODELS_DIR", (value) => (raw.modelsDir = value));
  set("VIDEORAG_ALLOW_DOWNLOADS", (value) => (raw.allowDownloads = value === "1" || value === "true"));
  const models = { ...((raw.models as Record<string, unknown> | undefined) ?? {}) };
  for (const [stage, variable] of Object.entries(stageVariables) as [ModelStage, string][]) {
    set(variable, (value) => (models[stage] = parseStageVariable(stage, value, env)));
  }
  // A base URL from the environment applies to every OpenAI-compatible entry that does not name its own.
  set("OPENAI_BASE_URL", (value) => {
    for (const entry of Object.values(models)) {
      const model = entry as Record<string, unknown>;
      if (model.provider === "openai" && model.baseUrl === undefined) model.baseUrl = value;
    }
  });
  raw.models = models;
}

/** The configuration in effect, validated. Throws CONFIG_INVALID naming where the bad value came from. */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const explicit = options.file ?? env.VIDEORAG_CONFIG;
  const candidate = explicit ? resolve(explicit) : resolve(options.cwd ?? process.cwd(), configFileName);
  if (explicit && !existsSync(candidate)) {
    throw new VideoRagError("CONFIG_INVALID", "the configuration file does not exist", { subject: candidate });
  }
  const file = existsSync(candidate) ? candidate : undefined;
  const fromFile = file ? readConfigFile(file) : {};
  if (typeof fromFile !== "object" || fromFile === null || Array.isArray(fromFile)) {
    throw new VideoRagError("CONFIG_INVALID", "the configuration must be a JSON object", { subject: file });
  }
  const fileCheck = configSchema.safeParse(fromFile);
  if (!fileCheck.success) throw invalid(fileCheck.error.issues[0], file ?? "configuration");
  const variables: string[] = [];
  const raw = structuredClone(fromFile) as Record<string, unknown>;
  applyEnvironment(raw, env, variables);
  const merged = configSchema.safeParse(raw);
  if (!merged.success) throw invalid(merged.error.issues[0], `environment (${variables.join(", ")})`);
  return { config: merged.data, file, variables };
}

function invalid(issue: { path: (string | number)[]; message: string } | undefined, where: string): VideoRagError {
  const path = issue?.path.join(".") || "(top level)";
  return new VideoRagError("CONFIG_INVALID", `${path}: ${issue?.message ?? "invalid"}`, { subject: where });
}
