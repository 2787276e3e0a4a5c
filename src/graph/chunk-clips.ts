// A video's clip documents → chunks of consecutive clips under a token budget: the unit entities are read from. Each
// clip is written as one block (its time range, then what was seen, said and shown), so an extractor sees one stretch of
// the video at a time with its times.

import type { Chunk, ClipDocument } from "../spec/index.js";
import { splitSentences } from "../text/index.js";

/** Chunk budget when none is given: room for a few minutes of speech, well inside any chat model's context. */
export const defaultChunkTokens = 1200;

/**
 * A clip over budget by at most this factor stays whole as its own chunk: a little extra context costs less than
 * cutting its text apart. Beyond it (one long clip holding a whole transcript) it is split so no chunk overruns a model.
 */
const wholeClipOverrun = 1.5;

/** Tokens per whitespace-separated word, as the budget counts them: close to GPT-style tokenizers on English. */
const tokensPerWord = 1.3;

/** Labels of a clip block's parts; `chunkBodyText` strips exactly these. */
const partLabels = { visual: "Seen", transcript: "Said", screen: "On screen" } as const;
type Part = keyof typeof partLabels;
const partOrder: Part[] = ["visual", "transcript", "screen"];
/** How each channel's lines are joined: speech runs on, labels and on-screen lines are separate items. */
const lineJoiners: Record<Part, string> = { visual: "; ", transcript: " ", screen: " / " };

/** Approximate tokens in `text`: words × 1.3, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(countWords(text) * tokensPerWord);
}

export interface ChunkClipsOptions {
  /** Most tokens (words × 1.3) a chunk holds. Default 1200. */
  maxTokens?: number;
}

/**
 * Groups consecutive clips (in index order) into chunks of at most `maxTokens`. A clip with no text adds nothing but
 * joins the chunk of the next clip with text (trailing ones join the last chunk), so chunk clip ranges stay contiguous;
 * a video with no text at all has no chunks. A clip over budget is a chunk of its own, and one far over budget
 * (more than 1.5×) is split between sentences (between words inside a long sentence) into several chunks that all
 * cover that clip, each within budget and starting with the clip's time range.
 */
export function chunkClips(clips: ClipDocument[], options: ChunkClipsOptions = {}): Omit<Chunk, "videoId">[] {
  const maxTokens = Math.max(1, options.maxTokens ?? defaultChunkTokens);
  const ordered = [...clips].sort((a, b) => a.index - b.index);
  const chunks: Omit<Chunk, "videoId">[] = [];
  /** The chunk being filled, while another clip may still join it. */
  let open: { first: ClipDocument; last: ClipDocument; blocks: string[]; words: number } | undefined;
  /** Clips with no text waiting for the next chunk. */
  let pending: ClipDocument[] = [];

  const close = (): void => {
    if (!open) return;
    chunks.push(makeChunk(chunks.length, open.first, open.last, open.blocks.join("\n\n")));
    open = undefined;
  };

  for (const clip of ordered) {
    const parts = clipParts(clip);
    if (parts.length === 0) {
      pending.push(clip);
      continue;
    }
    const block = renderBlock(clip, parts);
    const words = countWords(block);
    const first = pending[0] ?? clip;
    pending = [];
    if (open && tokensFor(open.words + words) <= maxTokens) {
      open.blocks.push(block);
      open.last = clip;
      open.words += words;
      continue;
    }
    close();
    if (tokensFor(words) > maxTokens * wholeClipOverrun) {
      const pieces = splitClip(clip, parts, maxTokens);
      pieces.forEach((piece, index) => {
        chunks.push(makeChunk(chunks.length, index === 0 ? first : clip, clip, piece));
      });
      continue;
    }
    open = { first, last: clip, blocks: [block], words };
  }
  close();
  const tail = pending[pending.length - 1];
  const last = chunks[chunks.length - 1];
  if (tail && last) {
    last.clipEnd = tail.index;
    last.endSecond = tail.endSecond;
  }
  return chunks;
}

/**
 * A chunk's text without time ranges and part labels: what was seen, said and shown, for extractors reading words. A
 * caption quoting the screen ("Seen: On screen: …") loses both labels.
 */
export function chunkBodyText(text: string): string {
  return text.replace(/^\[[^\]\n]*\]$/gm, "").replace(/^(?:(?:Seen|Said|On screen): )+/gm, "");
}

function makeChunk(index: number, first: ClipDocument, last: ClipDocument, text: string): Omit<Chunk, "videoId"> {
  return {
    index,
    clipStart: first.index,
    clipEnd: last.index,
    startSecond: first.startSecond,
    endSecond: last.endSecond,
    text,
    tokenCount: estimateTokens(text),
  };
}

function tokensFor(words: number): number {
  return Math.ceil(words * tokensPerWord);
}

function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    // Space, tab, newline, carriage return, form feed, vertical tab, no-break space.
    const space = code === 32 || (code >= 9 && code <= 13) || code === 160;
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words;
}

interface ClipPart {
  part: Part;
  text: string;
}

function clipParts(clip: ClipDocument): ClipPart[] {
  const parts: ClipPart[] = [];
  for (const part of partOrder) {
    const text = clip[part]
      .split("\n")
      .map((line) => line.replace(/\s+/g, " ").trim())
      .filter((line) => line !== "")
      .join(lineJoiners[part]);
    if (text !== "") parts.push({ part, text });
  }
  return parts;
}

function timeRange(clip: ClipDocument): string {
  return `[${clock(clip.startSecond)}–${clock(clip.endSecond)}]`;
}

function renderBlock(clip: ClipDocument, parts: ClipPart[]): string {
  return [timeRange(clip), ...parts.map(({ part, text }) => `${partLabels[part]}: ${text}`)].join("\n");
}

/** m:ss, or h:mm:ss from an hour on. */
function clock(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const secondsPart = String(whole % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${secondsPart}` : `${minutes}:${secondsPart}`;
}

/**
 * One clip's text as several blocks within budget: its parts' sentences in order (a sentence over budget cut between
 * words), packed greedily, each block headed by the time range and the labels of the parts it holds.
 */
function splitClip(clip: ClipDocument, parts: ClipPart[], maxTokens: number): string[] {
  const header = timeRange(clip);
  const labelWords = (part: Part): number => countWords(`${partLabels[part]}:`);
  // Room left for text after the header and one label; at least one word so the split always advances.
  const room = (part: Part): number => Math.max(1, Math.floor(maxTokens / tokensPerWord) - countWords(header) - labelWords(part));

  const pieces: string[] = [];
  let lines: { part: Part; sentences: string[] }[] = [];
  let words = countWords(header);
  const flush = (): void => {
    if (lines.length === 0) return;
    pieces.push([header, ...lines.map((line) => `${partLabels[line.part]}: ${line.sentences.join(" ")}`)].join("\n"));
    lines = [];
    words = countWords(header);
  };

  for (const { part, text } of parts) {
    for (const sentence of sentencesWithin(text, room(part))) {
      const sentenceWords = countWords(sentence);
      const current = lines[lines.length - 1];
      const extra = current?.part === part ? sentenceWords : sentenceWords + labelWords(part);
      if (lines.length > 0 && tokensFor(words + extra) > maxTokens) flush();
      const line = lines[lines.length - 1];
      if (line?.part === part) line.sentences.push(sentence);
      else lines.push({ part, sentences: [sentence] });
      words += line?.part === part ? sentenceWords : sentenceWords + labelWords(part);
    }
  }
  flush();
  return pieces;
}

/** Sentences of `text` (ended in any script: "。" too), each cut into runs of at most `maxWords` words. */
function sentencesWithin(text: string, maxWords: number): string[] {
  const sentences = splitSentences(text);
  const out: string[] = [];
  for (const sentence of sentences) {
    const words = sentence.split(/\s+/).filter((word) => word !== "");
    for (let start = 0; start < words.length; start += maxWords) out.push(words.slice(start, start + maxWords).join(" "));
  }
  return out;
}
