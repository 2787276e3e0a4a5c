// The shape of videorag.config.json: which model runs each stage. Unknown keys are errors, so a typo never silently
// turns a model off.

import { z } from "zod";
import { retrievalDefaults, retrievalModes } from "../spec/vocabulary.js";

const openAi = z
  .object({
    provider: z.literal("openai"),
    /** Any OpenAI-compatible server: OpenAI, vLLM, Ollama (`http://localhost:11434/v1`), LM Studio, llama.cpp server. */
    baseUrl: z.string().url().optional(),
    model: z.string().min(1),
    /** Name of the environment variable holding the key; read only when a request is sent. */
    apiKeyEnv: z.string().min(1).default("OPENAI_API_KEY"),
    maxConcurrency: z.number().int().positive().max(64).optional(),
  })
  .strict();

const chatModel = openAi.extend({ acceptsImages: z.boolean().default(false), maxImages: z.number().int().min(0).max(64).optional() }).strict();
const embeddingModel = openAi.extend({ dimensions: z.number().int().positive() }).strict();
const transcriptionModel = openAi
  .extend({
    /**
     * The reply asked of `/audio/transcriptions`: "verbose_json" (default; Whisper's segment and word times) or
     * "diarized_json" (segments labelled by speaker, for diarizing models such as gpt-4o-transcribe-diarize). A
     * `speaker` on the segments is kept with either, so whisperX-style servers need no change here.
     */
    responseFormat: z.enum(["verbose_json", "diarized_json"]).optional(),
  })
  .strict();
const transformers = z.object({ provider: z.literal("transformers"), model: z.string().min(1) }).strict();
const onnx = z
  .object({ provider: z.literal("onnx"), model: z.string().min(1), minScore: z.number().min(0).max(1).optional() })
  .strict();
const off = z.object({ provider: z.literal("off") }).strict();
const lite = <Name extends string>(name: Name) => z.object({ provider: z.literal(name) }).strict();
/** The lite transcriber; `vocabulary`: the language model's likeliest words listened for (default 40,000), or "all". */
const pocketsphinx = z
  .object({
    provider: z.literal("pocketsphinx"),
    vocabulary: z.union([z.number().int().min(1_000).max(1_000_000), z.literal("all")]).optional(),
  })
  .strict();
const sherpaDiarizer = z
  .object({
    provider: z.literal("sherpa-onnx"),
    /** A speaker-segmentation model of `videorag models list`; default pyannote-segmentation-3.0. */
    segmentation: z.string().min(1).optional(),
    /** A speaker-embedding model of `videorag models list`; default 3dspeaker-campplus-en-voxceleb. */
    embedding: z.string().min(1).optional(),
    /** How far apart (cosine distance) two voices must be to stay two speakers, when their number is not given; default 0.5. */
    threshold: z.number().gt(0).lt(2).optional(),
  })
  .strict();

export const configSchema = z
  .object({
    /** The library folder, or a `postgres://` URL. */
    library: z.string().min(1).optional(),
    /** The library's store: `url` is a `postgres://` URL (overrides `library`), for a library shared by several machines. */
    store: z.object({ url: z.string().regex(/^postgres(ql)?:\/\//i, "a postgres:// URL") }).strict().optional(),
    /** Where local models live (ONNX files and Hugging Face folders). */
    modelsDir: z.string().min(1).optional(),
    /** Download a configured Hugging Face model that is not in the models folder (with progress), instead of falling back. */
    allowDownloads: z.boolean().default(true),
    clipSeconds: z.number().positive().max(3600).default(30),
    frameGapSeconds: z.number().positive().max(600).default(5),
    /** One frame every this many seconds goes to the detector, tagger and image-text encoder. */
    visualEverySeconds: z.number().positive().max(600).default(2),
    models: z
      .object({
        /** Answers, query rewriting, filtering. */
        llm: z.union([chatModel, off]).optional(),
        /** Clip captions from frames and transcript; also answers with frames ("video as context"). */
        vision: z.union([chatModel, off]).optional(),
        textEmbedder: z.union([embeddingModel, transformers, off]).optional(),
        imageText: z.union([transformers, off]).optional(),
        transcriber: z.union([pocketsphinx, transcriptionModel, transformers, off]).optional(),
        /**
         * Screen text and bitmap subtitles. `languages`: tesseract's codes of the languages shown ("eng", "deu", "jpn",
         * "chi_sim"; default ["eng"]); each needs Debian's `tesseract-ocr-<code>` pack.
         */
        ocr: z
          .union([
            z
              .object({
                provider: z.literal("tesseract"),
                languages: z.array(z.string().regex(/^[a-z]{3}(?:_[a-z]{3,4})?$/, "a tesseract language code such as eng, deu or chi_sim")).min(1).max(8).optional(),
              })
              .strict(),
            off,
          ])
          .optional(),
        /**
         * Who speaks: the lite diarizer (default wherever speech is recognised), the neural one through sherpa-onnx
         * (models from `videorag models pull`; falls back to lite while they are missing), or off.
         */
        diarizer: z.union([lite("lite"), sherpaDiarizer, off]).optional(),
        detector: z.union([onnx, off]).optional(),
        tagger: z.union([onnx, off]).optional(),
        /**
         * Where speech is (Silero VAD): speech recognition then runs only there. `minScore` is the speech probability
         * at which a region starts (default 0.5).
         */
        vad: z.union([onnx, off]).optional(),
      })
      .strict()
      .default({}),
    graph: z
      .object({
        /** Consecutive clip descriptions are grouped into chunks of at most this many tokens for entity extraction. */
        chunkTokens: z.number().int().min(100).max(32000).default(1200),
        /** A second extraction pass asking the language model for the entities it missed. */
        glean: z.boolean().default(true),
        /** Differently named entities of one type merge when their name vectors are this close (cosine distance). */
        mergeDistance: z.number().min(0).max(1).default(0.1),
      })
      .strict()
      .default({}),
    ingest: z
      .object({
        /** Index only what is cheap at ingest; speech, screen text, dense visual words, captions and text vectors run per clip when a question needs them, or with `extract`. */
        incremental: z.boolean().default(false),
        /** The light index's visual pass: one frame every this many seconds (the dense pass runs with the deferred stages). */
        lightVisualSeconds: z.number().positive().max(600).default(15),
      })
      .strict()
      .default({}),
    extraction: z
      .object({
        /** Most clips a question extracts per round. */
        maxClips: z.number().int().min(1).max(1000).default(8),
        /**
         * Seconds a question may spend extracting before it answers from what there is: a step of clips is started only
         * when the longest of the library's last steps of its stages would end within it. The rest of its plan is
         * extracted in the background. 15 s: where nothing places a question, its clips are spread over the videos
         * least heard, so a short budget finds as many answers as a long one (`npm run bench incremental`,
         * docs/benchmarks.md).
         */
        budgetSeconds: z.number().positive().max(3600).default(15),
        /** Rounds of planning and extraction when the answer still finds nothing relevant. */
        rounds: z.number().int().min(1).max(10).default(2),
      })
      .strict()
      .default({}),
    retrieval: z
      .object({
        /** How `ask` and `search` retrieve when no mode is given. */
        mode: z.enum(retrievalModes).default(retrievalDefaults.mode),
        /** Weight of text against visual evidence when whole videos are scored (`video` mode). */
        alpha: z.number().min(0).max(1).default(retrievalDefaults.alpha),
        /** The graph's weight against BM25 and dense text in hybrid fusion; a tie-breaker by default (measured with the lite graph). */
        graphWeight: z.number().min(0).max(10).default(retrievalDefaults.graphWeight),
        /** Ask the language model whether each hybrid candidate clip is relevant, and drop those it rejects. */
        filter: z.boolean().default(true),
        /** Frames a vision-language model sees when it re-describes a clip for the question. */
        redescribeFrames: z.number().int().min(1).max(64).default(15),
      })
      .strict()
      .default({}),
    runtime: z
      .object({
        retries: z.number().int().min(0).max(10).default(3),
        timeoutSeconds: z.number().positive().max(3600).default(120),
      })
      .strict()
      .default({}),
  })
  .strict();

export type VideoRagConfig = z.output<typeof configSchema>;
export type VideoRagConfigInput = z.input<typeof configSchema>;
export type ModelsConfig = VideoRagConfig["models"];
export type ModelStage = keyof ModelsConfig;
