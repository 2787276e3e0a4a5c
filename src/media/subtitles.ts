// Subtitles of a video, from wherever they are: a sidecar .srt/.vtt/.ass file, an embedded text stream, or an embedded
// bitmap stream (DVD VobSub, Blu-ray PGS) rendered to images for an OCR function the caller injects.

import { readdir, readFile } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { VideoRagError } from "../spec/index.js";
import { languageFromFileName, languageFromTag } from "../text/language.js";
import { ffmpegPath } from "./ffmpeg-path.js";
import { realPathWithin } from "./path-inside.js";
import { cropGray, encodeGrayPng, enlargeGray, type GrayImage } from "./gray-image.js";
import type { MediaInfo, SubtitleStreamInfo } from "./probe.js";
import { runProcess } from "./run-process.js";
import { cleanCueText, parseSubtitleText, type SubtitleCue } from "./subtitle-parse.js";

/** One bitmap subtitle, rendered dark on white for OCR, with the time it is on screen. */
export interface BitmapSubtitle {
  startSecond: number;
  endSecond: number;
  /** Grayscale PNG cropped to the text, dark text on a white background. */
  image: Buffer;
}

/** Subtitles found for a video and where they came from. */
export interface SubtitleResult {
  source: "sidecar" | "embedded-text" | "embedded-bitmap" | "none";
  cues: SubtitleCue[];
  /** For the user: which file or stream, or why none was used. */
  detail: string;
  /** The language (ISO 639-1) the stream's tag or the sidecar's name gives ("talk.de.srt"); absent when neither does. */
  language?: string;
}

export interface ReadSubtitlesOptions {
  /** Reads the text in a subtitle image (PNG); without it bitmap subtitle streams are skipped. */
  recognize?: (image: Buffer, language?: string) => Promise<string>;
  /** How many images `recognize` is given at once. */
  concurrency?: number;
  signal?: AbortSignal;
  /** Real folders a sidecar file must resolve inside, after symbolic links (the server's media roots); others are ignored. */
  confineTo?: string[];
}

// SRT and WebVTT first: where a video has both, the ASS file is usually the styled copy of the same lines.
const sidecarExtensions = [".srt", ".vtt", ".ass", ".ssa"];
const englishTag = /^(en|eng|english)([-_][a-z]{2,4})?$/i;

/**
 * A subtitle file beside the video with the same stem: `talk.srt` or `talk.vtt` first, then `talk.en.srt` (any
 * English tag), then any other `talk.<tag>.srt`; `.ass`/`.ssa` files count too, after SRT and WebVTT at the same
 * rank. Undefined when there is none.
 */
export async function findSidecarSubtitles(videoPath: string): Promise<string | undefined> {
  const directory = dirname(videoPath);
  const stem = basename(videoPath, extname(videoPath));
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return undefined;
  }
  const ranked: { name: string; rank: number; format: number }[] = [];
  for (const name of names) {
    const extension = extname(name).toLowerCase();
    if (!sidecarExtensions.includes(extension) || !name.startsWith(stem)) continue;
    const format = extension === ".ass" || extension === ".ssa" ? 1 : 0;
    const middle = name.slice(stem.length, name.length - extension.length);
    if (middle === "") ranked.push({ name, rank: 0, format });
    else if (middle.startsWith(".")) ranked.push({ name, rank: englishTag.test(middle.slice(1).split(".")[0] ?? "") ? 1 : 2, format });
  }
  ranked.sort((a, b) => a.rank - b.rank || a.format - b.format || a.name.length - b.name.length || a.name.localeCompare(b.name));
  const best = ranked[0];
  return best ? join(directory, best.name) : undefined;
}

/** Cues of a subtitle file, in whichever encoding it was written (see decodeSubtitleBytes). */
export async function readSubtitleFile(subtitlePath: string): Promise<SubtitleCue[]> {
  let bytes: Buffer;
  try {
    bytes = await readFile(subtitlePath);
  } catch (error) {
    throw new VideoRagError("INPUT_NOT_FOUND", "cannot read the subtitle file", { cause: error, subject: subtitlePath });
  }
  return parseSubtitleText(decodeSubtitleBytes(bytes, subtitlePath));
}

/**
 * Cues of an embedded text subtitle stream (SubRip, mov_text, ASS, WebVTT...), converted to SRT by ffmpeg. ffmpeg's
 * conversion drops who speaks (WebVTT voice spans, the ASS Name field), so given the stream's `codec`, ASS/SSA
 * streams are read as ASS and WebVTT streams copied as they are; should that fail or give nothing, SRT it is.
 */
export async function extractTextSubtitles(
  path: string,
  subtitleIndex: number,
  options: { signal?: AbortSignal; codec?: string } = {},
): Promise<SubtitleCue[]> {
  const extract = async (format: string[]): Promise<SubtitleCue[]> => {
    const result = await runProcess(
      "ffmpeg",
      ["-hide_banner", "-nostdin", "-v", "error", "-i", ffmpegPath(path), "-map", `0:s:${subtitleIndex}`, ...format, "-"],
      { signal: options.signal },
    );
    return parseSubtitleText(result.stdout.toString("utf8"));
  };
  const native = speakerKeepingFormats[options.codec ?? ""];
  if (native) {
    const cues = await extract(native).catch((error: unknown) => {
      if (options.signal?.aborted) throw error;
      // The SRT conversion below is the long-tested path: a stream that it cannot read either fails there.
      return [];
    });
    if (cues.length > 0) return cues;
  }
  return extract(["-c:s", "subrip", "-f", "srt"]);
}

// Output formats that keep the speaker, by the stream's codec; others convert to SRT.
const speakerKeepingFormats: Record<string, string[]> = {
  ass: ["-c:s", "ass", "-f", "ass"],
  ssa: ["-c:s", "ass", "-f", "ass"],
  webvtt: ["-c:s", "copy", "-f", "webvtt"],
};

/**
 * Renders each cue of a bitmap subtitle stream (dvd_subtitle, hdmv_pgs_subtitle) to an OCR-friendly image.
 * ffmpeg's sub2video turns the stream into frames only when the picture changes, so one run over the subtitle packets
 * (the video is not decoded) yields every cue; a cue lasts until the next change (a PGS "clear", a VobSub stop time,
 * or the next cue). Frames are cropped to the text as they stream in, so a film's worth never sits in memory.
 */
export async function renderBitmapSubtitles(
  path: string,
  subtitleIndex: number,
  options: { signal?: AbortSignal } = {},
): Promise<BitmapSubtitle[]> {
  const canvas = await readCanvas(path, subtitleIndex, options.signal);
  const frameSize = canvas.width * canvas.height;
  const renders: (GrayImage | undefined)[] = [];
  const frame = Buffer.alloc(frameSize);
  let filled = 0;
  const result = await runProcess(
    "ffmpeg",
    [
      "-hide_banner", "-nostdin", "-nostats", "-loglevel", "info",
      "-i", ffmpegPath(path),
      // The fixed size keeps every frame the same length in the byte stream, even when the decoder changes canvas.
      "-filter_complex", `[0:s:${subtitleIndex}]scale=${canvas.width}:${canvas.height},format=gray,showinfo@cue[cue]`,
      "-map", "[cue]", "-fps_mode", "passthrough", "-f", "rawvideo", "-",
    ],
    {
      signal: options.signal,
      onStdout: (chunk) => {
        let offset = 0;
        while (offset < chunk.length) {
          const copied = chunk.copy(frame, filled, offset, Math.min(chunk.length, offset + frameSize - filled));
          filled += copied;
          offset += copied;
          if (filled === frameSize) {
            renders.push(cropToInk({ width: canvas.width, height: canvas.height, pixels: frame }));
            filled = 0;
          }
        }
      },
    },
  );
  const times = [...result.stderr.matchAll(/^\[showinfo@cue @ [^\]]+\] n:\s*\d+ pts:\s*-?\d+\s+pts_time:(-?[\d.e+-]+)/gm)].map((match) =>
    Number(match[1]),
  );
  // Times come from the log and pictures from the byte stream; if they ever disagree, cue times would be wrong.
  if (times.length !== renders.length) {
    throw new VideoRagError("TOOL_FAILED", `ffmpeg rendered ${renders.length} subtitle pictures but logged ${times.length}`, { subject: path });
  }

  const cues: { startSecond: number; endSecond: number; ink: GrayImage }[] = [];
  let shown: { startSecond: number; ink: GrayImage } | undefined;
  let lastTime = -Infinity;
  renders.forEach((ink, position) => {
    const time = times[position];
    // At the end ffmpeg flushes one more (empty) frame with a wrapped-around time, far past the end or going back.
    if (time === undefined || time < lastTime || time > canvas.durationSeconds + lastCueSeconds) return;
    lastTime = time;
    // sub2video repeats the current picture just before each change; the same picture is the same cue.
    if (shown && ink && sameImage(shown.ink, ink)) return;
    if (shown) cues.push({ ...shown, endSecond: time });
    shown = ink ? { startSecond: time, ink } : undefined;
  });
  if (shown) cues.push({ ...shown, endSecond: Math.min(shown.startSecond + lastCueSeconds, Math.max(shown.startSecond, canvas.durationSeconds)) });

  const enlarge = canvas.height < 720 ? 2 : 1;
  return Promise.all(
    cues.map(async (cue) => ({
      startSecond: cue.startSecond,
      endSecond: cue.endSecond,
      image: await encodeGrayPng(toDarkOnWhite(cue.ink, enlarge)),
    })),
  );
}

/** Cues with the language of the stream or file they came from, where its tag or name gives one. */
const inLanguage = (cues: SubtitleCue[], language: string | undefined): SubtitleCue[] => (language ? cues.map((cue) => ({ ...cue, language })) : cues);

/**
 * Subtitles for a probed video, trying in order a sidecar file, an embedded text stream, and an embedded bitmap
 * stream read with `recognize`. English streams are preferred, then untagged ones. Each cue carries the language of
 * its stream or file where the tag or name gives it.
 */
export async function readSubtitles(path: string, info: MediaInfo, options: ReadSubtitlesOptions = {}): Promise<SubtitleResult> {
  const found = await findSidecarSubtitles(path);
  const sidecar = found && options.confineTo ? await realPathWithin(found, options.confineTo) : found;
  if (sidecar && sidecar !== "outside") {
    const cues = await readSubtitleFile(sidecar);
    const language = languageFromFileName(sidecar);
    if (cues.length > 0) return { source: "sidecar", cues: inLanguage(cues, language), detail: basename(sidecar), ...(language ? { language } : {}) };
  }

  const textStream = preferredStream(info.subtitleStreams.filter((stream) => stream.kind === "text"));
  if (textStream) {
    const cues = await extractTextSubtitles(path, textStream.subtitleIndex, { signal: options.signal, codec: textStream.codec });
    const language = languageFromTag(textStream.language);
    if (cues.length > 0) {
      // Streams in other languages are indexed too, so a question in any of them finds its line; the preferred one
      // names the video's language. Two streams of one language are one text said twice: the preferred is kept.
      const others = info.subtitleStreams.filter(
        (stream) => stream.kind === "text" && stream !== textStream && languageFromTag(stream.language) !== undefined && languageFromTag(stream.language) !== language,
      );
      const more: SubtitleCue[] = [];
      for (const stream of others) {
        const streamCues = await extractTextSubtitles(path, stream.subtitleIndex, { signal: options.signal, codec: stream.codec });
        more.push(...inLanguage(streamCues, languageFromTag(stream.language)));
      }
      const all = [...inLanguage(cues, language), ...more].sort((a, b) => a.startSecond - b.startSecond);
      const detail = [textStream, ...others].map(describeStream).join("; ");
      return { source: "embedded-text", cues: all, detail, ...(language ? { language } : {}) };
    }
  }

  const bitmapStream = preferredStream(info.subtitleStreams.filter((stream) => stream.kind === "bitmap"));
  if (bitmapStream && options.recognize) {
    const recognize = options.recognize;
    // Read in the stream's language where it is tagged (an OCR with that pack reads its letters).
    const streamLanguage = languageFromTag(bitmapStream.language);
    const rendered = await renderBitmapSubtitles(path, bitmapStream.subtitleIndex, { signal: options.signal });
    const texts = await mapWithConcurrency(rendered, options.concurrency ?? 2, async (subtitle) => {
      options.signal?.throwIfAborted();
      // Subtitles never use a vertical bar; OCR reads the capital I of many subtitle fonts as one.
      return cleanCueText(await recognize(subtitle.image, streamLanguage)).replace(/(^|\s)\|(?=\s|$)/g, "$1I");
    });
    const cues = rendered
      .map((subtitle, position) => ({
        startSecond: subtitle.startSecond,
        endSecond: subtitle.endSecond,
        text: texts[position] ?? "",
        ...(streamLanguage ? { language: streamLanguage } : {}),
      }))
      .filter((cue) => cue.text !== "");
    return { source: "embedded-bitmap", cues, detail: `${describeStream(bitmapStream)}, read by OCR`, ...(streamLanguage ? { language: streamLanguage } : {}) };
  }

  const detail = bitmapStream
    ? `only a bitmap subtitle stream (${describeStream(bitmapStream)}), and no OCR to read it`
    : sidecar || textStream
      ? "the subtitles found have no cues"
      : "no sidecar subtitle file and no subtitle stream";
  return { source: "none", cues: [], detail };
}

// How long the last cue of a stream stays up when nothing follows it to say when it ends.
const lastCueSeconds = 5;
// Gray levels at or below this are background, outline or shadow; subtitle text is drawn brighter.
const inkLevel = 48;
// White space kept around the text: tesseract reads glyphs touching the border poorly.
const marginPixels = 12;

/** The frame cropped to the bright (text) pixels plus a margin; undefined for a frame with no text. */
function cropToInk(frame: GrayImage): GrayImage | undefined {
  let left = frame.width;
  let right = -1;
  let top = frame.height;
  let bottom = -1;
  for (let y = 0; y < frame.height; y++) {
    const row = frame.pixels.subarray(y * frame.width, (y + 1) * frame.width);
    let first = -1;
    let last = -1;
    for (let x = 0; x < row.length; x++) {
      if ((row[x] ?? 0) > inkLevel) {
        if (first === -1) first = x;
        last = x;
      }
    }
    if (first === -1) continue;
    left = Math.min(left, first);
    right = Math.max(right, last);
    top = Math.min(top, y);
    bottom = y;
  }
  if (right < 0) return undefined;
  const crop = cropGray(frame, left - marginPixels, top - marginPixels, right - left + 1 + 2 * marginPixels, bottom - top + 1 + 2 * marginPixels);
  // Copied: the frame buffer is reused for the next picture.
  return { ...crop, pixels: Uint8Array.from(crop.pixels) };
}

/** Inverts bright-on-black subtitle text to dark-on-white, stretched to full contrast, enlarged for small canvases. */
function toDarkOnWhite(ink: GrayImage, enlarge: number): GrayImage {
  let brightest = inkLevel + 1;
  for (const value of ink.pixels) brightest = Math.max(brightest, value);
  const pixels = new Uint8Array(ink.pixels.length);
  for (let index = 0; index < pixels.length; index++) {
    pixels[index] = 255 - Math.min(255, Math.round(((ink.pixels[index] ?? 0) * 255) / brightest));
  }
  const inverted = { width: ink.width, height: ink.height, pixels };
  return enlarge > 1 ? enlargeGray(inverted, enlarge) : inverted;
}

function sameImage(a: GrayImage, b: GrayImage): boolean {
  return a.width === b.width && a.height === b.height && Buffer.from(a.pixels.buffer, a.pixels.byteOffset, a.pixels.length).equals(b.pixels);
}

/**
 * The size bitmap subtitles are positioned on, and the file's duration. DVD streams declare their size; PGS streams
 * do not (their packets do), and ffmpeg starts them on the video's size, so the Blu-ray size is assumed: text placed
 * for 1920x1080 would fall off a smaller canvas, while a larger one only adds margin that the crop removes.
 */
async function readCanvas(
  path: string,
  subtitleIndex: number,
  signal: AbortSignal | undefined,
): Promise<{ width: number; height: number; durationSeconds: number }> {
  const result = await runProcess(
    "ffprobe",
    ["-v", "error", "-show_entries", "stream=codec_type,codec_name,width,height:format=duration", "-of", "json", ffmpegPath(path)],
    { signal },
  );
  const output = JSON.parse(result.stdout.toString("utf8")) as {
    streams?: { codec_type?: string; codec_name?: string; width?: number; height?: number }[];
    format?: { duration?: string };
  };
  const streams = output.streams ?? [];
  const durationSeconds = Number(output.format?.duration) || 0;
  const subtitle = streams.filter((stream) => stream.codec_type === "subtitle")[subtitleIndex];
  if (!subtitle) {
    throw new VideoRagError("ARGUMENT_INVALID", `the file has no subtitle stream number ${subtitleIndex}`, { subject: path });
  }
  if (subtitle.width && subtitle.height) return { width: subtitle.width, height: subtitle.height, durationSeconds };
  const video = streams.find((stream) => stream.codec_type === "video" && stream.width && stream.height);
  const width = video?.width ?? 720;
  const height = video?.height ?? 576;
  if (subtitle.codec_name === "hdmv_pgs_subtitle") {
    return { width: Math.max(1920, width), height: Math.max(1080, height), durationSeconds };
  }
  return { width, height, durationSeconds };
}

function preferredStream(streams: SubtitleStreamInfo[]): SubtitleStreamInfo | undefined {
  const rank = (stream: SubtitleStreamInfo): number => (stream.language === undefined ? 1 : englishTag.test(stream.language) ? 0 : 2);
  return [...streams].sort((a, b) => rank(a) - rank(b) || a.subtitleIndex - b.subtitleIndex)[0];
}

function describeStream(stream: SubtitleStreamInfo): string {
  return `stream #${stream.index}: ${stream.codec}${stream.language ? `, ${stream.language}` : ""}`;
}

/**
 * The text of a subtitle file: UTF-8 (with or without a byte order mark), UTF-16 (with a mark, or without one where
 * every other byte of its first kilobyte is zero), else a legacy single-byte encoding: Windows-1251 where most letters
 * are high bytes (Cyrillic), Windows-1252 (a superset of Latin-1) otherwise. INPUT_CORRUPT for binary data.
 */
export function decodeSubtitleBytes(bytes: Uint8Array, subject = "the subtitle file"): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
  const head = bytes.subarray(0, 1024);
  let zeroEven = 0;
  let zeroOdd = 0;
  for (let index = 0; index < head.length; index++) {
    if (head[index] !== 0) continue;
    if (index % 2 === 0) zeroEven++;
    else zeroOdd++;
  }
  const half = Math.floor(head.length / 2);
  if (half >= 4 && zeroOdd >= 0.9 * half && zeroEven === 0) return new TextDecoder("utf-16le").decode(bytes);
  if (half >= 4 && zeroEven >= 0.9 * half && zeroOdd === 0) return new TextDecoder("utf-16be").decode(bytes);
  if (zeroEven + zeroOdd > 0) throw new VideoRagError("INPUT_CORRUPT", "the subtitle file holds binary data, not text in an encoding videorag reads", { subject });
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    let ascii = 0;
    let high = 0;
    for (const byte of bytes) {
      if ((byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)) ascii++;
      else if (byte >= 0xc0) high++;
    }
    return high > ascii ? new TextDecoder("windows-1251").decode(bytes) : decodeWindows1252(bytes);
  }
}

/** Windows-1252's characters at 0x80–0x9F, where it differs from Latin-1 (undefined five stay as Latin-1 has them). */
const windows1252High = "€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ";

/**
 * Windows-1252, by hand: Node's TextDecoder("windows-1252") decodes Latin-1 (0x80–0x9F as control characters, not
 * "€" and "–"), which the WHATWG encoding standard it follows does not.
 */
function decodeWindows1252(bytes: Uint8Array): string {
  let text = "";
  for (let start = 0; start < bytes.length; start += 8192) {
    const chunk = bytes.subarray(start, start + 8192);
    text += String.fromCharCode(...chunk).replace(/[\u0080-\u009f]/g, (char) => windows1252High[char.charCodeAt(0) - 0x80] as string);
  }
  return text;
}

async function mapWithConcurrency<T, R>(items: T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const position = next++;
      results[position] = await work(items[position] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results;
}
