// For tests only: a minimal protobuf writer for the few ONNX messages the stand-in models need (field numbers from
// onnx/onnx.proto), shared by the transformers.js stand-ins and the neural diarizer's.

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

const intField = (number: number, value: number): Buffer => Buffer.concat([varint(number << 3), varint(value)]);

function bytesField(number: number, value: Buffer | string): Buffer {
  const payload = typeof value === "string" ? Buffer.from(value, "utf8") : value;
  return Buffer.concat([varint((number << 3) | 2), varint(payload.length), payload]);
}

const message = (...fields: Buffer[]): Buffer => Buffer.concat(fields);

/** TensorProto element types used here. */
export const elementType = { float: 1, int64: 7 } as const;

/** ValueInfoProto: a named tensor of `type` whose dimensions are numbers or symbolic names. */
export function valueInfo(name: string, type: number, dims: (number | string)[]): Buffer {
  const shape = message(...dims.map((dim) => bytesField(1, typeof dim === "number" ? intField(1, dim) : bytesField(2, dim))));
  return message(bytesField(1, name), bytesField(2, bytesField(1, message(intField(1, type), bytesField(2, shape)))));
}

/** TensorProto holding float32 values. */
export function floatTensor(name: string, dims: number[], values: Float32Array): Buffer {
  return message(
    ...dims.map((dim) => intField(1, dim)),
    intField(2, elementType.float),
    bytesField(8, name),
    bytesField(9, Buffer.from(values.buffer, values.byteOffset, values.byteLength)),
  );
}

export type Attribute = { name: string; ints: number[] } | { name: string; int: number };

export function node(opType: string, inputs: string[], outputs: string[], attributes: Attribute[] = []): Buffer {
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

export interface Graph {
  name: string;
  nodes: Buffer[];
  initializers: Buffer[];
  inputs: Buffer[];
  outputs: Buffer[];
  /** ModelProto.metadata_props (what sherpa-onnx reads to know a model's shape and framework). */
  metadata?: Record<string, string | number>;
}

/** A ModelProto: IR version 8, default-domain opset 13 (ReduceMean still takes `axes` as an attribute there). */
export function model(graph: Graph): Buffer {
  const graphProto = message(
    ...graph.nodes.map((entry) => bytesField(1, entry)),
    bytesField(2, graph.name),
    ...graph.initializers.map((entry) => bytesField(5, entry)),
    ...graph.inputs.map((entry) => bytesField(11, entry)),
    ...graph.outputs.map((entry) => bytesField(12, entry)),
  );
  const metadata = Object.entries(graph.metadata ?? {}).map(([key, value]) => bytesField(14, message(bytesField(1, key), bytesField(2, String(value)))));
  return message(intField(1, 8), bytesField(2, "videorag-test"), bytesField(7, graphProto), bytesField(8, message(bytesField(1, ""), intField(2, 13))), ...metadata);
}

/** A fixed pseudo-random table in [-1, 1), the same on every run. */
export function table(rows: number, columns: number, seed: number): Float32Array {
  const values = new Float32Array(rows * columns);
  let state = seed;
  for (let index = 0; index < values.length; index += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    values[index] = state / 1_073_741_824 - 1;
  }
  return values;
}
