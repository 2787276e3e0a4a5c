#!/usr/bin/env node
// Generates the sample library for the demo and the benchmark: 720p slide videos with spoken narration (espeak-ng),
// a sidecar .srt for the narration, and one silent video whose only text is on screen. Needs ffmpeg and espeak-ng.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const font = ["/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"].find(existsSync);

/** The sample videos: slides (title + bullet lines on screen) and what is said over each. */
export const sampleVideos = [
  {
    name: "sqlite-talk",
    subtitles: true,
    slides: [
      { title: "Embedded search with SQLite", lines: ["One file per library", "No server to run"], say: ["Welcome to this short talk about embedded search.", "We will see why a single SQLite file is enough for a desktop application."] },
      { title: "FTS5 and BM25", lines: ["Full text index built in", "Ranked with BM25"], say: ["SQLite ships the full text search extension called F T S five.", "It ranks the matches with BM25, the same formula that search engines use."] },
      { title: "Why not pgvector?", lines: ["Needs a running Postgres server", "Our users work offline"], say: ["We rejected pgvector because it needs a running Postgres server.", "Most of our users work offline on laptops, so a server was too much to ask."] },
      { title: "Backups", lines: ["Copy one file", "Done"], say: ["Backing up the whole library means copying one file.", "Thank you for listening."] },
    ],
  },
  {
    name: "bread-baking",
    subtitles: true,
    slides: [
      { title: "Simple white bread", lines: ["500 g flour", "10 g salt, 7 g yeast"], say: ["Today we bake a simple white bread.", "Mix five hundred grams of flour with salt, yeast and warm water."] },
      { title: "Knead and rise", lines: ["Knead 10 minutes", "Rise 1 hour"], say: ["Knead the dough for ten minutes until it is smooth and elastic.", "Then let the dough rise for one hour in a warm place."] },
      { title: "Bake", lines: ["220 degrees", "30 minutes"], say: ["Bake the loaf at two hundred and twenty degrees for thirty minutes.", "Tap the bottom: a hollow sound means the bread is done."] },
    ],
  },
  {
    name: "harbor-museum",
    subtitles: false,
    slides: [
      { title: "Harbor Museum", lines: ["Opening hours", "Tuesday to Sunday 10:00 to 18:00"], seconds: 12 },
      { title: "Lighthouse exhibition", lines: ["Third floor", "Guided tours every hour"], seconds: 12 },
      { title: "Tickets", lines: ["Adults 12 euros", "Children free"], seconds: 12 },
    ],
  },
];

function run(program, args) {
  const result = spawnSync(program, args, { encoding: "utf8" });
  if (result.error) throw new Error(`${program} is not installed (${result.error.message})`);
  if (result.status !== 0) throw new Error(`${program} failed: ${(result.stderr || "").trim().split("\n").pop()}`);
  return result.stdout;
}

function wavSeconds(path) {
  const data = readFileSync(path);
  const channels = data.readUInt16LE(22);
  const rate = data.readUInt32LE(24);
  const bits = data.readUInt16LE(34);
  let offset = 12;
  while (offset + 8 <= data.length) {
    const id = data.toString("ascii", offset, offset + 4);
    const size = data.readUInt32LE(offset + 4);
    if (id === "data") return Math.min(size, data.length - offset - 8) / (rate * channels * (bits / 8));
    offset += 8 + size + (size % 2);
  }
  return 0;
}

function srtTime(seconds) {
  const ms = Math.round(seconds * 1000);
  const pad = (value, width = 2) => String(value).padStart(width, "0");
  return `${pad(Math.floor(ms / 3600000))}:${pad(Math.floor(ms / 60000) % 60)}:${pad(Math.floor(ms / 1000) % 60)},${pad(ms % 1000, 3)}`;
}

function makeVideo(directory, video, scratch) {
  const target = join(directory, `${video.name}.mp4`);
  const cues = [];
  const parts = [];
  const slideStarts = [];
  let clock = 0;
  video.slides.forEach((slide, slideIndex) => {
    slideStarts.push(clock);
    const textFile = join(scratch, `${video.name}-${slideIndex}.txt`);
    writeFileSync(textFile, [slide.title, "", ...slide.lines].join("\n"));
    const audioParts = [];
    let slideSeconds = 0.6;
    for (const [sentenceIndex, sentence] of (slide.say ?? []).entries()) {
      const wav = join(scratch, `${video.name}-${slideIndex}-${sentenceIndex}.wav`);
      run("espeak-ng", ["-s", "150", "-w", wav, sentence]);
      const seconds = wavSeconds(wav);
      cues.push({ startSecond: clock + slideSeconds, endSecond: clock + slideSeconds + seconds, text: sentence });
      audioParts.push({ wav, startSecond: slideSeconds });
      slideSeconds += seconds + 0.4;
    }
    slideSeconds = Math.max(slideSeconds + 0.6, slide.seconds ?? 0);
    const part = join(scratch, `${video.name}-${slideIndex}.mp4`);
    const draw = `drawtext=fontfile=${font}:textfile=${textFile}:fontsize=54:fontcolor=black:line_spacing=24:x=100:y=180`;
    const args = ["-y", "-loglevel", "error", "-f", "lavfi", "-i", `color=c=white:s=1280x720:r=25:d=${slideSeconds.toFixed(3)}`];
    if (video.subtitles) {
      // Silence under the whole slide, each sentence placed at its own start.
      args.push("-f", "lavfi", "-i", `anullsrc=r=16000:cl=mono:d=${slideSeconds.toFixed(3)}`);
      for (const audio of audioParts) args.push("-i", audio.wav);
      const delays = audioParts.map((audio, index) => `[${index + 2}:a]adelay=${Math.round(audio.startSecond * 1000)}:all=1[a${index}]`);
      const mix = `[1:a]${audioParts.map((_, index) => `[a${index}]`).join("")}amix=inputs=${audioParts.length + 1}:normalize=0:duration=first[aout]`;
      args.push("-filter_complex", [...delays, mix].join(";"), "-map", "0:v", "-map", "[aout]", "-c:a", "aac", "-b:a", "96k", "-ar", "44100");
    }
    args.push("-vf", draw, "-c:v", "libx264", "-preset", "veryfast", "-tune", "stillimage", "-pix_fmt", "yuv420p", "-t", slideSeconds.toFixed(3), part);
    if (!video.subtitles) args.splice(args.indexOf("-vf"), 0, "-map", "0:v");
    run("ffmpeg", args);
    parts.push(part);
    clock += slideSeconds;
  });
  const list = join(scratch, `${video.name}-parts.txt`);
  writeFileSync(list, parts.map((part) => `file '${part}'`).join("\n"));
  run("ffmpeg", ["-y", "-loglevel", "error", "-f", "concat", "-safe", "0", "-i", list, "-c", "copy", "-movflags", "+faststart", target]);
  if (video.subtitles) {
    writeFileSync(join(directory, `${video.name}.srt`), cues.map((cue, index) => `${index + 1}\n${srtTime(cue.startSecond)} --> ${srtTime(cue.endSecond)}\n${cue.text}\n`).join("\n"));
  }
  return { path: target, seconds: clock, slideStarts };
}

/**
 * Writes one video made of slides (a title and lines on screen, sentences said over each, a sidecar .srt when
 * `subtitles`) into `directory`; returns its path, length and the second each slide starts.
 */
export function makeSlideVideo(directory, video) {
  if (!font) throw new Error("no DejaVu font found (apt-get install fonts-dejavu-core)");
  const absolute = resolve(directory);
  const scratch = join(absolute, `.scratch-${video.name}`);
  mkdirSync(scratch, { recursive: true });
  try {
    return makeVideo(absolute, video, scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Writes the sample videos into `directory` (skipping ones already there) and returns their paths. */
export function makeSampleMedia(directory) {
  if (!font) throw new Error("no DejaVu font found (apt-get install fonts-dejavu-core)");
  const absolute = resolve(directory);
  mkdirSync(absolute, { recursive: true });
  const scratch = join(absolute, ".scratch");
  mkdirSync(scratch, { recursive: true });
  try {
    return sampleVideos.map((video) => {
      const target = join(absolute, `${video.name}.mp4`);
      const subtitleReady = !video.subtitles || existsSync(join(absolute, `${video.name}.srt`));
      if (existsSync(target) && subtitleReady) return { path: target, seconds: undefined };
      return makeVideo(absolute, video, scratch);
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const directory = process.argv[2] ?? "demo-media";
  for (const made of makeSampleMedia(directory)) console.log(made.path);
}
