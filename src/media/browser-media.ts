// What a browser can play, and ffmpeg commands that make the rest playable: an H.264/AAC MP4 for any video a browser
// cannot decode (HEVC, MPEG-4 Part 2, MPEG-1, AVI, Matroska), and a JPEG thumbnail at a second. The server caches both.

import { rename, rm } from "node:fs/promises";
import { ffmpegPath } from "./ffmpeg-path.js";
import type { MediaInfo } from "./probe.js";
import { runProcess } from "./run-process.js";

/** How a browser gets a file: as it is, with its content type, or transcoded first. */
export type BrowserPlayback = { playable: true; contentType: string } | { playable: false; reason: string };

const browserVideoCodecs = new Set(["h264", "vp8", "vp9", "av1"]);
const browserAudioCodecs = new Set(["aac", "mp3", "opus", "vorbis", "flac", "pcm_s16le", "pcm_u8", "pcm_f32le"]);

/** Decides from a probe whether Chromium, Firefox and Safari-class browsers play the file as it is. */
export function browserPlayback(info: MediaInfo): BrowserPlayback {
  const formats = info.formatName.split(",");
  const audioOk = !info.hasAudio || (info.audioCodec !== undefined && browserAudioCodecs.has(info.audioCodec));
  if (!info.hasVideo) {
    if (!audioOk) return { playable: false, reason: `audio codec ${info.audioCodec ?? "unknown"}` };
    if (formats.includes("wav")) return { playable: true, contentType: "audio/wav" };
    if (formats.includes("mp3")) return { playable: true, contentType: "audio/mpeg" };
    if (formats.includes("ogg")) return { playable: true, contentType: "audio/ogg" };
    if (formats.includes("flac")) return { playable: true, contentType: "audio/flac" };
    if (formats.includes("mp4") || formats.includes("mov")) return { playable: true, contentType: "audio/mp4" };
    return { playable: false, reason: `audio container ${info.formatName}` };
  }
  const videoOk = info.videoCodec !== undefined && browserVideoCodecs.has(info.videoCodec);
  if (!videoOk) return { playable: false, reason: `video codec ${info.videoCodec ?? "unknown"}` };
  if (!audioOk) return { playable: false, reason: `audio codec ${info.audioCodec ?? "unknown"}` };
  // ffprobe names the same demuxer for mp4 and mov, and for matroska and webm: the codecs decide above.
  if (formats.includes("mp4") || formats.includes("mov")) return { playable: true, contentType: "video/mp4" };
  if (formats.includes("webm") && info.videoCodec !== "h264") return { playable: true, contentType: "video/webm" };
  return { playable: false, reason: `container ${info.formatName}` };
}

/**
 * Writes an H.264/AAC MP4 with its index at the front (so playback starts before the whole file arrives) to `output`,
 * through a temporary file renamed at the end, so a killed transcode never leaves a half file that looks finished.
 */
export async function transcodeForBrowser(input: string, output: string, options: { signal?: AbortSignal } = {}): Promise<void> {
  const partial = `${output}.${process.pid}.partial.mp4`;
  try {
    await runProcess(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-y", "-i", ffmpegPath(input),
        "-map", "0:v:0?", "-map", "0:a:0?", "-sn", "-dn",
        // Even dimensions, as yuv420p H.264 needs; frame rates above 30 halved to keep the transcode quick.
        "-vf", "scale=trunc(iw/2)*2:trunc(ih/2)*2,fps=fps='min(source_fps,30)'",
        "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p",
        "-c:a", "aac", "-b:a", "128k", "-ac", "2",
        "-movflags", "+faststart", ffmpegPath(partial),
      ],
      { signal: options.signal },
    );
    await rename(partial, output);
  } finally {
    await rm(partial, { force: true });
  }
}

/** A JPEG of the frame at `second`, at most `width` pixels wide, written to `output`. */
export async function writeThumbnail(input: string, second: number, output: string, options: { width?: number; signal?: AbortSignal } = {}): Promise<void> {
  const partial = `${output}.${process.pid}.partial.jpg`;
  const width = options.width ?? 320;
  try {
    await runProcess(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-y", "-ss", second.toFixed(3), "-i", ffmpegPath(input),
        "-frames:v", "1", "-vf", `scale='min(${width},iw)':-2`, "-q:v", "5", "-f", "image2", ffmpegPath(partial),
      ],
      { signal: options.signal, timeoutMs: 30_000 },
    );
    await rename(partial, output);
  } finally {
    await rm(partial, { force: true });
  }
}
