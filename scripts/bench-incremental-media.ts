// A speech library of at least half an hour for the incremental-extraction benchmark, with the second every answer is
// spoken at. No subtitles anywhere, so every answer has to come from speech recognition:
// - the GRID talking heads from ../shared, concatenated into one video with two seconds between sentences;
// - the LibriVox read sentences and JFK's inaugural line from ../shared, concatenated into one recording;
// - narrated videos generated as the demo makes them (espeak-ng over a plain 720p picture that shows no words), reading
//   real how-to transcripts from ../shared/datasets, a different one per video.
// Files are written once into a folder, with a manifest; a second call reuses them.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { sharedPath } from "../src/test-support/shared.js";
import { seededRandom } from "./seeded-random.js";

/** A question whose answer is spoken in `file` between `startSecond` and `endSecond`. */
export interface SpeechQuestion {
  question: string;
  file: string;
  startSecond: number;
  endSecond: number;
  spoken: string;
}

export interface SpeechLibrary {
  files: { path: string; durationSeconds: number }[];
  questions: SpeechQuestion[];
  totalSeconds: number;
}

const manifestName = "speech-library.json";
const version = 1;
const gapSeconds = 2;
const sentencePauseSeconds = 0.7;
const narratedMinutesPerVideo = 5;

const gridWords = {
  command: { b: "bin", l: "lay", p: "place", s: "set" },
  colour: { b: "blue", g: "green", r: "red", w: "white" },
  preposition: { a: "at", b: "by", i: "in", w: "with" },
  digit: { z: "zero", "1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven", "8": "eight", "9": "nine" },
  adverb: { a: "again", n: "now", p: "please", s: "soon" },
} as const;

/** "bbaf2n" → "bin blue at f two now". */
export function gridSentence(code: string): string {
  const [command, colour, preposition, letter, digit, adverb] = code.split("") as string[];
  const pick = (table: Record<string, string>, key: string | undefined): string => table[key ?? ""] ?? key ?? "";
  return [
    pick(gridWords.command, command),
    pick(gridWords.colour, colour),
    pick(gridWords.preposition, preposition),
    letter ?? "",
    pick(gridWords.digit, digit),
    pick(gridWords.adverb, adverb),
  ].join(" ");
}

function run(program: string, args: string[]): string {
  const result = spawnSync(program, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new Error(`${program} is not installed (${result.error.message})`);
  if (result.status !== 0) throw new Error(`${program} failed: ${(result.stderr || "").trim().split("\n").pop()}`);
  return result.stdout;
}

function duration(path: string): number {
  return Number(run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path]).trim());
}

/** The PCM samples of a 16-bit mono WAV file and its rate. */
function readPcm(path: string): { rate: number; samples: Buffer } {
  const data = readFileSync(path);
  const rate = data.readUInt32LE(24);
  let offset = 12;
  while (offset + 8 <= data.length) {
    const id = data.toString("ascii", offset, offset + 4);
    const size = data.readUInt32LE(offset + 4);
    if (id === "data") return { rate, samples: data.subarray(offset + 8, Math.min(data.length, offset + 8 + size)) };
    offset += 8 + size + (size % 2);
  }
  throw new Error(`${path} has no data chunk`);
}

function wavFile(rate: number, samples: Buffer): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + samples.length, 4);
  header.write("WAVEfmt ", 8, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(samples.length, 40);
  return Buffer.concat([header, samples]);
}

/** Words of a sentence worth asking about: long, not function words, at most four, in order. */
const common = new Set("about after again also because been before being could didn doesn every going gonna have here just know like little make more much need other really right should some something still than that them then there these thing things think this those through want well were what when where which while will with would your youre okay yeah".split(" "));
function distinctiveWords(sentence: string, count: number): string[] {
  const words: string[] = sentence.toLowerCase().match(/[a-z]+/g) ?? [];
  const ranked = [...new Set(words.filter((word) => word.length >= 5 && !common.has(word)))].sort((a, b) => b.length - a.length).slice(0, count);
  return words.filter((word, index) => ranked.includes(word) && words.indexOf(word) === index);
}

/** Picks `count` items spread over the list, first and last included. */
function spread<T>(items: T[], count: number): T[] {
  if (items.length <= count) return items;
  return Array.from({ length: count }, (_, index) => items[Math.round((index * (items.length - 1)) / (count - 1))] as T);
}

interface Built {
  file: { path: string; durationSeconds: number };
  questions: SpeechQuestion[];
}

function buildGrid(directory: string): Built {
  const folder = sharedPath("media/speech/grid");
  const clips = readdirSync(folder).filter((name) => name.endsWith(".mpg")).sort();
  const target = join(directory, "grid-sentences.mp4");
  const inputs: string[] = [];
  const chains: string[] = [];
  const spans: { code: string; startSecond: number; endSecond: number }[] = [];
  let clock = 0;
  clips.forEach((name, index) => {
    const path = join(folder, name);
    const seconds = duration(path);
    inputs.push("-i", path);
    chains.push(`[${index}:v]scale=360:288,fps=25,setsar=1,tpad=stop_mode=add:stop_duration=${gapSeconds},trim=duration=${(seconds + gapSeconds).toFixed(3)}[v${index}]`);
    chains.push(`[${index}:a]aresample=16000,apad,atrim=duration=${(seconds + gapSeconds).toFixed(3)}[a${index}]`);
    spans.push({ code: name.replace(/\.mpg$/, "").replace(/^.*_/, ""), startSecond: clock, endSecond: clock + seconds });
    clock += seconds + gapSeconds;
  });
  const concat = `${clips.map((_, index) => `[v${index}][a${index}]`).join("")}concat=n=${clips.length}:v=1:a=1[v][a]`;
  run("ffmpeg", ["-y", "-v", "error", ...inputs, "-filter_complex", [...chains, concat].join(";"), "-map", "[v]", "-map", "[a]", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k", target]);
  const questions = spans.map((span) => {
    const spoken = gridSentence(span.code);
    return { question: `who said ${spoken}?`, file: target, startSecond: round(span.startSecond), endSecond: round(span.endSecond), spoken };
  });
  return { file: { path: target, durationSeconds: duration(target) }, questions: spread(questions, 6) };
}

function buildReadings(directory: string, scratch: string): Built {
  const folder = sharedPath("media/audio/librivox");
  const texts = new Map(
    readFileSync(join(folder, "transcription"), "utf8")
      .split("\n")
      .map((line) => line.match(/^<s> (.*) <\/s> \((.*)\)$/))
      .filter((match): match is RegExpMatchArray => match !== null)
      .map((match) => [match[2] ?? "", match[1] ?? ""]),
  );
  const parts = [...readdirSync(folder).filter((name) => name.endsWith(".wav")).sort().map((name) => ({ path: join(folder, name), text: texts.get(name.replace(/\.wav$/, "")) ?? "" })),
    { path: sharedPath("media/audio/jfk.wav"), text: "and so my fellow americans ask not what your country can do for you ask what you can do for your country" }];
  const rate = 16000;
  const chunks: Buffer[] = [];
  const questions: SpeechQuestion[] = [];
  const target = join(directory, "readings.wav");
  let clock = 0;
  for (const [index, part] of parts.entries()) {
    const resampled = join(scratch, `reading-${index}.wav`);
    run("ffmpeg", ["-y", "-v", "error", "-i", part.path, "-ar", String(rate), "-ac", "1", "-c:a", "pcm_s16le", resampled]);
    const { samples } = readPcm(resampled);
    const seconds = samples.length / 2 / rate;
    chunks.push(samples, Buffer.alloc(Math.round(gapSeconds * rate) * 2));
    const words = distinctiveWords(part.text, 3);
    if (part.text && words.length >= 2) {
      questions.push({ question: `what was read about ${words.join(" ")}?`, file: target, startSecond: round(clock), endSecond: round(clock + seconds), spoken: part.text });
    }
    clock += seconds + gapSeconds;
  }
  writeFileSync(target, wavFile(rate, Buffer.concat(chunks)));
  return { file: { path: target, durationSeconds: duration(target) }, questions };
}

/** Transcript text cut into sentences of 12 to 20 words (the transcripts are caption lines without punctuation). */
function transcriptSentences(path: string): string[] {
  const words = readFileSync(path, "utf8").replace(/\[[^\]]*\]/g, " ").split(/\s+/).filter((word) => /^[\w'’-]+[.,!?]?$/.test(word));
  const sentences: string[] = [];
  for (let start = 0; start + 12 <= words.length; start += 16) sentences.push(words.slice(start, start + 16).join(" "));
  return sentences;
}

function buildNarrated(directory: string, scratch: string, name: string, transcript: string, colour: string, seconds: number): Built | undefined {
  const sentences = transcriptSentences(transcript);
  if (sentences.length < 40) return undefined;
  const target = join(directory, `${name}.mp4`);
  const chunks: Buffer[] = [];
  const spoken: { text: string; startSecond: number; endSecond: number }[] = [];
  let rate = 22050;
  let clock = 0;
  for (const [index, sentence] of sentences.entries()) {
    if (clock >= seconds) break;
    const wav = join(scratch, `${name}-${index}.wav`);
    run("espeak-ng", ["-s", "160", "-w", wav, sentence]);
    const pcm = readPcm(wav);
    rate = pcm.rate;
    const length = pcm.samples.length / 2 / rate;
    spoken.push({ text: sentence, startSecond: clock, endSecond: clock + length });
    chunks.push(pcm.samples, Buffer.alloc(Math.round(sentencePauseSeconds * rate) * 2));
    clock += length + sentencePauseSeconds;
    rmSync(wav, { force: true });
  }
  const audio = join(scratch, `${name}.wav`);
  writeFileSync(audio, wavFile(rate, Buffer.concat(chunks)));
  run("ffmpeg", ["-y", "-v", "error", "-f", "lavfi", "-i", `color=c=${colour}:s=1280x720:r=25`, "-i", audio, "-shortest", "-map", "0:v", "-map", "1:a",
    "-c:v", "libx264", "-preset", "veryfast", "-tune", "stillimage", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k", "-ar", "44100", target]);
  rmSync(audio, { force: true });
  // Sentences worth asking about, spread over the whole video.
  const askable = spoken.filter((sentence) => distinctiveWords(sentence.text, 4).length >= 3);
  const questions = spread(askable, 5).map((sentence) => ({
    question: `what did they say about ${distinctiveWords(sentence.text, 4).join(" ")}?`,
    file: target,
    startSecond: round(sentence.startSecond),
    endSecond: round(sentence.endSecond),
    spoken: sentence.text,
  }));
  return { file: { path: target, durationSeconds: duration(target) }, questions };
}

function round(second: number): number {
  return Math.round(second * 1000) / 1000;
}

export async function makeSpeechLibrary(directory: string, options: { minutes?: number } = {}): Promise<SpeechLibrary> {
  const minutes = options.minutes ?? 32;
  const absolute = resolve(directory);
  const manifestPath = join(absolute, manifestName);
  if (existsSync(manifestPath)) {
    const saved = JSON.parse(readFileSync(manifestPath, "utf8")) as SpeechLibrary & { version: number; minutes: number };
    if (saved.version === version && saved.minutes === minutes && saved.files.every((file) => existsSync(file.path))) return saved;
  }
  mkdirSync(absolute, { recursive: true });
  const scratch = join(absolute, ".scratch");
  mkdirSync(scratch, { recursive: true });
  try {
    const built: Built[] = [buildGrid(absolute), buildReadings(absolute, scratch)];
    for (const item of built) process.stderr.write(`speech library: ${item.file.path} (${item.file.durationSeconds.toFixed(1)} s)\n`);
    const transcriptsDir = sharedPath("datasets/howto-qa/transcripts");
    const names = readdirSync(transcriptsDir).sort();
    const random = seededRandom(20261124);
    const colours = ["navy", "darkgreen", "maroon", "darkslategray", "indigo", "saddlebrown", "teal", "dimgray"];
    let total = built.reduce((sum, item) => sum + item.file.durationSeconds, 0);
    for (let attempt = 0; total < minutes * 60 && attempt < 200; attempt++) {
      const transcript = join(transcriptsDir, names[Math.floor((random() + 0.5) * names.length)] ?? "");
      const seconds = Math.min(narratedMinutesPerVideo * 60, minutes * 60 - total + 5);
      const index = built.length - 2;
      const item = buildNarrated(absolute, scratch, `narrated-${index + 1}`, transcript, colours[index % colours.length] ?? "navy", seconds);
      if (!item) continue;
      built.push(item);
      total += item.file.durationSeconds;
      process.stderr.write(`speech library: ${item.file.path} (${item.file.durationSeconds.toFixed(1)} s)\n`);
    }
    const library: SpeechLibrary = {
      files: built.map((item) => item.file),
      questions: built.flatMap((item) => item.questions),
      totalSeconds: round(total),
    };
    writeFileSync(manifestPath, JSON.stringify({ version, minutes, ...library }, null, 2));
    return library;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const library = await makeSpeechLibrary(process.argv[2] ?? "speech-library");
  console.log(JSON.stringify({ minutes: library.totalSeconds / 60, files: library.files, questions: library.questions.length, sample: library.questions.slice(0, 3) }, null, 2));
}
