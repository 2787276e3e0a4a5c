// Reads the metadata of an ONNX file (ModelProto.metadata_props) without loading the model, so that a file sherpa-onnx
// would reject is refused here with a message: sherpa-onnx ends the whole process (exit(-1)) when a model lacks a key it
// needs, which in a server or a worker would take every other job down with it.

import { open, type FileHandle } from "node:fs/promises";
import { VideoRagError } from "../../spec/index.js";

const lengthDelimited = 2;
const metadataField = 14;

/** The key-value metadata of the ONNX model at `path`. Reads only the top-level fields; the graph is skipped over. */
export async function readOnnxMetadata(path: string): Promise<Record<string, string>> {
  const file = await open(path, "r").catch((error: unknown) => {
    throw new VideoRagError("MODEL_NOT_FOUND", `cannot read the model file`, { cause: error, subject: path });
  });
  try {
    const { size } = await file.stat();
    const metadata: Record<string, string> = {};
    let position = 0;
    while (position < size) {
      const head = await readAt(file, position, 20);
      const tag = readVarint(head, 0);
      if (!tag) throw notOnnx(path);
      const wireType = tag.value % 8;
      const field = Math.floor(tag.value / 8);
      let offset = tag.next;
      if (wireType === 0) {
        const value = readVarint(head, offset);
        if (!value) throw notOnnx(path);
        offset = value.next;
      } else if (wireType === 1 || wireType === 5) {
        offset += wireType === 1 ? 8 : 4;
      } else if (wireType === lengthDelimited) {
        const length = readVarint(head, offset);
        if (!length || position + length.next + length.value > size) throw notOnnx(path);
        if (field === metadataField) {
          const entry = parseEntry(await readAt(file, position + length.next, length.value));
          if (entry) metadata[entry.key] = entry.value;
        }
        offset = length.next + length.value;
      } else {
        throw notOnnx(path);
      }
      position += offset;
    }
    return metadata;
  } finally {
    await file.close();
  }
}

/**
 * Throws MODEL_FAILED naming the model and the missing keys unless `metadata` has every key of `required` (and, where
 * `required` gives values, one of them).
 */
export function requireMetadata(
  metadata: Record<string, string>,
  required: Record<string, readonly string[] | null>,
  what: string,
  path: string,
): void {
  const problems: string[] = [];
  for (const [key, allowed] of Object.entries(required)) {
    const value = metadata[key];
    if (value === undefined) problems.push(`no "${key}"`);
    else if (allowed && !allowed.includes(value)) problems.push(`"${key}" is "${value}", not ${allowed.map((item) => `"${item}"`).join(" or ")}`);
  }
  if (problems.length > 0) {
    throw new VideoRagError(
      "MODEL_FAILED",
      `${path} is not a ${what} sherpa-onnx can run: its ONNX metadata has ${problems.join(", ")}. Use the files \`videorag models pull\` fetches, or a model exported by sherpa-onnx's scripts`,
      { subject: path },
    );
  }
}

function parseEntry(bytes: Buffer): { key: string; value: string } | undefined {
  let key = "";
  let value = "";
  let offset = 0;
  while (offset < bytes.length) {
    const tag = readVarint(bytes, offset);
    if (!tag || tag.value % 8 !== lengthDelimited) return undefined;
    const length = readVarint(bytes, tag.next);
    if (!length) return undefined;
    const text = bytes.toString("utf8", length.next, length.next + length.value);
    if (Math.floor(tag.value / 8) === 1) key = text;
    else if (Math.floor(tag.value / 8) === 2) value = text;
    offset = length.next + length.value;
  }
  return key ? { key, value } : undefined;
}

function readVarint(bytes: Buffer, start: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let offset = start; offset < bytes.length && offset < start + 10; offset += 1) {
    const byte = bytes[offset] as number;
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if (byte < 0x80) return { value, next: offset + 1 };
  }
  return undefined;
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

function notOnnx(path: string): VideoRagError {
  return new VideoRagError("MODEL_FAILED", "the file is not an ONNX model (its protobuf fields do not parse)", { subject: path });
}
