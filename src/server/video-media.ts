// The bytes behind a citation: a video file a browser can play (the original, or an H.264/AAC MP4 made once and
// cached in the library), served with HTTP byte ranges, and JPEG thumbnails at a second, also cached.

import { createReadStream, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { browserPlayback, probeMedia, transcodeForBrowser, writeThumbnail } from "../media/index.js";
import { VideoRagError, type Video } from "../spec/index.js";

export interface PlayableFile {
  path: string;
  contentType: string;
  transcoded: boolean;
}

export interface VideoMedia {
  /** The file to send for a video: the original when a browser plays it, else the cached transcode (made now if absent). */
  playable(video: Video): Promise<PlayableFile>;
  /** A cached JPEG of the frame at `second` (rounded to a tenth). */
  thumbnail(video: Video, second: number): Promise<string>;
  /** Forgets and deletes what was cached for a removed video. */
  forget(videoId: string): void;
}

export function createVideoMedia(libraryPath: string): VideoMedia {
  const transcodes = join(libraryPath, "media-cache");
  const thumbnails = join(libraryPath, "frame-cache");
  const decisions = new Map<string, Promise<PlayableFile>>();
  const pendingThumbnails = new Map<string, Promise<string>>();

  const decide = async (video: Video): Promise<PlayableFile> => {
    if (video.kind !== "media") throw new VideoRagError("INPUT_UNSUPPORTED", `${video.title} is known only by its transcript; there is no media to play`);
    if (!existsSync(video.path)) throw new VideoRagError("INPUT_NOT_FOUND", `the source file of ${video.title} is gone`, { subject: video.id });
    const cached = join(transcodes, `${video.id}.mp4`);
    if (existsSync(cached)) return { path: cached, contentType: "video/mp4", transcoded: true };
    const playback = browserPlayback(await probeMedia(video.path));
    if (playback.playable) return { path: video.path, contentType: playback.contentType, transcoded: false };
    mkdirSync(transcodes, { recursive: true });
    await transcodeForBrowser(video.path, cached);
    return { path: cached, contentType: "video/mp4", transcoded: true };
  };

  return {
    playable(video) {
      let decision = decisions.get(video.id);
      if (!decision) {
        decision = decide(video);
        decisions.set(video.id, decision);
        // A failure is not remembered: the file may come back, or the transcode may succeed next time.
        decision.catch(() => decisions.delete(video.id));
      }
      return decision;
    },
    thumbnail(video, second) {
      if (video.kind !== "media" || !video.hasVideo) {
        return Promise.reject(new VideoRagError("INPUT_UNSUPPORTED", `${video.title} has no picture`));
      }
      const tenths = Math.round(Math.min(Math.max(second, 0), Math.max(video.durationSeconds - 0.1, 0)) * 10);
      const file = join(thumbnails, video.id, `${tenths}.jpg`);
      if (existsSync(file)) return Promise.resolve(file);
      let pending = pendingThumbnails.get(file);
      if (!pending) {
        mkdirSync(join(thumbnails, video.id), { recursive: true });
        pending = writeThumbnail(video.path, tenths / 10, file)
          .then(() => {
            // Past the last decodable frame ffmpeg writes nothing: take the first frame instead.
            if (!existsSync(file)) return writeThumbnail(video.path, 0, file);
          })
          .then(() => file)
          .finally(() => pendingThumbnails.delete(file));
        pendingThumbnails.set(file, pending);
      }
      return pending;
    },
    forget(videoId) {
      decisions.delete(videoId);
      rmSync(join(transcodes, `${videoId}.mp4`), { force: true });
      rmSync(join(thumbnails, videoId), { recursive: true, force: true });
    },
  };
}

/** A byte range of a file as a 206 response, the whole file as 200, or 416 for a range past its end. */
export function fileResponse(path: string, contentType: string, rangeHeader: string | undefined, extraHeaders: Record<string, string> = {}): Response {
  const size = statSync(path).size;
  const headers: Record<string, string> = { "Content-Type": contentType, "Accept-Ranges": "bytes", ...extraHeaders };
  const range = parseRange(rangeHeader, size);
  if (range === "unsatisfiable") {
    return new Response(null, { status: 416, headers: { ...headers, "Content-Range": `bytes */${size}` } });
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? size - 1;
  const body = size === 0 ? null : (Readable.toWeb(createReadStream(path, { start, end })) as ReadableStream);
  return new Response(body, {
    status: range ? 206 : 200,
    headers: { ...headers, "Content-Length": String(size === 0 ? 0 : end - start + 1), ...(range ? { "Content-Range": `bytes ${start}-${end}/${size}` } : {}) },
  });
}

/** One `bytes=` range (the first of several; browsers ask for one); undefined means the whole file. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | "unsatisfiable" | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)/.exec(header.trim());
  if (!match) return undefined;
  const [, from = "", to = ""] = match;
  if (from === "" && to === "") return undefined;
  if (from === "") {
    const suffix = Number(to);
    if (suffix === 0) return "unsatisfiable";
    return { start: Math.max(size - suffix, 0), end: size - 1 };
  }
  const start = Number(from);
  if (start >= size) return "unsatisfiable";
  const end = to === "" ? size - 1 : Math.min(Number(to), size - 1);
  if (end < start) return "unsatisfiable";
  return { start, end };
}
