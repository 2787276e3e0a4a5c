// The lite speaker diarizer, measured on recordings whose turns are known because they were built here:
// - voices: the real recordings in ../shared (JFK, the LibriVox reader, one GRID talker per conversation: GRID's file
//   names do not say who speaks) and synthetic ones (espeak-ng variants; Debian's festival voices when installed,
//   skipped with a message otherwise) reading how-to transcripts of ../shared;
// - conversations of 45 s to 4 min: 2–5 speakers, each speaking at least twice unless its recording runs out, turns of
//   2–30 s, pauses of 0–1.2 s, overlaps of 0.3–1.5 s in a third of them, and synthetic music, noise (white, pink,
//   brown) or the Sintel trailer's soundtrack (its dialogue cut out) at 8–20 dB SNR in about a fifth each;
// - monologues: one synthetic voice for 4–6 minutes (a narrated video), which must come out as one speaker;
// - scored by diarization error rate (false alarm + missed speech + confusion over reference speech time, after the best
//   one-to-one speaker mapping; overlap scored) at collar 0 and ±0.25 s (NIST md-eval's collar; pyannote.metrics calls
//   it collar=0.5), the share of conversations with the speaker count exact (also where every speaker talks ≥ 5 s),
//   and the speed in x real time of the whole diarize() call;
// - given the true speech regions (what a perfect voice-activity detector gives), Silero VAD's regions, and none (the
//   diarizer's own energy threshold); and, with the true regions, the true speaker count;
// - settings tuned by coordinate descent on the odd-numbered recordings (1, 3, 5, …), reported on the even-numbered.
//
//   npm run bench speakers [-- --conversations 40] [--monologues 6] [--seed 1] [--keep dir] [--out file] [--no-tune]
//                          [--set name=value,…]
//
// --set changes settings of the diarizer from its shipped defaults before anything runs (the tuning starts from them
// and the report calls them "shipped"), e.g. `--set voiceMerge=0` for the older CLR merging on the same conversations.
//
// The readable report goes to stderr, the JSON to stdout and to --out (default bench-results/speakers-<date>.json).

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { runProcess } from "../src/media/index.js";
import { createSileroVad } from "../src/providers/onnx/index.js";
import { createLiteDiarizer, defaultLiteDiarizerSettings, type LiteDiarizerSettings } from "../src/providers/lite/index.js";
import { decodeSpeech, mixConversation, rootMeanSquare, trimSilence, writeSpeechWav, type ConversationTurn } from "../src/providers/lite/lite-diarizer-conversation.js";
import { readFrameFeatures } from "../src/providers/lite/lite-diarizer-features.js";
import { diarizeFeatures } from "../src/providers/lite/lite-diarizer.js";
import type { SpeakerTurn } from "../src/spec/index.js";
import { sharedDir } from "../src/test-support/shared.js";
import { assertDistinctEspeakVoices } from "./espeak-voices.js";
import { seededRandom } from "./seeded-random.js";

export interface BenchSpeakersOptions {
  conversations: number;
  /** Single voices of 4–6 minutes each. */
  monologues: number;
  seed: number;
  out: string;
  /** Keep the synthesised turns and built conversations here (reused by the next run), not in a temporary folder. */
  keep?: string;
  tune: boolean;
  /** Changes to the diarizer's defaults (`--set`). */
  settings: Partial<LiteDiarizerSettings>;
  log: (line: string) => void;
}

export function parseSpeakersArgs(args: string[]): Omit<BenchSpeakersOptions, "log"> {
  const { values } = parseArgs({
    args,
    options: { conversations: { type: "string" }, monologues: { type: "string" }, seed: { type: "string" }, out: { type: "string" }, keep: { type: "string" }, "no-tune": { type: "boolean" }, set: { type: "string" } },
  });
  const conversations = Number(values.conversations ?? 40);
  const seed = Number(values.seed ?? 1);
  const monologues = Number(values.monologues ?? 6);
  if (!Number.isInteger(monologues) || monologues < 0) throw new Error(`--monologues takes a whole number, not "${values.monologues}"`);
  if (!Number.isInteger(conversations) || conversations < 2) throw new Error(`--conversations takes a whole number of at least 2, not "${values.conversations}"`);
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed takes a whole number, not "${values.seed}"`);
  return {
    conversations,
    monologues,
    seed,
    out: values.out ?? join("bench-results", `speakers-${new Date().toISOString().slice(0, 10)}.json`),
    ...(values.keep ? { keep: values.keep } : {}),
    tune: !values["no-tune"],
    settings: parseSettings(values.set ?? ""),
  };
}

/** `name=value,name=value` → settings, each a known setting with a number. */
function parseSettings(text: string): Partial<LiteDiarizerSettings> {
  const settings: Partial<LiteDiarizerSettings> = {};
  for (const pair of text.split(",").filter(Boolean)) {
    const [name = "", value = ""] = pair.split("=");
    if (!(name in defaultLiteDiarizerSettings) || value.trim() === "" || !Number.isFinite(Number(value))) {
      throw new Error(`--set takes name=value pairs of the lite diarizer's settings (${Object.keys(defaultLiteDiarizerSettings).join(", ")}), not "${pair}"`);
    }
    settings[name as keyof LiteDiarizerSettings] = Number(value);
  }
  return settings;
}

// ---------------------------------------------------------------------------------------------------------------------
// Voices

const rate = 16_000;

/** A voice the conversations can use: it speaks a turn of about `seconds`, as 16 kHz samples with silence trimmed. */
interface Voice {
  name: string;
  kind: "real" | "espeak-ng" | "festival";
  /** `random` is uniform in [0, 1). */
  speak(seconds: number, random: () => number): Promise<Float32Array>;
}

const espeakVoices: { voice: string; pitch: number; speed: number }[] = [
  { voice: "en-us+m1", pitch: 45, speed: 165 },
  { voice: "en-us+m3", pitch: 35, speed: 155 },
  { voice: "en-us+m6", pitch: 55, speed: 170 },
  { voice: "en+m2", pitch: 40, speed: 160 },
  { voice: "en-gb-scotland+m4", pitch: 50, speed: 150 },
  { voice: "en-029+m5", pitch: 30, speed: 165 },
  { voice: "en+edward", pitch: 45, speed: 160 },
  { voice: "en-us+f1", pitch: 60, speed: 165 },
  { voice: "en-us+f3", pitch: 55, speed: 155 },
  { voice: "en+f4", pitch: 65, speed: 170 },
  { voice: "en-gb-x-rp+f2", pitch: 50, speed: 160 },
  { voice: "en-us+Andy", pitch: 50, speed: 165 },
  { voice: "en+Annie", pitch: 50, speed: 155 },
  { voice: "en-us+klatt4", pitch: 50, speed: 160 },
  { voice: "en-us+grandma", pitch: 50, speed: 150 },
];
const festivalVoices = ["kal_diphone", "ked_diphone", "cmu_us_slt_arctic_hts"];

/** Words of the how-to transcripts, for synthetic voices to read. */
function textSource(folder: string): (words: number, random: () => number) => string {
  const files = readdirSync(folder).filter((name) => name.endsWith(".txt")).sort();
  return (words, random) => {
    for (;;) {
      const name = files[Math.floor(random() * files.length)] as string;
      const all = readFileSync(join(folder, name), "utf8").toLowerCase().replace(/[^a-z' \n]/g, " ").split(/\s+/).filter(Boolean);
      if (all.length < words + 10) continue;
      const start = Math.floor(random() * (all.length - words));
      return all.slice(start, start + words).join(" ");
    }
  };
}

async function synthesisedVoices(cache: string, text: (words: number, random: () => number) => string, log: (line: string) => void): Promise<Voice[]> {
  mkdirSync(cache, { recursive: true });
  await assertDistinctEspeakVoices(espeakVoices.map(({ voice }) => voice));
  const synthesise = async (key: string, make: (wavPath: string, textPath: string) => Promise<void>): Promise<Float32Array> => {
    const wavPath = join(cache, `${createHash("sha1").update(key).digest("hex").slice(0, 16)}.wav`);
    if (!existsSync(wavPath)) {
      const textPath = `${wavPath}.txt`;
      writeFileSync(textPath, key.slice(key.indexOf("\n") + 1));
      await make(`${wavPath}.part.wav`, textPath);
      // Resampled to 16 kHz once, so later runs decode the cached file only.
      await writeSpeechWav(wavPath, await decodeSpeech(`${wavPath}.part.wav`));
      rmSync(`${wavPath}.part.wav`);
      rmSync(textPath);
    }
    return trimSilence(await decodeSpeech(wavPath));
  };
  const voices: Voice[] = [];
  const wordsPerSecond = 2.6;
  const fitted = async (seconds: number, random: () => number, say: (words: string) => Promise<Float32Array>): Promise<Float32Array> => {
    const samples = await say(text(Math.max(4, Math.round(seconds * wordsPerSecond)), random));
    return samples.length > 30 * rate ? trimSilence(samples.subarray(0, 30 * rate)) : samples;
  };
  for (const { voice, pitch, speed } of espeakVoices) {
    voices.push({
      name: `espeak-ng:${voice}`,
      kind: "espeak-ng",
      speak: (seconds, random) =>
        fitted(seconds, random, (words) =>
          synthesise(`espeak-ng ${voice} ${pitch} ${speed}\n${words}`, async (wavPath, textPath) => {
            await runProcess("espeak-ng", ["-v", voice, "-p", String(pitch), "-s", String(speed), "-w", wavPath, "-f", textPath], { installHint: "apt-get install espeak-ng" });
          }),
        ),
    });
  }
  const hasFestival = await runProcess("text2wave", ["-h"], { allowFailure: true }).then(() => true, () => false);
  for (const voice of festivalVoices) {
    const make = async (wavPath: string, textPath: string): Promise<void> => {
      await runProcess("text2wave", ["-eval", `(voice_${voice})`, "-o", wavPath, textPath]);
    };
    if (!hasFestival) {
      log(`festival voice ${voice} skipped: festival is not installed (apt-get install festival festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts)`);
      continue;
    }
    try {
      await synthesise(`festival ${voice}\nhello there`, make);
    } catch (error) {
      log(`festival voice ${voice} skipped: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
      continue;
    }
    voices.push({ name: `festival:${voice}`, kind: "festival", speak: (seconds, random) => fitted(seconds, random, (words) => synthesise(`festival ${voice}\n${words}`, make)) });
  }
  return voices;
}

/**
 * A real voice with little material (11 to 28 s). Within one conversation its turns are consecutive excerpts from a
 * random starting point, wrapping once, so no stretch is heard twice: repeated audio would make a voice's pieces
 * unnaturally alike. It then has nothing more to say (an empty turn).
 */
function recordedVoice(name: string, material: Float32Array, random: () => number): Voice {
  let cursor = Math.floor(random() * material.length);
  let left = material.length;
  return {
    name,
    kind: "real",
    speak: async (seconds) => {
      const length = Math.min(left, Math.round(seconds * rate));
      const excerpt = new Float32Array(length);
      for (let index = 0; index < length; index += 1) excerpt[index] = material[(cursor + index) % material.length] as number;
      cursor = (cursor + length) % material.length;
      left -= length;
      return trimSilence(excerpt);
    },
  };
}

/** Recordings joined with 0.3 s pauses, each trimmed of its own leading and trailing silence. */
async function joinedRecordings(paths: string[]): Promise<Float32Array> {
  const parts = await Promise.all(paths.map(async (path) => trimSilence(await decodeSpeech(path))));
  const pause = Math.round(0.3 * rate);
  const joined = new Float32Array(parts.reduce((sum, part) => sum + part.length + pause, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length + pause;
  }
  return joined;
}

// ---------------------------------------------------------------------------------------------------------------------
// Backgrounds

type BackgroundKind = "none" | "music" | "noise" | "film";

/** Chords of a few harmonics with plucked envelopes and a beat of noise bursts: music enough to disturb MFCCs. */
function syntheticMusic(seconds: number, random: () => number): Float32Array {
  const samples = new Float32Array(Math.round(seconds * rate));
  const beatSeconds = 0.35 + (random() + 0.5) * 0.3;
  const roots = [220, 246.9, 261.6, 293.7, 329.6, 349.2, 392];
  for (let start = 0; start < samples.length; start += Math.round(beatSeconds * rate)) {
    const root = roots[Math.floor((random() + 0.5) * roots.length)] as number;
    const chord = [root, root * 1.26, root * 1.5];
    const length = Math.min(samples.length - start, Math.round(beatSeconds * rate * 2));
    for (let index = 0; index < length; index += 1) {
      const time = index / rate;
      const envelope = Math.exp(-3 * time);
      let value = 0;
      for (const note of chord) for (let harmonic = 1; harmonic <= 4; harmonic += 1) value += Math.sin(2 * Math.PI * note * harmonic * time) / harmonic;
      // A drum: a short noise burst on each beat.
      if (index < 0.05 * rate) value += 2 * random() * Math.exp(-60 * time);
      samples[start + index] = (samples[start + index] as number) + 0.2 * envelope * value;
    }
  }
  return samples;
}

function syntheticNoise(seconds: number, random: () => number): Float32Array {
  const samples = new Float32Array(Math.round(seconds * rate));
  const colour = Math.floor((random() + 0.5) * 3);
  // Pink by Paul Kellet's economical filter; brown by a leaky integral.
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  let brown = 0;
  for (let index = 0; index < samples.length; index += 1) {
    const white = random();
    if (colour === 0) samples[index] = white;
    else if (colour === 1) {
      b0 = 0.99765 * b0 + white * 0.099046;
      b1 = 0.963 * b1 + white * 0.2965164;
      b2 = 0.57 * b2 + white * 1.0526913;
      samples[index] = b0 + b1 + b2 + white * 0.1848;
    } else {
      brown = 0.995 * brown + white;
      samples[index] = brown;
    }
  }
  return samples;
}

/**
 * The Sintel trailer's score and effects without its dialogue: the stretches Silero VAD calls speech (padded 0.3 s) are
 * cut out, since the trailer's characters are voices the reference does not know. Undefined when the trailer or the
 * VAD model is missing.
 */
async function filmSoundtrack(trailer: string, folder: string, log: (line: string) => void): Promise<Float32Array | undefined> {
  const vadModel = join(sharedDir as string, "models", "silero_vad.onnx");
  if (!existsSync(trailer) || !existsSync(vadModel)) {
    log(`the film background is skipped (music instead): ${existsSync(trailer) ? vadModel : trailer} is missing`);
    return undefined;
  }
  const samples = await decodeSpeech(trailer);
  const wavPath = join(folder, "film-soundtrack.wav");
  await writeSpeechWav(wavPath, samples);
  const speech = await createSileroVad({ modelPath: vadModel }).detect(wavPath);
  const keep = new Uint8Array(samples.length).fill(1);
  for (const region of speech) keep.fill(0, Math.max(0, Math.floor((region.startSecond - 0.3) * rate)), Math.min(samples.length, Math.ceil((region.endSecond + 0.3) * rate)));
  return samples.filter((_, index) => keep[index] === 1);
}

// ---------------------------------------------------------------------------------------------------------------------
// Conversations

interface BuiltConversation {
  id: string;
  wavPath: string;
  durationSeconds: number;
  speakers: string[];
  background: BackgroundKind;
  overlaps: boolean;
  reference: SpeakerTurn[];
  /** The union of the reference, pauses under 0.3 s bridged: what a perfect voice-activity detector would give. */
  trueRegions: [number, number][];
}

async function buildConversations(options: BenchSpeakersOptions, folder: string): Promise<{ conversations: BuiltConversation[]; synthetic: Voice[] }> {
  const shared = sharedDir as string;
  const media = join(shared, "media");
  const text = textSource(join(shared, "datasets", "howto-qa", "transcripts"));
  const synthetic = await synthesisedVoices(join(folder, "tts"), text, options.log);
  const librivox = join(media, "audio", "librivox");
  const recordings: [string, Float32Array][] = [
    ["real:jfk", await joinedRecordings([join(media, "audio", "jfk.wav")])],
    ["real:librivox", await joinedRecordings(readdirSync(librivox).filter((name) => name.endsWith(".wav")).sort().map((name) => join(librivox, name)))],
  ];
  // GRID's file names do not say who speaks, so a conversation takes at most one clip: two clips could be one talker.
  const gridFolder = join(media, "speech", "grid");
  const gridClips = existsSync(gridFolder) ? readdirSync(gridFolder).filter((name) => name.endsWith(".mpg")).sort() : [];
  const film = await filmSoundtrack(join(media, "speech", "sintel_trailer-720p.mp4"), folder, options.log);
  const built: BuiltConversation[] = [];
  for (let index = 0; index < options.conversations; index += 1) {
    const id = `conversation-${String(index + 1).padStart(2, "0")}`;
    const raw = seededRandom(mixedSeed(options.seed, index));
    const uniform = (): number => raw() + 0.5;
    const between = (low: number, high: number): number => low + uniform() * (high - low);
    const speakerCount = 2 + Math.floor(uniform() * 4);
    const pool: Voice[] = [...synthetic, ...recordings.map(([name, material]) => recordedVoice(name, material, uniform))];
    const gridClip = gridClips[Math.floor(uniform() * gridClips.length)];
    if (gridClip) pool.push(recordedVoice(`real:grid-${gridClip.replace(/\.mpg$/, "")}`, await joinedRecordings([join(gridFolder, gridClip)]), uniform));
    const voices: Voice[] = [];
    while (voices.length < speakerCount) {
      const voice = pool.splice(Math.floor(uniform() * pool.length), 1)[0] as Voice;
      voices.push(voice);
    }
    const overlaps = uniform() < 1 / 3;
    const backgroundRoll = uniform();
    const background: BackgroundKind = backgroundRoll < 0.4 ? "none" : backgroundRoll < 0.6 ? "music" : backgroundRoll < 0.8 ? "noise" : film ? "film" : "music";
    const targetSeconds = Math.exp(between(Math.log(45), Math.log(240)));
    const level = voices.map(() => 0.1 * 10 ** (between(-4, 4) / 20));
    const turns: ConversationTurn[] = [];
    let total = 0;
    let previous = -1;
    const silent = new Set<number>();
    // Every voice speaks first in turn, in random order; after that a random other voice takes each turn until the
    // conversation is long enough and every voice has spoken twice (or has nothing left to say: a real voice's
    // recording runs out). A voice left alone goes on after a pause while the conversation is too short.
    const turnsBy = (speaker: number): number => turns.filter((turn) => turn.speaker === (voices[speaker] as Voice).name).length;
    for (;;) {
      const speaking = Array.from({ length: speakerCount }, (_, speaker) => speaker).filter((speaker) => !silent.has(speaker));
      const others = speaking.filter((speaker) => speaker !== previous);
      const choices = others.length > 0 ? others : total < targetSeconds ? speaking : [];
      const unheard = choices.filter((speaker) => turnsBy(speaker) === 0);
      const once = choices.filter((speaker) => turnsBy(speaker) === 1);
      if (choices.length === 0 || (total >= targetSeconds && unheard.length === 0 && once.length === 0)) break;
      const pool = unheard.length > 0 ? unheard.slice(0, 1) : total >= targetSeconds ? once : choices;
      const speaker = pool[Math.floor(uniform() * pool.length)] as number;
      const voice = voices[speaker] as Voice;
      const seconds = Math.exp(between(Math.log(2), Math.log(30)));
      const samples = await voice.speak(seconds, uniform);
      if (samples.length < 1.5 * rate) {
        silent.add(speaker);
        continue;
      }
      const gapSeconds = turns.length === 0 ? 0 : overlaps && uniform() < 0.3 ? -Math.min(between(0.3, 1.5), samples.length / rate / 2, (turns.at(-1)?.samples.length ?? 0) / rate / 2) : between(0, 1.2);
      const gain = ((level[speaker] as number) * 10 ** (between(-1, 1) / 20)) / Math.max(1e-4, rootMeanSquare(samples));
      turns.push({ speaker: voice.name, samples, gapSeconds, gain });
      total += samples.length / rate + gapSeconds;
      previous = speaker;
    }
    const conversation = mixConversation(turns, { leadSeconds: between(0.2, 1.5), tailSeconds: between(0.2, 1.5) });
    if (background !== "none") {
      const noise = background === "music" ? syntheticMusic(conversation.samples.length / rate, raw) : background === "noise" ? syntheticNoise(conversation.samples.length / rate, raw) : (film as Float32Array);
      const speechLevel = rootMeanSquare(conversation.samples.filter((value) => value !== 0));
      const gain = (speechLevel / 10 ** (between(8, 20) / 20)) / Math.max(1e-6, rootMeanSquare(noise));
      const offset = Math.floor(uniform() * noise.length);
      for (let sample = 0; sample < conversation.samples.length; sample += 1) {
        conversation.samples[sample] = (conversation.samples[sample] as number) + gain * (noise[(offset + sample) % noise.length] as number);
      }
    }
    const wavPath = join(folder, `${id}.wav`);
    await writeSpeechWav(wavPath, conversation.samples);
    const entry: BuiltConversation = {
      id,
      wavPath,
      durationSeconds: conversation.samples.length / rate,
      speakers: [...new Set(turns.map((turn) => turn.speaker))],
      background,
      overlaps,
      reference: conversation.reference,
      trueRegions: unionOf(conversation.reference, 0.3),
    };
    // Beside the audio, so a kept folder can be listened to and scored by other tools.
    writeFileSync(join(folder, `${id}.json`), `${JSON.stringify(entry, null, 1)}\n`);
    built.push(entry);
  }
  return { conversations: built, synthetic };
}

/**
 * A seed for one recording: a linear congruential generator started from nearby seeds gives correlated first draws
 * (two thirds of a run's conversations drew no background where 40% was asked), so the numbers are scrambled first
 * (the finaliser of MurmurHash3).
 */
function mixedSeed(seed: number, index: number): number {
  let value = (Math.imul(seed, 0x9e3779b1) + Math.imul(index + 1, 0x85ebca6b)) >>> 0;
  value = Math.imul(value ^ (value >>> 16), 0x85ebca6b);
  value = Math.imul(value ^ (value >>> 13), 0xc2b2ae35);
  return (value ^ (value >>> 16)) >>> 0;
}

function unionOf(turns: SpeakerTurn[], bridgeSeconds: number): [number, number][] {
  const regions: [number, number][] = [];
  for (const turn of [...turns].sort((a, b) => a.startSecond - b.startSecond)) {
    const last = regions.at(-1);
    if (last && turn.startSecond - last[1] < bridgeSeconds) last[1] = Math.max(last[1], turn.endSecond);
    else regions.push([turn.startSecond, turn.endSecond]);
  }
  return regions;
}

// ---------------------------------------------------------------------------------------------------------------------
// Scores

/** Seconds of each kind of error, summable over conversations. */
export interface DiarizationErrors {
  referenceSeconds: number;
  missedSeconds: number;
  falseAlarmSeconds: number;
  confusionSeconds: number;
}

/**
 * Diarization errors as pyannote.metrics counts them (overlap scored), after the one-to-one speaker mapping that
 * maximises the time both agree, with ±`collarSeconds` around every reference turn's start and end left out.
 */
export function diarizationErrors(reference: SpeakerTurn[], hypothesis: SpeakerTurn[], collarSeconds: number): DiarizationErrors {
  const collars = unionOf(
    reference.flatMap((turn) => [
      { startSecond: turn.startSecond - collarSeconds, endSecond: turn.startSecond + collarSeconds, speaker: "" },
      { startSecond: turn.endSecond - collarSeconds, endSecond: turn.endSecond + collarSeconds, speaker: "" },
    ]),
    0,
  ).filter(([start, end]) => end > start);
  const points = [...new Set([...reference, ...hypothesis].flatMap((turn) => [turn.startSecond, turn.endSecond]).concat(collars.flat()))].sort((a, b) => a - b);
  const referenceNames = [...new Set(reference.map((turn) => turn.speaker))];
  const hypothesisNames = [...new Set(hypothesis.map((turn) => turn.speaker))];
  const pieces: { seconds: number; references: number[]; hypotheses: number[] }[] = [];
  const together = referenceNames.map(() => new Float64Array(hypothesisNames.length));
  for (let index = 0; index + 1 < points.length; index += 1) {
    const start = points[index] as number;
    const end = points[index + 1] as number;
    const middle = (start + end) / 2;
    if (collars.some(([from, to]) => middle > from && middle < to)) continue;
    const active = (turns: SpeakerTurn[], names: string[]): number[] => [...new Set(turns.filter((turn) => turn.startSecond < middle && turn.endSecond > middle).map((turn) => names.indexOf(turn.speaker)))];
    const piece = { seconds: end - start, references: active(reference, referenceNames), hypotheses: active(hypothesis, hypothesisNames) };
    for (const r of piece.references) for (const h of piece.hypotheses) (together[r] as Float64Array)[h] = ((together[r] as Float64Array)[h] as number) + piece.seconds;
    pieces.push(piece);
  }
  const mapping = bestMapping(together);
  const errors: DiarizationErrors = { referenceSeconds: 0, missedSeconds: 0, falseAlarmSeconds: 0, confusionSeconds: 0 };
  for (const piece of pieces) {
    const references = piece.references.length;
    const hypotheses = piece.hypotheses.length;
    const correct = piece.references.filter((r) => piece.hypotheses.includes(mapping[r] ?? -1)).length;
    errors.referenceSeconds += piece.seconds * references;
    errors.missedSeconds += piece.seconds * Math.max(0, references - hypotheses);
    errors.falseAlarmSeconds += piece.seconds * Math.max(0, hypotheses - references);
    errors.confusionSeconds += piece.seconds * (Math.min(references, hypotheses) - correct);
  }
  return errors;
}

/** The one-to-one mapping (reference → hypothesis, -1 for none) that maximises the summed weights: Hungarian method. */
function bestMapping(weights: Float64Array[]): number[] {
  const rows = weights.length;
  const columns = weights[0]?.length ?? 0;
  const size = Math.max(rows, columns);
  if (size === 0) return [];
  // Minimise cost = -weight on a square matrix padded with zeros (e-maxx's O(n³) formulation, 1-based).
  const cost = (i: number, j: number): number => (i <= rows && j <= columns ? -((weights[i - 1] as Float64Array)[j - 1] as number) : 0);
  const u = new Float64Array(size + 1);
  const v = new Float64Array(size + 1);
  const match = new Int32Array(size + 1);
  const way = new Int32Array(size + 1);
  for (let i = 1; i <= size; i += 1) {
    match[0] = i;
    let column = 0;
    const least = new Float64Array(size + 1).fill(Infinity);
    const used = new Uint8Array(size + 1);
    do {
      used[column] = 1;
      const row = match[column] as number;
      let delta = Infinity;
      let next = 0;
      for (let j = 1; j <= size; j += 1) {
        if (used[j]) continue;
        const reduced = cost(row, j) - (u[row] as number) - (v[j] as number);
        if (reduced < (least[j] as number)) {
          least[j] = reduced;
          way[j] = column;
        }
        if ((least[j] as number) < delta) {
          delta = least[j] as number;
          next = j;
        }
      }
      for (let j = 0; j <= size; j += 1) {
        if (used[j]) {
          u[match[j] as number] = (u[match[j] as number] as number) + delta;
          v[j] = (v[j] as number) - delta;
        } else least[j] = (least[j] as number) - delta;
      }
      column = next;
    } while (match[column] !== 0);
    do {
      const previous = way[column] as number;
      match[column] = match[previous] as number;
      column = previous;
    } while (column !== 0);
  }
  const mapping = new Array<number>(rows).fill(-1);
  for (let j = 1; j <= size; j += 1) {
    const i = match[j] as number;
    if (i >= 1 && i <= rows && j <= columns && ((weights[i - 1] as Float64Array)[j - 1] as number) > 0) mapping[i - 1] = j - 1;
  }
  return mapping;
}

function addErrors(total: DiarizationErrors, more: DiarizationErrors): void {
  total.referenceSeconds += more.referenceSeconds;
  total.missedSeconds += more.missedSeconds;
  total.falseAlarmSeconds += more.falseAlarmSeconds;
  total.confusionSeconds += more.confusionSeconds;
}

/** One diarization scored. */
interface Scored {
  id: string;
  collar0: DiarizationErrors;
  collar025: DiarizationErrors;
  found: number;
  truth: number;
  /** The least any true speaker speaks in it, in seconds. */
  quietestSpeakerSeconds: number;
}

/** Pooled over conversations, as shares of reference speech time. */
interface Summary {
  conversations: number;
  der: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  derCollar0: number;
  countExact: number;
  /** The same over the conversations where every speaker talks at least 5 s in all. */
  countExactWhereEverySpeakerTalks5s: { conversations: number; share: number };
  /** Found minus true speakers, per conversation. */
  countErrors: number[];
}

function summarise(results: Scored[]): Summary {
  const zero = (): DiarizationErrors => ({ referenceSeconds: 0, missedSeconds: 0, falseAlarmSeconds: 0, confusionSeconds: 0 });
  const wide = zero();
  const narrow = zero();
  for (const result of results) {
    addErrors(wide, result.collar025);
    addErrors(narrow, result.collar0);
  }
  const share = (seconds: number, errors: DiarizationErrors): number => round(seconds / Math.max(1e-9, errors.referenceSeconds));
  const exact = (set: Scored[]): number => round(set.filter((result) => result.found === result.truth).length / Math.max(1, set.length));
  const talkative = results.filter((result) => result.quietestSpeakerSeconds >= 5);
  return {
    conversations: results.length,
    der: share(wide.missedSeconds + wide.falseAlarmSeconds + wide.confusionSeconds, wide),
    missed: share(wide.missedSeconds, wide),
    falseAlarm: share(wide.falseAlarmSeconds, wide),
    confusion: share(wide.confusionSeconds, wide),
    derCollar0: share(narrow.missedSeconds + narrow.falseAlarmSeconds + narrow.confusionSeconds, narrow),
    countExact: exact(results),
    countExactWhereEverySpeakerTalks5s: { conversations: talkative.length, share: exact(talkative) },
    countErrors: results.map((result) => result.found - result.truth),
  };
}

const round = (value: number, places = 4): number => Math.round(value * 10 ** places) / 10 ** places;

function scoreTurns(conversation: BuiltConversation, turns: SpeakerTurn[]): Scored {
  const talk = new Map<string, number>();
  for (const turn of conversation.reference) talk.set(turn.speaker, (talk.get(turn.speaker) ?? 0) + turn.endSecond - turn.startSecond);
  return {
    id: conversation.id,
    collar0: diarizationErrors(conversation.reference, turns, 0),
    collar025: diarizationErrors(conversation.reference, turns, 0.25),
    found: new Set(turns.map((turn) => turn.speaker)).size,
    truth: conversation.speakers.length,
    quietestSpeakerSeconds: Math.min(...talk.values()),
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Monologues: one voice for minutes, the case of a narrated video, where a diarizer must not find a second speaker.

async function buildMonologues(options: BenchSpeakersOptions, folder: string, voices: Voice[]): Promise<BuiltConversation[]> {
  const random = seededRandom(mixedSeed(options.seed, 1_000_000));
  const uniform = (): number => random() + 0.5;
  const monologues: BuiltConversation[] = [];
  for (let index = 0; index < options.monologues; index += 1) {
    const voice = voices[Math.floor(uniform() * voices.length)] as Voice;
    const turns: ConversationTurn[] = [];
    let total = 0;
    const targetSeconds = 240 + uniform() * 120;
    while (total < targetSeconds) {
      const samples = await voice.speak(10 + uniform() * 20, uniform);
      const gapSeconds = 0.3 + uniform() * 1.2;
      turns.push({ speaker: voice.name, samples, gapSeconds, gain: (0.1 * 10 ** ((uniform() - 0.5) / 10)) / Math.max(1e-4, rootMeanSquare(samples)) });
      total += samples.length / rate + gapSeconds;
    }
    const monologue = mixConversation(turns);
    const id = `monologue-${String(index + 1).padStart(2, "0")}`;
    const wavPath = join(folder, `${id}.wav`);
    await writeSpeechWav(wavPath, monologue.samples);
    const entry: BuiltConversation = {
      id,
      wavPath,
      durationSeconds: monologue.samples.length / rate,
      speakers: [voice.name],
      background: "none",
      overlaps: false,
      reference: monologue.reference,
      trueRegions: unionOf(monologue.reference, 0.3),
    };
    writeFileSync(join(folder, `${id}.json`), `${JSON.stringify(entry, null, 1)}\n`);
    monologues.push(entry);
  }
  return monologues;
}

// ---------------------------------------------------------------------------------------------------------------------
// The run

type RegionSource = "true" | "silero" | "energy";

/** The settings searched, one at a time from the shipped ones, twice over (coordinate descent). */
const searchGrid: Partial<Record<keyof LiteDiarizerSettings, number[]>> = {
  bicPenalty: [3, 3.5, 4, 4.5, 5],
  voiceBicPenalty: [1.5, 2, 3],
  voiceThreshold: [150, 175, 200, 250, 300],
  spectralBicPenalty: [1.5, 2, 3],
  maxNeighbourShare: [0.1, 0.15, 0.2],
  clrThreshold: [-0.1, 0, 0.1, 0.2],
  clrSizeSlope: [0, 0.1, 0.15, 0.25],
  switchPenalty: [40, 70, 100, 150],
  changePenalty: [0.5, 1, 1.5],
  ubmComponents: [16, 32],
  reliableShare: [0.6, 0.7, 0.85, 1],
  noiseSubtraction: [0, 1],
  pitch: [0, 1],
};

export async function benchSpeakers(options: BenchSpeakersOptions): Promise<Record<string, unknown>> {
  if (!sharedDir) throw new Error("bench speakers needs ../shared (the real voices and the transcripts the synthetic ones read)");
  const folder = options.keep ? resolve(options.keep) : mkdtempSync(join(tmpdir(), "videorag-speakers-"));
  mkdirSync(folder, { recursive: true });
  try {
    const started = performance.now();
    const { conversations, synthetic } = await buildConversations(options, folder);
    const monologues = await buildMonologues(options, folder, synthetic);
    const audioSeconds = conversations.reduce((sum, conversation) => sum + conversation.durationSeconds, 0);
    const monologueSeconds = monologues.reduce((sum, monologue) => sum + monologue.durationSeconds, 0);
    options.log(
      `built ${conversations.length} conversations (${(audioSeconds / 60).toFixed(1)} minutes) and ${monologues.length} monologues ` +
        `(${(monologueSeconds / 60).toFixed(1)} minutes) in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
    const everyOther = <T>(items: T[], remainder: number): T[] => items.filter((_, index) => index % 2 === remainder);
    const sets = { tuning: [...everyOther(conversations, 0), ...everyOther(monologues, 0)], heldOut: [...everyOther(conversations, 1), ...everyOther(monologues, 1)] };

    // Tuning: the features once per recording, then the pipeline after them for each setting tried. The objective is
    // DER at collar 0.25 s plus 0.05 per 100% of recordings with the wrong number of speakers.
    const spectrum = { melBands: defaultLiteDiarizerSettings.melBands, lowHertz: 60, highHertz: 7600 };
    const features = new Map<string, Awaited<ReturnType<typeof readFrameFeatures>>>();
    const evaluate = async (settings: LiteDiarizerSettings, set: BuiltConversation[]): Promise<Summary> => {
      const results: Scored[] = [];
      for (const conversation of set) {
        let cached = features.get(conversation.id);
        if (!cached) {
          cached = await readFrameFeatures(conversation.wavPath, spectrum);
          features.set(conversation.id, cached);
        }
        const { turns } = await diarizeFeatures(cached, conversation.trueRegions, settings, undefined);
        results.push(scoreTurns(conversation, turns));
      }
      return summarise(results);
    };
    const objective = (summary: Summary): number => summary.der + 0.05 * (1 - summary.countExact);
    const shipped: LiteDiarizerSettings = { ...defaultLiteDiarizerSettings, ...options.settings };
    let tuned: LiteDiarizerSettings = { ...shipped };
    const tried: { change: Partial<LiteDiarizerSettings>; der: number; countExact: number }[] = [];
    if (options.tune) {
      let best = objective(await evaluate(tuned, sets.tuning));
      options.log(`tuning: shipped settings score ${best.toFixed(4)}`);
      for (let pass = 0; pass < 2; pass += 1) {
        for (const [name, values] of Object.entries(searchGrid) as [keyof LiteDiarizerSettings, number[]][]) {
          for (const value of values) {
            if (tuned[name] === value) continue;
            const candidate = { ...tuned, [name]: value };
            const summary = await evaluate(candidate, sets.tuning);
            tried.push({ change: { [name]: value }, der: summary.der, countExact: summary.countExact });
            if (objective(summary) < best - 1e-6) {
              best = objective(summary);
              tuned = candidate;
              options.log(`tuning: ${name} = ${value}: DER ${pct(summary.der)}, count exact ${pct(summary.countExact)}`);
            }
          }
        }
      }
    }
    features.clear();

    // The report: the whole diarize() call (reading the file included), three sources of speech regions.
    const vadModel = join(sharedDir, "models", "silero_vad.onnx");
    const vad = existsSync(vadModel) ? createSileroVad({ modelPath: vadModel }) : undefined;
    if (!vad) options.log(`Silero VAD skipped: ${vadModel} is missing`);
    const sileroRegions = new Map<string, [number, number][]>();
    for (const conversation of vad ? [...conversations, ...monologues] : []) {
      sileroRegions.set(conversation.id, (await (vad as NonNullable<typeof vad>).detect(conversation.wavPath)).map((region): [number, number] => [region.startSecond, region.endSecond]));
    }
    const report: Record<string, unknown> = {};
    const perConversation: Record<string, unknown>[] = [];
    const variants: { name: string; settings: LiteDiarizerSettings }[] = [{ name: "shipped", settings: { ...shipped } }];
    if (options.tune && JSON.stringify(tuned) !== JSON.stringify(shipped)) variants.push({ name: "tuned", settings: tuned });
    for (const variant of variants) {
      const diarizer = createLiteDiarizer({ settings: variant.settings });
      for (const source of ["true", "silero", "energy"] as RegionSource[]) {
        if (source === "silero" && !vad) continue;
        for (const [setName, set] of Object.entries(sets)) {
          const results: Scored[] = [];
          const knownCount: Scored[] = [];
          let diarizeSeconds = 0;
          let seconds = 0;
          for (const conversation of set) {
            const speechRegions = source === "true" ? conversation.trueRegions : source === "silero" ? sileroRegions.get(conversation.id) : undefined;
            const begun = performance.now();
            const { turns } = await diarizer.diarize(conversation.wavPath, speechRegions ? { speechRegions } : {});
            diarizeSeconds += (performance.now() - begun) / 1000;
            seconds += conversation.durationSeconds;
            const scored = scoreTurns(conversation, turns);
            results.push(scored);
            if (source === "true") {
              const known = await diarizer.diarize(conversation.wavPath, { speechRegions: conversation.trueRegions, speakers: conversation.speakers.length });
              knownCount.push(scoreTurns(conversation, known.turns));
              if (variant.name === "shipped") {
                perConversation.push({
                  id: conversation.id,
                  set: setName,
                  seconds: round(conversation.durationSeconds, 1),
                  speakers: conversation.speakers,
                  background: conversation.background,
                  overlaps: conversation.overlaps,
                  found: scored.found,
                  der: round((scored.collar025.missedSeconds + scored.collar025.falseAlarmSeconds + scored.collar025.confusionSeconds) / scored.collar025.referenceSeconds),
                });
              }
            }
          }
          const isMonologue = (result: Scored): boolean => result.id.startsWith("monologue");
          const summary = { ...summarise(results.filter((result) => !isMonologue(result))), realTimeFactor: round(seconds / diarizeSeconds, 1) };
          const monologueResults = results.filter(isMonologue);
          const oneSpeaker = { monologues: monologueResults.length, foundOne: monologueResults.filter((result) => result.found === 1).length, speakersFound: monologueResults.map((result) => result.found) };
          report[`${variant.name}.${source}.${setName}`] = { ...summary, monologues: oneSpeaker };
          if (knownCount.length > 0) report[`${variant.name}.true+count.${setName}`] = summarise(knownCount.filter((result) => !isMonologue(result)));
          options.log(
            `${variant.name}, ${source} regions, ${setName}: DER ${pct(summary.der)} (collar 0: ${pct(summary.derCollar0)}; missed ${pct(summary.missed)}, ` +
              `false alarm ${pct(summary.falseAlarm)}, confusion ${pct(summary.confusion)}), count exact ${pct(summary.countExact)} ` +
              `(${pct(summary.countExactWhereEverySpeakerTalks5s.share)} of ${summary.countExactWhereEverySpeakerTalks5s.conversations} where all talk 5 s), ` +
              `monologues one speaker ${oneSpeaker.foundOne}/${oneSpeaker.monologues}, ${summary.realTimeFactor}x real time`,
          );
        }
      }
    }
    const result = {
      date: new Date().toISOString().slice(0, 10),
      seed: options.seed,
      conversations: {
        count: conversations.length,
        minutes: round(audioSeconds / 60, 1),
        speakers: Object.fromEntries([2, 3, 4, 5].map((count) => [count, conversations.filter((conversation) => conversation.speakers.length === count).length])),
        backgrounds: Object.fromEntries(["none", "music", "noise", "film"].map((kind) => [kind, conversations.filter((conversation) => conversation.background === kind).length])),
        withOverlaps: conversations.filter((conversation) => conversation.overlaps).length,
        referenceTurns: conversations.reduce((sum, conversation) => sum + conversation.reference.length, 0),
        voices: [...new Set(conversations.flatMap((conversation) => conversation.speakers))].sort(),
        monologues: { count: monologues.length, minutes: round(monologueSeconds / 60, 1), voices: monologues.map((monologue) => monologue.speakers[0]) },
        split: "tuning: conversations and monologues numbered 1, 3, 5, …; held out: 2, 4, 6, …",
      },
      settings: { shipped, ...(options.tune ? { tuned, tried: tried.length } : {}) },
      results: report,
      perConversation,
    };
    mkdirSync(dirname(options.out), { recursive: true });
    writeFileSync(options.out, `${JSON.stringify(result, null, 2)}\n`);
    return result;
  } finally {
    if (!options.keep) rmSync(folder, { recursive: true, force: true });
  }
}

const pct = (share: number): string => `${(share * 100).toFixed(1)}%`;
