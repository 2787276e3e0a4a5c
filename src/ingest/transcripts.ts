// Ingest of a folder of transcripts (`<id>.txt|.srt|.vtt`), each standing for an online video known only by what was
// said in it: the id is the file stem, subtitles keep their times, plain text gets times estimated from its length.

import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { decodeSubtitleBytes, parseSubtitleText, planClips } from "../media/index.js";
import { VideoRagError, toVideoRagError } from "../spec/index.js";
import { buildLiteVideoGraph, buildVideoGraph } from "../graph/index.js";
import { buildChapters, chapterVectors } from "../summary/index.js";
import { identifyLanguage } from "../text/index.js";
import type { ClipDocument, Segment, Store, VideoGraph } from "../spec/index.js";
import { buildClipDocuments } from "./clip-documents.js";
import type { GraphSettings } from "./graph-stage.js";
import type { IngestOptions, IngestResult } from "./types.js";

export interface TranscriptIngestOptions extends IngestOptions {
  /** Length of the clips retrieval ranks; default 30. */
  clipSeconds?: number;
  /** How the knowledge graph is read; the lite extractor with 1,200-token chunks when absent. */
  graph?: GraphSettings;
}

/** A typical speaking rate; plain-text transcripts have no times, so a line's place in time is estimated from it. */
export const estimatedWordsPerSecond = 2.5;

/** Longer lines (many transcripts are one paragraph per file) are cut at sentence ends, then into pieces this long. */
const maxSegmentWords = 30;

const timedExtensions = new Set([".srt", ".vtt"]);
const transcriptExtensions = new Set([".txt", ...timedExtensions]);

/** Splits a long line into sentences, and sentences still too long into near-equal pieces, as word lists. */
function splitLine(words: string[]): string[][] {
  if (words.length <= maxSegmentWords) return [words];
  const sentences: string[][] = [[]];
  for (const word of words) {
    sentences[sentences.length - 1]?.push(word);
    if (/[.!?]["')\]]*$/.test(word)) sentences.push([]);
  }
  return sentences.flatMap((sentence) => {
    if (sentence.length === 0) return [];
    const pieces = Math.ceil(sentence.length / maxSegmentWords);
    const size = Math.ceil(sentence.length / pieces);
    return Array.from({ length: pieces }, (_, piece) => sentence.slice(piece * size, (piece + 1) * size));
  });
}

/** Segments of a plain-text transcript: one per line (long lines split), timed at `estimatedWordsPerSecond`. */
export function segmentsFromPlainText(text: string): Segment[] {
  const segments: Segment[] = [];
  let second = 0;
  for (const line of text.replace(/^\uFEFF/, "").split(/\r\n?|\n/)) {
    const words = line.split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    for (const piece of splitLine(words)) {
      const durationSeconds = piece.length / estimatedWordsPerSecond;
      segments.push({ startSecond: second, endSecond: second + durationSeconds, text: piece.join(" "), source: "transcript" });
      second += durationSeconds;
    }
  }
  return segments;
}

interface TranscriptFile {
  path: string;
  id: string;
  timed: boolean;
}

/** Lists the folder: transcripts to ingest, and a skipped result for everything else so nothing is ignored silently. */
async function listTranscripts(dir: string): Promise<{ files: TranscriptFile[]; skipped: IngestResult[] }> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new VideoRagError(
      code === "ENOTDIR" ? "INPUT_UNSUPPORTED" : "INPUT_NOT_FOUND",
      code === "ENOTDIR" ? `${dir} is not a folder of transcripts` : `cannot read the folder ${dir}`,
      { cause: error, subject: dir },
    );
  }
  const skipped: IngestResult[] = [];
  const skip = (path: string, note: string): void => {
    skipped.push({ path, status: "skipped", durationSeconds: 0, clipCount: 0, stageSeconds: {}, warnings: [], notes: [note] });
  };
  const byId = new Map<string, TranscriptFile>();
  const names = entries.filter((entry) => entry.isFile() || entry.isSymbolicLink()).map((entry) => entry.name).sort();
  for (const name of names) {
    const path = join(dir, name);
    const extension = extname(name).toLowerCase();
    if (!transcriptExtensions.has(extension) || name.length === extension.length) {
      skip(path, "not a .txt, .srt or .vtt transcript");
      continue;
    }
    const file = { path, id: name.slice(0, -extension.length), timed: timedExtensions.has(extension) };
    const earlier = byId.get(file.id);
    // Two files for one video: timed subtitles beat plain text, otherwise the first name wins.
    if (earlier && (earlier.timed || !file.timed)) {
      skip(path, `another transcript of "${file.id}" is used: ${earlier.path}`);
      continue;
    }
    if (earlier) skip(earlier.path, `another transcript of "${file.id}" is used: ${path}`);
    byId.set(file.id, file);
  }
  return { files: [...byId.values()].sort((a, b) => a.path.localeCompare(b.path)), skipped };
}

/** The transcript's graph: through the configured language model, or the lite extractor (no model, no waiting). */
async function transcriptGraph(
  documents: ClipDocument[],
  settings: GraphSettings | undefined,
  language: string | undefined,
  signal?: AbortSignal,
): Promise<VideoGraph> {
  const maxTokens = settings?.chunkTokens ?? 1200;
  if (!settings?.model) return buildLiteVideoGraph(documents, { maxTokens, language });
  const { graph } = await buildVideoGraph(documents, { model: settings.model, embedder: settings.embedder, glean: settings.glean, maxTokens, signal, language });
  return { ...graph, mergeDistance: settings.mergeDistance };
}

async function ingestOne(store: Store, file: TranscriptFile, options: TranscriptIngestOptions & { clipSeconds: number }): Promise<IngestResult> {
  const { clipSeconds } = options;
  const started = performance.now();
  const result: IngestResult = {
    path: file.path,
    videoId: file.id,
    status: "ingested",
    durationSeconds: 0,
    clipCount: 0,
    stageSeconds: {},
    warnings: [],
    notes: [],
  };
  let content: Buffer;
  try {
    content = await readFile(file.path);
  } catch (error) {
    return { ...result, status: "failed", error: { code: "INPUT_NOT_FOUND", message: `cannot read ${file.path}: ${String(error)}` } };
  }
  const fingerprint = createHash("sha256").update(content).digest("hex");
  if ((await store.getFingerprint(file.id)) === fingerprint) {
    const video = await store.getVideo(file.id);
    return { ...result, status: "unchanged", durationSeconds: video?.durationSeconds ?? 0, clipCount: video?.clipCount ?? 0 };
  }
  let text: string;
  try {
    text = decodeSubtitleBytes(content, file.path);
  } catch (error) {
    const failure = toVideoRagError(error);
    return { ...result, status: "failed", error: { code: failure.code, message: `${file.path}: ${failure.message}` } };
  }
  const segments = file.timed
    ? parseSubtitleText(text).map((cue) => ({ ...cue, source: "transcript" as const }))
    : segmentsFromPlainText(text);
  if (segments.length === 0) {
    const message = file.timed ? `${file.path} has no subtitle cues` : `${file.path} has no text`;
    return { ...result, status: "failed", error: { code: "INPUT_EMPTY", message } };
  }
  const durationSeconds = Math.max(...segments.map((segment) => segment.endSecond));
  const clips = planClips(durationSeconds, clipSeconds);
  const documents = buildClipDocuments(file.id, clips, segments);
  const language = await identifyLanguage(segments.map((segment) => segment.text));
  const graph = await transcriptGraph(documents, options.graph, language, options.signal);
  const chapters = buildChapters({ segments, durationSeconds });
  const embedder = options.graph?.embedder;
  const vectors = embedder ? await chapterVectors(file.id, chapters, embedder, { signal: options.signal }) : [];
  await store.commitVideo({
    video: {
      id: file.id,
      path: resolve(file.path),
      title: file.id,
      ...(language ? { language } : {}),
      durationSeconds,
      kind: "transcript",
      sizeBytes: content.length,
      hasAudio: false,
      hasVideo: false,
      timesEstimated: !file.timed,
    },
    clips: documents,
    // A transcript is one text: its lines are in the language it reads as.
    segments: language ? segments.map((segment) => ({ ...segment, language })) : segments,
    frames: [],
    graph,
    fingerprint,
    chapters,
    vectors,
  });
  result.notes.push(
    file.timed
      ? `transcript: ${segments.length} timed cues`
      : `transcript: ${segments.length} lines, times estimated at ${estimatedWordsPerSecond} words per second`,
  );
  return {
    ...result,
    durationSeconds,
    clipCount: clips.length,
    stageSeconds: { transcript: (performance.now() - started) / 1000 },
  };
}

/**
 * Ingests every `<id>.txt|.srt|.vtt` in a folder (not its subfolders) as a video of kind "transcript". An unchanged
 * file (same sha256) is left as it is; a changed one replaces the earlier version. One result per file; bad files fail
 * alone, a folder that cannot be read throws.
 */
export async function ingestTranscripts(
  store: Store,
  dir: string,
  options: TranscriptIngestOptions = {},
): Promise<IngestResult[]> {
  const clipSeconds = options.clipSeconds ?? 30;
  if (!(clipSeconds > 0)) throw new VideoRagError("ARGUMENT_INVALID", `clipSeconds must be > 0, not ${clipSeconds}`);
  const emit = options.onProgress ?? (() => undefined);
  const { files, skipped } = await listTranscripts(dir);
  const results: IngestResult[] = [...skipped];
  for (const [position, file] of files.entries()) {
    options.signal?.throwIfAborted();
    emit({ type: "video-start", path: file.path, position, total: files.length });
    let result: IngestResult;
    try {
      result = await ingestOne(store, file, { ...options, clipSeconds });
    } catch (error) {
      const failure = toVideoRagError(error);
      // The store failing is not this file's fault: stop rather than fail the rest one by one.
      if (failure.code.startsWith("STORE_")) throw failure;
      result = { path: file.path, videoId: file.id, status: "failed", error: { code: failure.code, message: failure.message }, durationSeconds: 0, clipCount: 0, stageSeconds: {}, warnings: [], notes: [] };
    }
    results.push(result);
    emit({ type: "video-done", result });
  }
  return results;
}
