// `videorag doctor`: for each stage, which provider will run it, whether it is present or reachable, and what falls
// back to the lite profile. Reads the configuration only; never prints a key.

import type { VideoRagConfig } from "../config/index.js";
import { programExists, chooseProviders } from "./registry.js";

export interface Diagnosis {
  /** "ffmpeg", "speech", "answers", … */
  stage: string;
  /** What runs it, as the registry names it. */
  provider: string;
  ok: boolean;
  /** Reachability, presence or the reason for a fallback. */
  detail: string;
  /**
   * Whether the stage must work as configured: ffmpeg always, a model only when the configuration (file or environment)
   * names it. A lite default that is missing falls back quietly and is not required.
   */
  required: boolean;
}

/** The configuration's model key behind each stage the registry names. */
const stageModels: Record<string, keyof VideoRagConfig["models"]> = {
  "screen text": "ocr",
  speech: "transcriber",
  objects: "detector",
  "scene tags": "tagger",
  "speech activity": "vad",
  speakers: "diarizer",
  "image-text vectors": "imageText",
  "text vectors": "textEmbedder",
  captions: "vision",
  answers: "llm",
};

export interface DiagnoseOptions {
  env?: NodeJS.ProcessEnv;
  /** Seconds to wait for a model server to answer. */
  timeoutSeconds?: number;
}

/** What happens at run time when a configured server does not answer. */
const remoteFallbacks: Record<string, string> = {
  answers: "questions get the extractive answer with a warning",
  captions: "ingest of videos fails at the visual stage and resumes once it answers",
  "text vectors": "ingest fails at the embeddings stage and resumes once it answers",
  speech: "ingest fails at the speech stage and resumes once it answers",
};

/** GET {baseUrl}/models: the cheapest request every OpenAI-compatible server answers. */
async function probeServer(baseUrl: string, apiKey: string | undefined, timeoutSeconds: number): Promise<{ ok: boolean; detail: string }> {
  const url = `${baseUrl.replace(/\/+$/, "")}/models`;
  try {
    const response = await fetch(url, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(timeoutSeconds * 1000),
    });
    if (response.status === 401 || response.status === 403) return { ok: false, detail: `${url} refused the credentials (HTTP ${response.status})` };
    if (!response.ok) return { ok: false, detail: `${url} answered HTTP ${response.status}` };
    return { ok: true, detail: `${url} reachable` };
  } catch (error) {
    const reason = error instanceof Error && error.name === "TimeoutError" ? `no answer in ${timeoutSeconds} s` : "cannot connect";
    return { ok: false, detail: `${url}: ${reason}` };
  }
}

/** One diagnosis per stage, system programs first. */
export async function diagnose(config: VideoRagConfig, options: DiagnoseOptions = {}): Promise<Diagnosis[]> {
  const env = options.env ?? process.env;
  const timeoutSeconds = options.timeoutSeconds ?? 5;
  const results: Diagnosis[] = [];
  for (const program of ["ffmpeg", "ffprobe"]) {
    const present = await programExists(program, ["-version"]);
    results.push({ stage: program, provider: program, ok: present, detail: present ? "" : "missing: apt-get install ffmpeg (nothing can be ingested without it)", required: true });
  }
  const choice = await chooseProviders(config, { env, download: false });
  const servers = new Map<string, Promise<{ ok: boolean; detail: string }>>();
  for (const line of choice.summary) {
    const separator = line.indexOf(": ");
    const stage = line.slice(0, separator);
    const provider = line.slice(separator + 2);
    const fellBack = choice.warnings.find((warning) => warning.feature === stage);
    const key = stageModels[stage];
    const configured = key ? config.models[key] : undefined;
    const required = configured !== undefined && configured.provider !== "off";
    const remote = Object.values(config.models)
      .flatMap((entry) => (entry?.provider === "openai" ? [entry] : []))
      .find((entry) => provider.startsWith(`openai:${entry.model}`));
    if (remote) {
      const baseUrl = remote.baseUrl ?? "https://api.openai.com/v1";
      const probe = servers.get(baseUrl) ?? probeServer(baseUrl, env[remote.apiKeyEnv], timeoutSeconds);
      servers.set(baseUrl, probe);
      const reached = await probe;
      const keyNote = env[remote.apiKeyEnv] ? "" : ` (no ${remote.apiKeyEnv} set)`;
      const meanwhile = reached.ok ? "" : remoteFallbacks[stage] ? `; until it answers, ${remoteFallbacks[stage]}` : "";
      results.push({ stage, provider, ok: reached.ok, detail: `${reached.detail}${keyNote}${meanwhile}`, required });
      continue;
    }
    results.push({
      stage,
      provider,
      ok: !fellBack,
      detail: fellBack ? fellBack.detail : "",
      required,
    });
  }
  return results;
}
