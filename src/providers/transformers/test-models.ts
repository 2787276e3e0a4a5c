// For tests only: writes tiny stand-ins for the Hugging Face models (real ONNX graphs of a few kilobytes, a word-level
// tokenizer, the config files) in the layout transformers.js reads, so the providers can run end to end on a machine
// where no real weights can be downloaded. The vectors they give are deterministic but mean nothing.

import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

// ---------------------------------------------------------------------------------------------------------------------
// A minimal protobuf writer for the few ONNX messages these graphs need (field numbers from onnx/onnx.proto).

type Field = Buffer;

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

function intField(number: number, value: number): Field {
  return Buffer.concat([varint(number << 3), varint(value)]);
}

function bytesField(number: number, value: Buffer | string): Field {
  const payload = typeof value === "string" ? Buffer.from(value, "utf8") : value;
  return Buffer.concat([varint((number << 3) | 2), varint(payload.length), payload]);
}

const message = (...fields: Field[]): Buffer => Buffer.concat(fields);

const float = 1;
const int64 = 7;

/** ValueInfoProto: a named tensor of `elementType` whose dimensions are numbers or symbolic names. */
function valueInfo(name: string, elementType: number, dims: (number | string)[]): Field {
  const shape = message(
    ...dims.map((dim) => bytesField(1, typeof dim === "number" ? intField(1, dim) : bytesField(2, dim))),
  );
  const tensorType = message(intField(1, elementType), bytesField(2, shape));
  return message(bytesField(1, name), bytesField(2, bytesField(1, tensorType)));
}

/** TensorProto holding float32 values. */
function floatTensor(name: string, dims: number[], values: Float32Array): Field {
  return message(
    ...dims.map((dim) => intField(1, dim)),
    intField(2, float),
    bytesField(8, name),
    bytesField(9, Buffer.from(values.buffer, values.byteOffset, values.byteLength)),
  );
}

type Attribute = { name: string; ints: number[] } | { name: string; int: number };

function node(opType: string, inputs: string[], outputs: string[], attributes: Attribute[] = []): Field {
  const encoded = attributes.map((attribute) =>
    "ints" in attribute
      ? message(bytesField(1, attribute.name), ...attribute.ints.map((value) => intField(8, value)), intField(20, 7))
      : message(bytesField(1, attribute.name), intField(3, attribute.int), intField(20, 2)),
  );
  return message(
    ...inputs.map((input) => bytesField(1, input)),
    ...outputs.map((output) => bytesField(2, output)),
    bytesField(3, `${opType}_${outputs[0]}`),
    bytesField(4, opType),
    ...encoded.map((attribute) => bytesField(5, attribute)),
  );
}

function model(graph: { nodes: Field[]; initializers: Field[]; inputs: Field[]; outputs: Field[] }): Buffer {
  const graphProto = message(
    ...graph.nodes.map((entry) => bytesField(1, entry)),
    bytesField(2, "tiny"),
    ...graph.initializers.map((entry) => bytesField(5, entry)),
    ...graph.inputs.map((entry) => bytesField(11, entry)),
    ...graph.outputs.map((entry) => bytesField(12, entry)),
  );
  // IR version 8, default-domain opset 13 (ReduceMean still takes `axes` as an attribute there).
  return message(intField(1, 8), bytesField(2, "videorag-test"), bytesField(7, graphProto), bytesField(8, message(bytesField(1, ""), intField(2, 13))));
}

// ---------------------------------------------------------------------------------------------------------------------
// The stand-in models.

/** Words the tiny tokenizer knows; anything else becomes [UNK]. */
export const testVocabulary = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "cat", "dog", "on", "the", "mat", "red", "car", "blue", "sky"];

/** A fixed pseudo-random table, so that every word gets its own direction. */
function table(rows: number, columns: number, seed: number): Float32Array {
  const values = new Float32Array(rows * columns);
  let state = seed;
  for (let index = 0; index < values.length; index += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    values[index] = state / 1_073_741_824 - 1;
  }
  return values;
}

function tokenizerJson(): string {
  const vocab = Object.fromEntries(testVocabulary.map((word, id) => [word, id]));
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
 */
export async function writeTestSentenceModel(modelsDir: string, name: string, dimensions = 384): Promise<void> {
  const words = testVocabulary.length;
  const onnx = model({
    nodes: [node("Gather", ["embeddings", "input_ids"], ["last_hidden_state"], [{ name: "axis", int: 0 }])],
    initializers: [floatTensor("embeddings", [words, dimensions], table(words, dimensions, 7))],
    inputs: [valueInfo("input_ids", int64, ["batch", "sequence"]), valueInfo("attention_mask", int64, ["batch", "sequence"])],
    outputs: [valueInfo("last_hidden_state", float, ["batch", "sequence", dimensions])],
  });
  await writeFiles(join(modelsDir, ...name.split("/")), {
    "config.json": JSON.stringify({ model_type: "bert", hidden_size: dimensions }),
    "tokenizer.json": tokenizerJson(),
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
    nodes: [
      node("Gather", ["embeddings", "input_ids"], ["tokens"], [{ name: "axis", int: 0 }]),
      node("ReduceMean", ["tokens"], ["text_embeds"], [{ name: "axes", ints: [1] }, { name: "keepdims", int: 0 }]),
    ],
    initializers: [floatTensor("embeddings", [words, dimensions], table(words, dimensions, 11))],
    inputs: [valueInfo("input_ids", int64, ["batch", "sequence"]), valueInfo("attention_mask", int64, ["batch", "sequence"])],
    outputs: [valueInfo("text_embeds", float, ["batch", dimensions])],
  });
  const vision = model({
    nodes: [
      node("ReduceMean", ["pixel_values"], ["colour"], [{ name: "axes", ints: [2, 3] }, { name: "keepdims", int: 0 }]),
      node("MatMul", ["colour", "projection"], ["image_embeds"]),
    ],
    initializers: [floatTensor("projection", [3, dimensions], table(3, dimensions, 13))],
    inputs: [valueInfo("pixel_values", float, ["batch", 3, 224, 224])],
    outputs: [valueInfo("image_embeds", float, ["batch", dimensions])],
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
