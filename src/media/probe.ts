// Probes a media file with ffprobe and turns every way an input can be bad into one stable error code, so a user
// learns from the code alone whether the path is wrong, the file is empty, not media, damaged, or has nothing to index.

import { open, stat } from "node:fs/promises";
import { VideoRagError } from "../spec/index.js";
import { ffmpegPath } from "./ffmpeg-path.js";
import { lastMeaningfulLine, runProcess } from "./run-process.js";

/** A subtitle stream inside a media file. */
export interface SubtitleStreamInfo {
  /** Absolute stream index in the file. */
  index: number;
  /** Position among the file's subtitle streams, as in ffmpeg's `-map 0:s:<subtitleIndex>`. */
  subtitleIndex: number;
  codec: string;
  /** "text" streams convert to SRT; "bitmap" streams (DVD, Blu-ray) are pictures that need OCR. */
  kind: "text" | "bitmap";
  /** ISO 639 code as tagged in the file, e.g. "eng"; absent when untagged. */
  language?: string;
}

/** What a media file holds, as far as indexing it is concerned. */
export interface MediaInfo {
  path: string;
  sizeBytes: number;
  durationSeconds: number;
  /** ffprobe's demuxer name, e.g. "mov,mp4,m4a,3gp,3g2,mj2" or "matroska,webm". */
  formatName: string;
  hasVideo: boolean;
  hasAudio: boolean;
  width?: number;
  height?: number;
  frameRate?: number;
  videoCodec?: string;
  audioCodec?: string;
  subtitleStreams: SubtitleStreamInfo[];
}

const textSubtitleCodecs = new Set([
  "subrip",
  "srt",
  "ass",
  "ssa",
  "webvtt",
  "mov_text",
  "text",
  "microdvd",
  "subviewer",
  "subviewer1",
  "sami",
  "realtext",
  "mpl2",
  "pjs",
  "vplayer",
  "jacosub",
  "stl",
  "ttml",
]);
const bitmapSubtitleCodecs = new Set(["dvd_subtitle", "hdmv_pgs_subtitle", "dvb_subtitle", "xsub"]);

// Container-level messages that mean the file was cut short or mangled, as opposed to a decoder hiccup that real,
// watchable files (TV captures that start mid-GOP) print too.
const damagedContainer = /moov atom not found|partial file|truncat|EBML header parsing failed|invalid atom size/i;

interface ProbeStream {
  index?: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  duration?: string;
  disposition?: { attached_pic?: number };
  tags?: { language?: string };
}

interface ProbeOutput {
  streams?: ProbeStream[];
  format?: { format_name?: string; duration?: string };
}

/** Probes `path`; fails with INPUT_NOT_FOUND, INPUT_EMPTY, INPUT_NOT_MEDIA, INPUT_CORRUPT or INPUT_NO_STREAMS. */
export async function probeMedia(path: string, options: { signal?: AbortSignal } = {}): Promise<MediaInfo> {
  const sizeBytes = await readableFileSize(path);
  const probed = await runProcess(
    "ffprobe",
    ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", ffmpegPath(path)],
    { signal: options.signal, allowFailure: true },
  );
  const head = await readHead(path);
  if (probed.exitCode !== 0) {
    const why = lastMeaningfulLine(probed.stderr).replace(/^file:[^:]*:\s*/, "");
    if (hasMediaSignature(head) || damagedContainer.test(probed.stderr)) {
      // Only the container's own errors or a media signature say "damaged"; a text file named .mp4 also makes the
      // mp4 reader complain that it found no moov atom.
      if (!looksLikeText(head)) {
        throw new VideoRagError("INPUT_CORRUPT", `the media file is damaged and cannot be read (${why})`, { subject: path });
      }
    }
    throw new VideoRagError("INPUT_NOT_MEDIA", `not a video or audio file ffmpeg can read (${why})`, { subject: path });
  }
  if (damagedContainer.test(probed.stderr)) {
    const why = lastMeaningfulLine(probed.stderr.split("\n").filter((line) => damagedContainer.test(line)).join("\n"));
    throw new VideoRagError("INPUT_CORRUPT", `the media file is damaged (${why})`, { subject: path });
  }

  let output: ProbeOutput;
  try {
    output = JSON.parse(probed.stdout.toString("utf8")) as ProbeOutput;
  } catch (error) {
    throw new VideoRagError("TOOL_FAILED", "ffprobe printed something that is not JSON", { cause: error, subject: path });
  }
  const streams = output.streams ?? [];
  const formatName = output.format?.format_name ?? "";
  if (/_pipe$|^image2$/.test(formatName)) {
    throw new VideoRagError("INPUT_NOT_MEDIA", `a still image (${formatName.replace(/_pipe$/, "")}), not a video`, { subject: path });
  }
  const video = streams.find((stream) => stream.codec_type === "video" && stream.disposition?.attached_pic !== 1);
  const audio = streams.find((stream) => stream.codec_type === "audio");
  if (!video && !audio) {
    if (looksLikeText(head)) {
      throw new VideoRagError("INPUT_NOT_MEDIA", `a text file (${formatName || "unknown format"}), not a video`, { subject: path });
    }
    throw new VideoRagError("INPUT_NO_STREAMS", "the file has neither a video nor an audio stream", { subject: path });
  }

  const subtitleStreams: SubtitleStreamInfo[] = [];
  streams
    .filter((stream) => stream.codec_type === "subtitle")
    .forEach((stream, subtitleIndex) => {
      const codec = stream.codec_name ?? "unknown";
      const kind = textSubtitleCodecs.has(codec) ? "text" : bitmapSubtitleCodecs.has(codec) ? "bitmap" : undefined;
      // Closed captions and teletext need decoders of their own; they are left out rather than misread.
      if (!kind || stream.index === undefined) return;
      const language = stream.tags?.language;
      subtitleStreams.push({
        index: stream.index,
        subtitleIndex,
        codec,
        kind,
        ...(language && language !== "und" ? { language } : {}),
      });
    });

  const streamDurations = streams.map((stream) => Number(stream.duration)).filter((value) => Number.isFinite(value));
  const formatDuration = Number(output.format?.duration);
  const durationSeconds = Number.isFinite(formatDuration) ? formatDuration : Math.max(0, ...streamDurations);
  const frameRate = video ? (parseRate(video.avg_frame_rate) ?? parseRate(video.r_frame_rate)) : undefined;
  return {
    path,
    sizeBytes,
    durationSeconds,
    formatName,
    hasVideo: Boolean(video),
    hasAudio: Boolean(audio),
    ...(video?.width ? { width: video.width } : {}),
    ...(video?.height ? { height: video.height } : {}),
    ...(frameRate ? { frameRate } : {}),
    ...(video?.codec_name ? { videoCodec: video.codec_name } : {}),
    ...(audio?.codec_name ? { audioCodec: audio.codec_name } : {}),
    subtitleStreams,
  };
}

/**
 * Decodes about a second from the start of each indexed stream and fails with INPUT_CORRUPT when ffmpeg cannot:
 * the damage ffprobe misses (a valid header over garbage) shows up here, in a fraction of a second.
 */
export async function checkDecodable(path: string, info: MediaInfo, options: { signal?: AbortSignal } = {}): Promise<void> {
  if (!info.hasVideo && !info.hasAudio) return;
  const maps = [...(info.hasVideo ? ["-map", "0:V:0?"] : []), ...(info.hasAudio ? ["-map", "0:a:0?"] : [])];
  const result = await runProcess(
    "ffmpeg",
    ["-hide_banner", "-nostdin", "-v", "error", "-t", "1", "-i", ffmpegPath(path), ...maps, "-f", "null", "-"],
    { signal: options.signal, allowFailure: true },
  );
  if (result.exitCode !== 0) {
    throw new VideoRagError("INPUT_CORRUPT", `the media file is damaged and cannot be decoded (${lastMeaningfulLine(result.stderr)})`, {
      subject: path,
    });
  }
}

async function readableFileSize(path: string): Promise<number> {
  let sizeBytes: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new VideoRagError("INPUT_UNSUPPORTED", "a folder, not a media file", { subject: path });
    sizeBytes = info.size;
    // Opening proves it is readable: stat alone succeeds on files the user may not read.
    await (await open(path, "r")).close();
  } catch (error) {
    if (VideoRagError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : String(code ?? error);
    throw new VideoRagError("INPUT_NOT_FOUND", `cannot read the file (${why})`, { cause: error, subject: path });
  }
  if (sizeBytes === 0) throw new VideoRagError("INPUT_EMPTY", "the file is empty", { subject: path });
  return sizeBytes;
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Starts like a container or stream ffmpeg knows: such a file that fails to probe is damaged, not foreign. */
function hasMediaSignature(head: Buffer): boolean {
  if (head.length < 4) return false;
  const ascii = (start: number, end: number): string => head.subarray(start, end).toString("latin1");
  const boxType = ascii(4, 8);
  if (["ftyp", "moov", "mdat", "free", "wide", "skip", "pnot"].includes(boxType)) return true; // MP4 / QuickTime
  if (head.readUInt32BE(0) === 0x1a45dfa3) return true; // Matroska / WebM
  if (["RIFF", "OggS", "fLaC", ".RMF"].includes(ascii(0, 4)) || ["ID3", "FLV"].includes(ascii(0, 3))) return true;
  if (head.readUInt32BE(0) === 0x3026b275) return true; // ASF / WMV
  if (head.readUInt32BE(0) === 0x000001ba || head.readUInt32BE(0) === 0x000001b3) return true; // MPEG-PS / ES
  return head.length > 376 && head[0] === 0x47 && head[188] === 0x47 && head[376] === 0x47; // MPEG-TS
}

/** No control bytes other than whitespace in the first few KB: a text file, whatever its name says. */
function looksLikeText(head: Buffer): boolean {
  if (head.length === 0) return false;
  for (const byte of head) {
    if (byte < 0x09 || (byte > 0x0d && byte < 0x20 && byte !== 0x1b) || byte === 0x7f) return false;
  }
  return true;
}

function parseRate(rate: string | undefined): number | undefined {
  const [numerator, denominator] = (rate ?? "").split("/").map(Number);
  if (!numerator || !denominator) return undefined;
  return numerator / denominator;
}
