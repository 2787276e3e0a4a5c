// For tests only: writes tiny stand-ins for the Hugging Face models (real ONNX graphs of a few kilobytes, a word-level
// tokenizer, the config files) in the layout transformers.js reads, so the providers can run end to end on a machine
// where no real weights can be downloaded. The vectors they give are deterministic but mean nothing.

import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { elementType, floatTensor, model, node, table, valueInfo } from "../../test-support/onnx-writer.js";

// ---------------------------------------------------------------------------------------------------------------------
// The stand-in models.

/** Words the tiny tokenizer knows; anything else becomes [UNK]. */
export const testVocabulary = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "cat", "dog", "on", "the", "mat", "red", "car", "blue", "sky"];


function tokenizerJson(vocabulary: string[] = testVocabulary): string {
  const vocab = Object.fromEntries(vocabulary.map((word, id) => [word, id]));
  const special = (content: string) => ({
    id: vocab[content],
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const token = (id: string) => ({ SpecialToken: { id, type_id: 0 } });
  return JSON.stringify({
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: ["[PAD]", "[UNK]", "[CLS]", "[SEP]"].map(special),
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [token("[CLS]"), { Sequence: { id: "A", type_id: 0 } }, token("[SEP]")],
      pair: [token("[CLS]"), { Sequence: { id: "A", type_id: 0 } }, token("[SEP]"), { Sequence: { id: "B", type_id: 1 } }, token("[SEP]")],
      special_tokens: {
        "[CLS]": { id: "[CLS]", ids: [vocab["[CLS]"]], tokens: ["[CLS]"] },
        "[SEP]": { id: "[SEP]", ids: [vocab["[SEP]"]], tokens: ["[SEP]"] },
      },
    },
    decoder: null,
    model: { type: "WordLevel", vocab, unk_token: "[UNK]" },
  });
}

const tokenizerConfig = JSON.stringify({
  tokenizer_class: "BertTokenizer",
  model_max_length: 16,
  do_lower_case: true,
  pad_token: "[PAD]",
  unk_token: "[UNK]",
  cls_token: "[CLS]",
  sep_token: "[SEP]",
});

async function writeFiles(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, ...path.split("/"));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

/**
 * A BERT-shaped feature extractor at `<modelsDir>/<name>/`: each token's hidden state is a row of a fixed table, so the
 * pipeline's mean pooling gives the average of the words' rows.
 *
 * With `concepts` (groups of words, such as a word and its translations) it knows those words only, and the words of a
 * group share one row: a stand-in for a multilingual model, on which "lighthouse" and "Leuchtturm" are near. Special
 * and unknown tokens share a faint row then, so they pull no two texts together (and a text of unknown words still
 * has a direction, as it would on a real model).
 */
export async function writeTestSentenceModel(modelsDir: string, name: string, dimensions = 384, concepts?: string[][]): Promise<void> {
  const specials = testVocabulary.slice(0, 4);
  const vocabulary = concepts ? [...specials, ...concepts.flat().map((word) => word.toLowerCase())] : testVocabulary;
  let rows = table(vocabulary.length, dimensions, 7);
  if (concepts) {
    const conceptRows = table(concepts.length, dimensions, 7);
    rows = new Float32Array(vocabulary.length * dimensions).fill(0.01);
    let id = specials.length;
    concepts.forEach((group, concept) => {
      for (const _word of group) rows.set(conceptRows.subarray(concept * dimensions, (concept + 1) * dimensions), dimensions * id++);
    });
  }
  const onnx = model({
    name: "tiny",
    nodes: [node("Gather", ["embeddings", "input_ids"], ["last_hidden_state"], [{ name: "axis", int: 0 }])],
    initializers: [floatTensor("embeddings", [vocabulary.length, dimensions], rows)],
    inputs: [valueInfo("input_ids", elementType.int64, ["batch", "sequence"]), valueInfo("attention_mask", elementType.int64, ["batch", "sequence"])],
    outputs: [valueInfo("last_hidden_state", elementType.float, ["batch", "sequence", dimensions])],
  });
  await writeFiles(join(modelsDir, ...name.split("/")), {
    "config.json": JSON.stringify({ model_type: "bert", hidden_size: dimensions }),
    "tokenizer.json": tokenizerJson(vocabulary),
    "tokenizer_config.json": tokenizerConfig,
    "onnx/model_quantized.onnx": onnx,
  });
}

/**
 * A CLIP-shaped pair of encoders at `<modelsDir>/<name>/`: the text vector is the mean of the tokens' table rows, the
 * image vector a fixed projection of the image's mean red, green and blue.
 */
export async function writeTestClipModel(modelsDir: string, name: string, dimensions = 512): Promise<void> {
  const words = testVocabulary.length;
  const text = model({
    name: "tiny",
    nodes: [
      node("Gather", ["embeddings", "input_ids"], ["tokens"], [{ name: "axis", int: 0 }]),
      node("ReduceMean", ["tokens"], ["text_embeds"], [{ name: "axes", ints: [1] }, { name: "keepdims", int: 0 }]),
    ],
    initializers: [floatTensor("embeddings", [words, dimensions], table(words, dimensions, 11))],
    inputs: [valueInfo("input_ids", elementType.int64, ["batch", "sequence"]), valueInfo("attention_mask", elementType.int64, ["batch", "sequence"])],
    outputs: [valueInfo("text_embeds", elementType.float, ["batch", dimensions])],
  });
  const vision = model({
    name: "tiny",
    nodes: [
      node("ReduceMean", ["pixel_values"], ["colour"], [{ name: "axes", ints: [2, 3] }, { name: "keepdims", int: 0 }]),
      node("MatMul", ["colour", "projection"], ["image_embeds"]),
    ],
    initializers: [floatTensor("projection", [3, dimensions], table(3, dimensions, 13))],
    inputs: [valueInfo("pixel_values", elementType.float, ["batch", 3, 224, 224])],
    outputs: [valueInfo("image_embeds", elementType.float, ["batch", dimensions])],
  });
  await writeFiles(join(modelsDir, ...name.split("/")), {
    "config.json": JSON.stringify({ model_type: "clip", projection_dim: dimensions }),
    "preprocessor_config.json": JSON.stringify({
      feature_extractor_type: "CLIPFeatureExtractor",
      crop_size: 224,
      do_center_crop: true,
      do_normalize: true,
      do_resize: true,
      image_mean: [0.48145466, 0.4578275, 0.40821073],
      image_std: [0.26862954, 0.26130258, 0.27577711],
      resample: 3,
      size: 224,
    }),
    "tokenizer.json": tokenizerJson(),
    "tokenizer_config.json": tokenizerConfig,
    "onnx/text_model_quantized.onnx": text,
    "onnx/vision_model_quantized.onnx": vision,
  });
}
