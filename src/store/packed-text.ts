// How the SQLite library keeps each text once (schema version 7): a video's segments as blocks, and everything that
// repeats their words as a reference to them — a clip's transcript as a run of segments, a chunk's text as pieces of
// the segments' text, a graph source's description as pieces of its chunk's text. The Postgres library keeps its
// segments in the same blocks (its schema 3). Every encoding is checked by decoding
// it before it is stored (the callers store the text itself when it does not come back exactly), so what the store
// returns never depends on these codecs being clever. The byte formats are part of the file format: changing one needs
// a new schema version.

import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { Segment, SegmentSource } from "../spec/index.js";

/** Segments per block: a block is what a read decodes, so a long video's read stays small. */
export const segmentsPerBlock = 256;

/**
 * Whether new segment blocks are deflated; blocks of either kind are read. Measured on the how-to library migrated
 * both ways (`scripts/bench-transcripts.ts`): deflated, 116 MB; plain, 147 MB, and a hybrid search ~0.5 ms faster at
 * p50 (a graph search reads some forty videos' text, and inflating one is ~8 µs). Ranking videos and their moments
 * (what `ask` waits for) is as fast either way.
 */
export const deflateSegmentBlocks = true;

/** Segment sources whose text is not speech; a clip's transcript is made of the others (see `transcriptRuns`). */
const nonSpeechSources: ReadonlySet<string> = new Set(["screen", "visual", "caption"]);
const isSpeech = (segment: { source: string }): boolean => !nonSpeechSources.has(segment.source);

/**
 * The text as SQLite hands it back: a lone UTF-16 surrogate cannot be written as UTF-8, so it comes back as U+FFFD.
 * Encodings are checked against this form, which is what the store returned when it kept the text as it was given.
 */
export function storedText(text: string): string {
  return /[\uD800-\uDFFF]/.test(text) ? Buffer.from(text, "utf8").toString("utf8") : text;
}

/**
 * A REAL column hands back -0 as 0 (SQLite writes whole-number reals as integers), so the blocks do the same; the
 * other numbers come back bit for bit.
 */
const asReal = (value: number): number => (value === 0 ? 0 : value);

class ByteWriter {
  private buffer = Buffer.alloc(1024);
  length = 0;

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  varint(value: number): void {
    this.reserve(8);
    let rest = value;
    while (rest >= 0x80) {
      this.buffer[this.length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buffer[this.length++] = rest;
  }

  byte(value: number): void {
    this.reserve(1);
    this.buffer[this.length++] = value;
  }

  double(value: number): void {
    this.reserve(8);
    this.buffer.writeDoubleLE(value, this.length);
    this.length += 8;
  }

  bytes(value: Buffer): void {
    this.reserve(value.length);
    value.copy(this.buffer, this.length);
    this.length += value.length;
  }

  done(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

class ByteReader {
  offset = 0;
  constructor(private readonly buffer: Buffer) {}

  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.buffer[this.offset++];
      if (byte === undefined) throw new Error("packed text ends inside a number");
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  }

  byte(): number {
    const byte = this.buffer[this.offset++];
    if (byte === undefined) throw new Error("packed text ends early");
    return byte;
  }

  double(): number {
    const value = this.buffer.readDoubleLE(this.offset);
    this.offset += 8;
    return value;
  }

  text(bytes: number): string {
    const text = this.buffer.toString("utf8", this.offset, this.offset + bytes);
    this.offset += bytes;
    return text;
  }

  hex(bytes: number): string {
    if (this.offset + bytes > this.buffer.length) throw new Error("packed frames end early");
    const text = this.buffer.toString("hex", this.offset, this.offset + bytes);
    this.offset += bytes;
    return text;
  }

}

/** One stored block: its place among the video's blocks, the bounds a time window is checked against, the bytes. */
export interface SegmentBlock {
  blockIndex: number;
  minStartSecond: number;
  maxStartSecond: number;
  maxEndSecond: number;
  data: Buffer;
}

const chainedStart = 1;
const hasClipIndex = 2;

/**
 * The first byte of a block: how the rest is stored, as bits. `deflatedBody`: the body is deflated (see
 * `deflateSegmentBlocks`); else plain. `speakerColumns` (SQLite schema 11, Postgres schema 6): the body goes on with the
 * speakers' columns. `languageColumns` (SQLite schema 15, Postgres schema 10): then with the languages' columns. A block
 * whose segments have no speaker (no language) is written without those columns, byte for byte as before, so the
 * blocks of a library from before read as they are and cost nothing more; an older reader refuses a block with them
 * (an unknown format) instead of dropping who speaks or in which language, and an older videorag refuses the newer
 * schema first anyway.
 */
const deflatedBody = 1;
const speakerColumns = 2;
const languageColumns = 4;
const knownFormatBits = deflatedBody | speakerColumns | languageColumns;

/**
 * A video's segments, in the order given, as blocks of `segmentsPerBlock`. A block holds its `region` first (the texts
 * joined by spaces, what chunks and excerpts are read from, decoded as one string), then its columns one after another:
 * sources, flags, times, clip indexes, and the texts' lengths in UTF-16 units to cut the region by; then, only in a
 * block where some segment has a speaker (see `speakerColumns`), the speakers as labels (see `writeLabels`); then,
 * only in a block where some segment has a language (`languageColumns`), the languages the same way. A start equal to
 * the previous segment's end (plain-text transcripts are timed back to back) is not written again. `deflate`
 * compresses each block.
 */
export function encodeSegmentBlocks(segments: Segment[], deflate: boolean): SegmentBlock[] {
  const blocks: SegmentBlock[] = [];
  for (let first = 0; first < segments.length; first += segmentsPerBlock) {
    const part = segments.slice(first, first + segmentsPerBlock);
    const sources = [...new Set(part.map((segment) => String(segment.source)))];
    const texts = part.map((segment) => storedText(String(segment.text)));
    const writer = new ByteWriter();
    const region = Buffer.from(blockRegion(texts), "utf8");
    writer.varint(region.length);
    writer.bytes(region);
    writer.varint(part.length);
    writer.varint(sources.length);
    for (const source of sources) {
      const bytes = Buffer.from(source, "utf8");
      writer.varint(bytes.length);
      writer.bytes(bytes);
    }
    for (const segment of part) writer.varint(sources.indexOf(String(segment.source)));
    let previousEnd: number | undefined;
    const flags = part.map((segment) => {
      const start = asReal(checkedSecond(segment.startSecond));
      let flag = start === previousEnd ? chainedStart : 0;
      if (segment.clipIndex !== undefined && segment.clipIndex !== null) flag |= hasClipIndex;
      previousEnd = asReal(checkedSecond(segment.endSecond));
      return flag;
    });
    for (const flag of flags) writer.byte(flag);
    part.forEach((segment, index) => {
      if (((flags[index] as number) & chainedStart) === 0) writer.double(asReal(segment.startSecond));
      writer.double(asReal(segment.endSecond));
    });
    part.forEach((segment, index) => {
      if (((flags[index] as number) & hasClipIndex) !== 0) writer.double(asReal(segment.clipIndex as number));
    });
    for (const text of texts) writer.varint(text.length);
    const hasSpeakers = writeLabels(writer, part.map((segment) => segment.speaker));
    const hasLanguages = writeLabels(writer, part.map((segment) => segment.language));
    const body = writer.done();
    const format = (deflate ? deflatedBody : 0) | (hasSpeakers ? speakerColumns : 0) | (hasLanguages ? languageColumns : 0);
    const starts = part.map((segment) => asReal(segment.startSecond));
    blocks.push({
      blockIndex: first / segmentsPerBlock,
      minStartSecond: Math.min(...starts),
      maxStartSecond: Math.max(...starts),
      maxEndSecond: Math.max(...part.map((segment) => asReal(segment.endSecond))),
      data: Buffer.concat([Buffer.of(format), deflate ? deflateRawSync(body) : body]),
    });
  }
  return blocks;
}

/**
 * A label per segment (a speaker, a language), written as the sources are kept when some segment has one: the block's
 * distinct labels, then a varint per segment, 0 for none, else the label's place plus one. Nothing is written, and
 * false returned, when no segment has one.
 */
function writeLabels(writer: ByteWriter, labels: (string | undefined | null)[]): boolean {
  const labelOf = labels.map((label) => (label === undefined || label === null ? undefined : storedText(String(label))));
  const distinct = [...new Set(labelOf.filter((label) => label !== undefined))];
  if (distinct.length === 0) return false;
  writer.varint(distinct.length);
  for (const label of distinct) {
    const bytes = Buffer.from(label, "utf8");
    writer.varint(bytes.length);
    writer.bytes(bytes);
  }
  for (const label of labelOf) writer.varint(label === undefined ? 0 : distinct.indexOf(label) + 1);
  return true;
}

/** Labels written by `writeLabels`, for a block of `count` segments. */
function readLabels(reader: ByteReader, count: number): BlockLabels {
  const labelCount = reader.varint();
  const labels: string[] = [];
  for (let index = 0; index < labelCount; index++) labels.push(reader.text(reader.varint()));
  const labelOf = labelCount < 256 ? new Uint8Array(count) : new Array<number>(count);
  for (let index = 0; index < count; index++) labelOf[index] = reader.varint();
  return { labels, labelOf };
}

/** A block's distinct labels of one kind, and each segment's place among them plus one (0: none). */
interface BlockLabels {
  labels: string[];
  labelOf: Uint8Array | number[];
}

/** The labels of a block written without them: every segment's entry is 0 (an empty array reads as undefined). */
const noLabels: BlockLabels = { labels: [], labelOf: [] };

/** A segment's label from a block's labels, as a property to spread: none where it has none. */
function labelAt<K extends string>(key: K, labels: BlockLabels, index: number): { [P in K]?: string } {
  const place = labels.labelOf[index];
  return place ? ({ [key]: labels.labels[place - 1] as string } as { [P in K]?: string }) : {};
}

/** A block's texts as one string, as chunks quote them: a clip's lines run on, joined by spaces. */
const blockRegion = (texts: string[]): string => texts.join(" ");

/** A time NaN cannot be stored: the segments table refused it (NOT NULL), and so do the blocks. */
function checkedSecond(value: number): number {
  if (typeof value !== "number" || Number.isNaN(value)) throw new Error(`a segment time must be a number, not ${String(value)}`);
  return value;
}

/**
 * One block's segments, decoded into arrays rather than an object each: reading a clip's transcript needs only some
 * texts, and a graph search reads the blocks of some forty videos. The region is decoded at once, the columns when a
 * segment is first asked for (an excerpt needs only the region).
 */
export class SegmentBlockView {
  /** The block's texts joined by spaces (see `encodeSegmentBlocks`). */
  readonly region: string;
  private readonly body: Buffer;
  private readonly format: number;
  private readonly columnsFrom: number;
  private columnsRead: BlockColumns | undefined;

  constructor(data: Buffer) {
    const format = data[0];
    if (format === undefined || (format & ~knownFormatBits) !== 0) throw new Error(`a segment block in an unknown format (${format})`);
    this.format = format;
    this.body = format & deflatedBody ? inflateRawSync(data.subarray(1)) : data.subarray(1);
    const reader = new ByteReader(this.body);
    this.region = reader.text(reader.varint());
    this.columnsFrom = reader.offset;
  }

  /** Bytes this view holds, for a cache to count. */
  get sizeBytes(): number {
    return this.body.length + this.region.length * 2;
  }

  get count(): number {
    return this.columns().count;
  }

  text(index: number): string {
    const columns = this.columns();
    const offset = columns.offsets[index] as number;
    return this.region.slice(offset, offset + (columns.lengths[index] as number));
  }

  source(index: number): SegmentSource {
    const columns = this.columns();
    return columns.sources[columns.sourceOf[index] as number] as SegmentSource;
  }

  startSecond(index: number): number {
    return this.columns().starts[index] as number;
  }

  endSecond(index: number): number {
    return this.columns().ends[index] as number;
  }

  /** The segment as `getSegments` returns it: a new object each time. */
  segment(index: number): Segment {
    const columns = this.columns();
    return {
      startSecond: columns.starts[index] as number,
      endSecond: columns.ends[index] as number,
      text: this.text(index),
      source: this.source(index),
      ...(columns.hasClip[index] === 1 ? { clipIndex: columns.clipIndexes[index] as number } : {}),
      ...labelAt("speaker", columns.speakers, index),
      ...labelAt("language", columns.languages, index),
    };
  }

  /** All the block's segments, in the order written. */
  segments(): Segment[] {
    return Array.from({ length: this.count }, (_, index) => this.segment(index));
  }

  private columns(): BlockColumns {
    if (this.columnsRead) return this.columnsRead;
    const reader = new ByteReader(this.body);
    reader.offset = this.columnsFrom;
    const count = reader.varint();
    const sourceCount = reader.varint();
    const sources: SegmentSource[] = [];
    for (let index = 0; index < sourceCount; index++) sources.push(reader.text(reader.varint()) as SegmentSource);
    const sourceOf = sourceCount <= 256 ? new Uint8Array(count) : new Array<number>(count);
    for (let index = 0; index < count; index++) sourceOf[index] = reader.varint();
    const flags = this.body.subarray(reader.offset, reader.offset + count);
    reader.offset += count;
    const starts = new Float64Array(count);
    const ends = new Float64Array(count);
    let previousEnd = 0;
    for (let index = 0; index < count; index++) {
      starts[index] = ((flags[index] as number) & chainedStart) !== 0 ? previousEnd : reader.double();
      ends[index] = previousEnd = reader.double();
    }
    const clipIndexes = new Float64Array(count);
    const hasClip = new Uint8Array(count);
    for (let index = 0; index < count; index++) {
      if (((flags[index] as number) & hasClipIndex) === 0) continue;
      hasClip[index] = 1;
      clipIndexes[index] = reader.double();
    }
    const offsets = new Uint32Array(count);
    const lengths = new Uint32Array(count);
    let offset = 0;
    for (let index = 0; index < count; index++) {
      const length = reader.varint();
      offsets[index] = offset;
      lengths[index] = length;
      offset += length + 1;
    }
    const speakers = this.format & speakerColumns ? readLabels(reader, count) : noLabels;
    const languages = this.format & languageColumns ? readLabels(reader, count) : noLabels;
    return (this.columnsRead = { count, sources, sourceOf, starts, ends, clipIndexes, hasClip, offsets, lengths, speakers, languages });
  }
}

interface BlockColumns {
  count: number;
  sources: SegmentSource[];
  sourceOf: Uint8Array | number[];
  starts: Float64Array;
  ends: Float64Array;
  clipIndexes: Float64Array;
  hasClip: Uint8Array;
  /** Where each text starts in the region, and its length, in UTF-16 units. */
  offsets: Uint32Array;
  lengths: Uint32Array;
  /** Who speaks each segment, and the language each is in. */
  speakers: BlockLabels;
  languages: BlockLabels;
}

/**
 * The segments of a window [start, end) from the blocks that may hold them (each with its place among the video's
 * blocks): those overlapping it, or of no length and inside it, by start and then in the order written. This was the
 * segments table's condition and order before both stores packed segments.
 */
export function segmentsInWindow(blocks: { blockIndex: number; view: SegmentBlockView }[], startSecond: number, endSecond: number): (Segment & { source: SegmentSource })[] {
  const found: { segment: Segment & { source: SegmentSource }; position: number }[] = [];
  for (const { blockIndex, view } of blocks) {
    for (let index = 0; index < view.count; index++) {
      const start = view.startSecond(index);
      if (start < endSecond && (view.endSecond(index) > startSecond || start >= startSecond)) {
        found.push({ segment: view.segment(index), position: blockIndex * segmentsPerBlock + index });
      }
    }
  }
  return found.sort((a, b) => a.segment.startSecond - b.segment.startSecond || a.position - b.position).map(({ segment }) => segment);
}

/** Whether a block with these bounds may hold a segment of the window [start, end) (see `segmentsInWindow`). */
export function blockMayHold(block: { minStartSecond: number; maxStartSecond: number; maxEndSecond: number }, startSecond: number, endSecond: number): boolean {
  return block.minStartSecond < endSecond && (block.maxEndSecond > startSecond || block.maxStartSecond >= startSecond);
}

/** A clip transcript as the segments it was made of: the speech segments between two positions, joined by newlines. */
export interface TranscriptRun {
  first: number;
  last: number;
}

/** The transcript a run stands for, given the video's segment blocks by index. */
export function joinTranscript(blockAt: (blockIndex: number) => SegmentBlockView | undefined, run: TranscriptRun): string {
  const texts: string[] = [];
  for (let position = run.first; position <= run.last; position++) {
    const block = blockAt(Math.floor(position / segmentsPerBlock));
    const index = position % segmentsPerBlock;
    if (!block || index >= block.count) throw new Error(`a clip transcript names segment ${position}, which is not stored`);
    if (!nonSpeechSources.has(block.source(index))) texts.push(block.text(index));
  }
  return texts.join("\n");
}

/**
 * Each transcript as a run of the video's speech segments, where joining that run gives it back exactly; undefined where
 * none does (the caller stores the text). Clips come in time order and so do their segments (ingest gives each line to
 * the clip holding its midpoint), so each search starts where the last run ended and usually succeeds at once.
 */
export function transcriptRuns(transcripts: string[], segments: Segment[]): (TranscriptRun | undefined)[] {
  const speech = segments.flatMap((segment, position) => (isSpeech(segment) ? [{ position, text: storedText(segment.text) }] : []));
  /** The run of speech segments from `start` whose join is `text`, as positions among all segments. */
  const runFrom = (start: number, text: string): TranscriptRun | undefined => {
    let length = 0;
    for (let index = start; index < speech.length; index++) {
      const piece = (speech[index] as { text: string }).text;
      const at = index === start ? 0 : length + 1;
      if (index > start && text.charCodeAt(length) !== 10) return undefined;
      if (!text.startsWith(piece, at)) return undefined;
      length = at + piece.length;
      if (length === text.length) {
        return { first: (speech[start] as { position: number }).position, last: (speech[index] as { position: number }).position };
      }
    }
    return undefined;
  };
  let next = 0;
  return transcripts.map((transcript) => {
    const text = storedText(transcript);
    if (text === "") return undefined;
    let run = runFrom(next, text);
    for (let start = 0; !run && start < speech.length; start++) if (start !== next) run = runFrom(start, text);
    if (run) next = speech.findIndex((entry) => entry.position === run.last) + 1;
    return run;
  });
}

/**
 * A video's segment texts as chunks are packed against them: each block's region, and which blocks hold the segments
 * of a stretch of time. Made from the segments as stored (or about to be), in the order written.
 */
export class SegmentText {
  readonly regions: string[] = [];
  private readonly times: { startSecond: number; endSecond: number }[];

  constructor(segments: Segment[]) {
    this.times = segments.map((segment) => ({ startSecond: asReal(segment.startSecond), endSecond: asReal(segment.endSecond) }));
    for (let first = 0; first < segments.length; first += segmentsPerBlock) {
      this.regions.push(blockRegion(segments.slice(first, first + segmentsPerBlock).map((segment) => storedText(String(segment.text)))));
    }
  }

  /** The blocks holding the segments that overlap [start, end], as [first, last]; undefined when none does. */
  blocksOverlapping(startSecond: number, endSecond: number): [number, number] | undefined {
    let first = -1;
    let last = -1;
    this.times.forEach((time, position) => {
      if (time.startSecond > endSecond || time.endSecond < startSecond) return;
      if (first < 0) first = position;
      last = position;
    });
    return first < 0 ? undefined : [Math.floor(first / segmentsPerBlock), Math.floor(last / segmentsPerBlock)];
  }
}

/** The text chunks are pieces of: the regions of some consecutive blocks, joined by spaces as inside a block. */
const chunkSource = (regions: string[]): PieceSource => new PieceSource(regions.join(" "));

/**
 * A chunk's text as pieces of the text of the segments in its time span (see `encodePieces`): a chunk repeats what its
 * clips said with their times and labels between, so it costs a reference per clip and the labels' characters.
 * Undefined when that is no shorter or does not give the text back.
 *
 * Format: a varint first block and a varint block count, then the pieces over those blocks' regions.
 */
export function packChunkText(text: string, segments: SegmentText, startSecond: number, endSecond: number): Buffer | undefined {
  const blocks = segments.blocksOverlapping(startSecond, endSecond);
  if (!blocks) return undefined;
  const [first, last] = blocks;
  const pieces = encodePieces(text, chunkSource(segments.regions.slice(first, last + 1)));
  if (!pieces) return undefined;
  const header = new ByteWriter();
  header.varint(first);
  header.varint(last - first + 1);
  return Buffer.concat([header.done(), pieces]);
}

/** The blocks a packed chunk's text refers to, as [first, last]. */
export function chunkTextBlocks(packed: Buffer): [number, number] {
  const reader = new ByteReader(packed);
  const first = reader.varint();
  return [first, first + reader.varint() - 1];
}

/** A chunk's text, given the regions of the blocks `chunkTextBlocks` names, in order. */
export function unpackChunkText(packed: Buffer, regions: string[]): string {
  const reader = new ByteReader(packed);
  reader.varint();
  reader.varint();
  return decodePieces(packed.subarray(reader.offset), chunkSource(regions).text);
}

/**
 * Text put before a chunk's text for excerpts to refer to: what the lite extractor writes around its excerpts. Part of
 * the file format; a reference into it must keep meaning the same characters.
 */
const excerptPreamble = "mentioned together: …";

/** Shortest stretch worth a reference (3–5 bytes) rather than its characters. */
const shortestReference = 8;

/** A chunk's text as excerpts refer to it: after `excerptPreamble`. */
export function excerptSource(chunkText: string): PieceSource {
  return new PieceSource(excerptPreamble + storedText(chunkText));
}

/**
 * A description as pieces of its chunk's text (after `excerptPreamble`): graph sources quote the chunk that stated
 * them, so most are one or two references. Undefined when that is no shorter or does not give the text back.
 */
export function encodeExcerpt(description: string, chunk: PieceSource): Buffer | undefined {
  return encodePieces(description, chunk);
}

/** The description an excerpt stands for, given the text of its chunk as stored. */
export function decodeExcerpt(encoded: Buffer, chunkText: string): string {
  return decodePieces(encoded, excerptPreamble + chunkText);
}

/**
 * Text as pieces of a source text: runs of the source named by offset and length, and the characters found nowhere
 * there. Undefined when the pieces would be no shorter than the text, or do not give it back exactly.
 *
 * Format: a sequence of pieces, each a varint `length << 1 | isReference`, then for a reference a varint offset (in
 * UTF-16 code units of the source), for characters that many UTF-8 bytes.
 */
function encodePieces(original: string, source: PieceSource): Buffer | undefined {
  const text = storedText(original);
  if (text.length < shortestReference) return undefined;
  const writer = new ByteWriter();
  let literalFrom = 0;
  const flushLiteral = (until: number): void => {
    if (until <= literalFrom) return;
    const bytes = Buffer.from(text.slice(literalFrom, until), "utf8");
    writer.varint(bytes.length * 2);
    writer.bytes(bytes);
  };
  let position = 0;
  while (position < text.length) {
    const match = source.longestMatch(text, position);
    if (!match) {
      position++;
      continue;
    }
    flushLiteral(position);
    writer.varint(match.length * 2 + 1);
    writer.varint(match.offset);
    position += match.length;
    literalFrom = position;
  }
  flushLiteral(text.length);
  const encoded = writer.done();
  if (encoded.length >= Buffer.byteLength(text, "utf8")) return undefined;
  const copy = Buffer.from(encoded);
  return decodePieces(copy, source.text) === text ? copy : undefined;
}

function decodePieces(encoded: Buffer, source: string): string {
  const reader = new ByteReader(encoded);
  let text = "";
  while (reader.offset < encoded.length) {
    const header = reader.varint();
    const length = Math.floor(header / 2);
    if (header % 2 === 1) {
      const offset = reader.varint();
      if (offset + length > source.length) throw new Error("packed text points past its source");
      text += source.slice(offset, offset + length);
    } else {
      text += reader.text(length);
    }
  }
  return text;
}

/** A text that other texts are stored as pieces of. */
export class PieceSource {
  constructor(readonly text: string) {}

  /** The longest stretch of `text` from `from` that occurs in the source, if one is at least `shortestReference` long. */
  longestMatch(text: string, from: number): { offset: number; length: number } | undefined {
    if (text.length - from < shortestReference) return undefined;
    const probe = text.slice(from, from + shortestReference);
    let best: { offset: number; length: number } | undefined;
    for (let start = this.text.indexOf(probe); start >= 0; start = this.text.indexOf(probe, start + 1)) {
      let length = shortestReference;
      while (from + length < text.length && text.charCodeAt(from + length) === this.text.charCodeAt(start + length)) length++;
      if (!best || length > best.length) best = { offset: start, length };
      if (from + length === text.length) break;
    }
    return best;
  }
}

const frameHashBytes = 1;
const frameHashText = 2;
const frameMillis = 4;

/**
 * A video's kept frames as one value (schema version 9), in time order: a flags byte each, then its time — whole
 * milliseconds where that gives the number back exactly, as a varint of the step from the last time so written, else
 * the double — then its hash, 8 bytes where
 * it is the usual 16 lowercase hex digits, else its text. A row per frame cost some 45 bytes with its index; this
 * costs ~11.
 */
export function encodeFrames(frames: { timeSecond: number; hash?: string }[]): Buffer {
  const writer = new ByteWriter();
  const ordered = [...frames].sort((a, b) => a.timeSecond - b.timeSecond);
  writer.varint(ordered.length);
  let previousMillis = 0;
  for (const frame of ordered) {
    const time = asReal(checkedSecond(frame.timeSecond));
    const millis = Math.round(time * 1000);
    const exactMillis = millis >= 0 && Number.isSafeInteger(millis) && millis / 1000 === time;
    const hash = frame.hash;
    const hashFlag = hash === undefined || hash === "" ? 0 : /^[0-9a-f]{16}$/.test(hash) ? frameHashBytes : frameHashText;
    writer.byte((exactMillis ? frameMillis : 0) | hashFlag);
    if (exactMillis) {
      writer.varint(millis - previousMillis);
      previousMillis = millis;
    } else writer.double(time);
    if (hashFlag === frameHashBytes) writer.bytes(Buffer.from(hash as string, "hex"));
    else if (hashFlag === frameHashText) {
      const bytes = Buffer.from(hash as string, "utf8");
      writer.varint(bytes.length);
      writer.bytes(bytes);
    }
  }
  return writer.done();
}

/** The frames of a packed list in the window [start, end), in time order. */
export function framesInWindow(data: Buffer, startSecond: number, endSecond: number): { timeSecond: number; hash?: string }[] {
  return decodeFrames(data).filter((frame) => frame.timeSecond >= startSecond && frame.timeSecond < endSecond);
}

export function decodeFrames(data: Buffer): { timeSecond: number; hash?: string }[] {
  const reader = new ByteReader(data);
  const count = reader.varint();
  const frames: { timeSecond: number; hash?: string }[] = [];
  let previousMillis = 0;
  for (let index = 0; index < count; index++) {
    const flags = reader.byte();
    if (flags & frameMillis) previousMillis += reader.varint();
    const timeSecond = flags & frameMillis ? previousMillis / 1000 : reader.double();
    let hash: string | undefined;
    if (flags & frameHashBytes) hash = reader.hex(8);
    else if (flags & frameHashText) hash = reader.text(reader.varint());
    frames.push(hash === undefined ? { timeSecond } : { timeSecond, hash });
  }
  return frames;
}
