// A speech library of at least half an hour for the incremental-extraction benchmark, with the second every answer is
// spoken at. No subtitles anywhere (no sidecar files, no subtitle streams) and no spoken words on screen, so every
// answer has to come from speech recognition:
// - the GRID talking heads from ../shared, concatenated into one video with two seconds of black and silence between;
// - the LibriVox read sentences and JFK's inaugural line from ../shared, concatenated into one recording;
// - narrated videos made as the demo makes them (espeak-ng over a plain 720p picture that shows only a slide number),
//   reading real how-to transcripts from ../shared/datasets, a different transcript per video.
// Every audio track is assembled here sample by sample, so each answer's second is known by construction; within a
// recording, the speech is located by its loudness. Files are written once, with a manifest; a second call reuses them.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { stemmer } from "stemmer";
import { sharedPath } from "../src/test-support/shared.js";
import { seededRandom } from "./seeded-random.js";

/** A question whose answer is spoken in `file` between `startSecond` and `endSecond`. */
export interface SpeechQuestion {
  question: string;
  file: string;
  startSecond: number;
  endSecond: number;
  spoken: string;
  /** The answer's rarest words, where the question asks by them (narrated videos). */
  keys?: string[];
}

/** How far from its spoken answer a moment may lie and still be that answer's (a citation, a heard word). */
export const answerToleranceSeconds = 2;

/** The generated files and the questions about them. */
export interface SpeechLibrary {
  files: { path: string; durationSeconds: number }[];
  questions: SpeechQuestion[];
  totalSeconds: number;
}

const manifestName = "speech-library.json";
/** Raise when what is generated changes, so older folders are rebuilt. */
const version = 3;
const gapSeconds = 2;
const sentencePauseSeconds = 0.6;
const slideSeconds = 30;
const espeakWordsPerMinute = 160;
const questionsPerNarratedVideo = 5;
const font = ["/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"].find((path) => existsSync(path));

// ---------------------------------------------------------------------------------------------------------------------
// Processes and PCM audio

function run(program: string, args: string[]): Buffer {
  const result = spawnSync(program, args, { maxBuffer: 256 * 1024 * 1024 });
  if (result.error) throw new Error(`${program} is not installed (${result.error.message})`);
  if (result.status !== 0) throw new Error(`${program} failed: ${result.stderr.toString().trim().split("\n").pop() ?? ""}`);
  return result.stdout;
}

function probeSeconds(path: string): number {
  return Number(run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path]).toString().trim());
}

/** Mono 16-bit samples at `rate` per second. */
interface Pcm {
  rate: number;
  samples: Int16Array;
}

const seconds = (pcm: Pcm): number => pcm.samples.length / pcm.rate;

function fromBytes(bytes: Buffer, rate: number): Pcm {
  const copy = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  return { rate, samples: new Int16Array(copy.buffer, copy.byteOffset, copy.length / 2) };
}

/** Any recording ffmpeg reads, decoded to mono at `rate`. */
function decode(path: string, rate: number): Pcm {
  return fromBytes(run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-ar", String(rate), "-f", "s16le", "-"]), rate);
}

/** espeak-ng's own output: a 16-bit mono WAV. */
function readWav(path: string): Pcm {
  const data = readFileSync(path);
  const rate = data.readUInt32LE(24);
  let offset = 12;
  while (offset + 8 <= data.length) {
    const id = data.toString("ascii", offset, offset + 4);
    const size = data.readUInt32LE(offset + 4);
    if (id === "data") return fromBytes(data.subarray(offset + 8, Math.min(data.length, offset + 8 + size)), rate);
    offset += 8 + size + (size % 2);
  }
  throw new Error(`${path} has no data chunk`);
}

function writeWav(path: string, pcm: Pcm): void {
  const body = Buffer.from(pcm.samples.buffer, pcm.samples.byteOffset, pcm.samples.byteLength);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + body.length, 4);
  header.write("WAVEfmt ", 8, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(pcm.rate, 24);
  header.writeUInt32LE(pcm.rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(body.length, 40);
  writeFileSync(path, Buffer.concat([header, body]));
}

/** Appends recordings and silences on one timeline, keeping the clock in samples so offsets do not drift. */
class Timeline {
  private readonly parts: Int16Array[] = [];
  private length = 0;
  constructor(readonly rate: number) {}

  get clockSeconds(): number {
    return this.length / this.rate;
  }

  /** Adds `pcm` (same rate), padded with silence or cut to `fitSeconds` when given; returns where it starts. */
  add(pcm: Pcm, fitSeconds?: number): number {
    const start = this.clockSeconds;
    const wanted = fitSeconds === undefined ? pcm.samples.length : Math.round(fitSeconds * this.rate);
    this.parts.push(pcm.samples.subarray(0, wanted));
    this.length += Math.min(wanted, pcm.samples.length);
    if (wanted > pcm.samples.length) this.silence((wanted - pcm.samples.length) / this.rate);
    return start;
  }

  silence(durationSeconds: number): void {
    const count = Math.round(durationSeconds * this.rate);
    this.parts.push(new Int16Array(count));
    this.length += count;
  }

  pcm(): Pcm {
    const samples = new Int16Array(this.length);
    let offset = 0;
    for (const part of this.parts) {
      samples.set(part, offset);
      offset += part.length;
    }
    return { rate: this.rate, samples };
  }
}

/**
 * Where the speech in a recording begins and ends: the first and last 30 ms stretch louder than both 35 dB under the
 * loudest 10 ms and 10 dB over the background, after a high-pass that keeps hum and DC offset from counting.
 */
function speechSpan(pcm: Pcm): { startSecond: number; endSecond: number } {
  const frame = Math.round(pcm.rate / 100);
  const alpha = 1 / (1 + (2 * Math.PI * 100) / pcm.rate);
  const levels: number[] = [];
  let previousIn = 0;
  let previousOut = 0;
  let energy = 0;
  let count = 0;
  for (const sample of pcm.samples) {
    previousOut = alpha * (previousOut + sample - previousIn);
    previousIn = sample;
    energy += previousOut * previousOut;
    if (++count === frame) {
      levels.push(10 * Math.log10(energy / count + 1e-9));
      energy = 0;
      count = 0;
    }
  }
  const sorted = [...levels].sort((a, b) => a - b);
  const background = sorted[Math.floor(sorted.length / 10)] ?? 0;
  const threshold = Math.max((sorted[sorted.length - 1] ?? 0) - 35, background + 10);
  const loud = (index: number): boolean => [0, 1, 2].every((step) => (levels[index + step] ?? -Infinity) > threshold);
  const first = levels.findIndex((_, index) => loud(index));
  let last = levels.length - 3;
  while (last > first && !loud(last)) last--;
  if (first < 0) return { startSecond: 0, endSecond: seconds(pcm) };
  return { startSecond: first / 100, endSecond: Math.min(seconds(pcm), (last + 3) / 100) };
}

// ---------------------------------------------------------------------------------------------------------------------
// Text

const stopWords = new Set(
  ("a about above after again all also am an and any are around as at back be because been before being below between both but by " +
    "can come could did do does doing done down each even every few for from get gets getting go goes going gonna good got had has " +
    "have having he her here hers him his how i if in into is it its just know let lets like little look lot lots make makes making me " +
    "might more most much must my need next no nor not now of off okay on once one only or other our out over own pretty put quite " +
    "really right said same say see she should so some something still such sure take than that the their them then there these they " +
    "thing things think this those through to too two up us use used using very want wanna was way we well were what when where which " +
    "while who why will with would yeah yes you your yours actually basically kind maybe always never another three first second time " +
    "today gotta dont doesnt didnt thats theres youre weve youll youve ive ill im isnt cant wont alright anything").split(" "),
);

function wordsOf(text: string): string[] {
  return text.toLowerCase().replace(/['’]/g, "").match(/[a-z0-9]+/g) ?? [];
}

const contentWords = (text: string): string[] => wordsOf(text).filter((word) => word.length >= 4 && !stopWords.has(word) && !/^\d+$/.test(word));

/** Sentences of a punctuated transcript, cleaned of sound tags and of characters espeak-ng would spell out. */
function sentencesOf(text: string): string[] {
  const cleaned = text
    .replace(/\[[^\]]*\]|\([^)]*\)/g, " ")
    .replace(/[’‘]/g, "'")
    .replace(/[“”"]/g, "")
    .replace(/[^A-Za-z0-9.,!?;:'%$& -]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return cleaned
    .split(/(?<=[.?!])\s+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => /[A-Za-z]/.test(sentence));
}

/** Whether a transcript is English prose with sentence punctuation (some are captions with none, some not English). */
function readableEnglish(text: string, sentences: string[]): boolean {
  const words = wordsOf(text);
  if (words.length === 0 || /[^\u0020-\u007E\s’‘“”…–—]/.test(text.slice(0, 4000))) return false;
  const common = words.filter((word) => ["the", "and", "to", "you", "is", "it", "of", "a", "that", "this"].includes(word)).length;
  return common / words.length > 0.15 && words.length / sentences.length < 25;
}

// ---------------------------------------------------------------------------------------------------------------------
// Questions. The ones for the default library are written by hand, as a user would type them: sharing a few distinctive
// words with the spoken sentence, never the sentence itself. Other libraries (another `minutes`) fall back to a template.

const gridWords = {
  command: { b: "bin", l: "lay", p: "place", s: "set" },
  colour: { b: "blue", g: "green", r: "red", w: "white" },
  preposition: { a: "at", b: "by", i: "in", w: "with" },
  digit: { z: "zero", "1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven", "8": "eight", "9": "nine" },
  adverb: { a: "again", n: "now", p: "please", s: "soon" },
} as const;

/** A GRID file name's sentence: "bbaf2n" → "bin blue at f two now" (command, colour, preposition, letter, digit, adverb). */
export function gridSentence(code: string): string {
  const [command = "", colour = "", preposition = "", letter = "", digit = "", adverb = ""] = code.split("");
  const pick = (table: Record<string, string>, key: string): string => table[key] ?? key;
  return [pick(gridWords.command, command), pick(gridWords.colour, colour), pick(gridWords.preposition, preposition), letter,
    pick(gridWords.digit, digit), pick(gridWords.adverb, adverb)].join(" ");
}

const handWritten = new Map<string, string>([
  ["and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them", "how much could john dashwood prudently do for them?"],
  ["he was not an ill disposed young man", "was the young man ill disposed?"],
  ["unless to be rather cold hearted and rather selfish is to be ill disposed", "is being cold hearted and selfish the same as ill disposed?"],
  ["had he married a more a amiable woman he might have been made still more respectable than he was", "would a more amiable wife have made him respectable?"],
  ["he might even have been made amiable himself", "could he himself have become amiable?"],
  ["and so my fellow americans ask not what your country can do for you ask what you can do for your country", "what should fellow americans ask about their country?"],
  // The narrated videos of the default library (32 minutes).
  ["These work fine for small- and medium-sized projects, but what if we need to layout something big like a road, bridge, dam, or pipeline?", "how do you lay out something big like a bridge or a pipeline?"],
  ["Behind every wonder of the ancient world was an ancient geometry nerd who laid out the angles and alignments during construction.", "what did the ancient geometry nerd lay out?"],
  ["Modern theodolites, called total stations, can not only measure angles, but distance as well, and they have on-board computers to do the calculations and record the data for later use.", "do theodolites have computers to record data?"],
  ["Maybe you've got a drainage issue on your land, maybe you're planning a landscaping project, or maybe you just want to exercise your god-given right to take measurements of stuff and write those measurements down on a clipboard.", "can I survey my own land for a drainage or landscaping project?"],
  ["I tried a few ways to do this and there are no sines, cosines, or tangents required.", "do you need sines or cosines for this?"],
  ["Often considered by gardeners or lawn owners alike to be a type of troublesome weed, to the typical herbalist or forager, dandelions are viewed as a highly nutritious food source and medicinal herb.", "do herbalists think of dandelions as a medicinal herb?"],
  ["Popular for its round-seedy wishballs and bright yellow blossoms, dandelion is from the large group of flowering plants in the asterisie or sunflower family.", "what family are dandelions with yellow blossoms from?"],
  ["However, compared to store-bought greens or vegetables, they actually harbor a superior level of nourishment.", "are they more nourishing than store-bought vegetables?"],
  ["This substance contains compounds like sesquiturpine lactones and teraxastorol, which are also present in high amounts in the roots.", "which compounds like lactones are found in the roots?"],
  ["The study published in the International Journal of Molecular Sciences concluded that both the leaves and roots of teraxicum aficionale have an antioxidative and hypolipidemic impact when tested on cholesterol-fed rabbits.", "what did the study on cholesterol-fed rabbits conclude?"],
  ["That string has been pre-shortened because with looping yoyos like the Oracle, shorter strings make it a lot easier to do tricks.", "why is the yoyo string pre-shortened?"],
  ["We wanted to go with more of a fantasy theme for these because we felt like fantasy literature has a much broader appeal than almost anything else, and that is how we feel about yoyoing.", "why did they choose a fantasy literature theme?"],
  ["If you want to get really good at 2A you can do that, if you want to try one of the other styles like offstring, you are going to be ready to do that.", "can I try offstring or other styles besides 2A?"],
  ["Then some of the tricks are going to be more looping tricks, which is more suited to the Oracle, and also two handed tricks.", "is the Oracle suited to two handed tricks?"],
  ["You want it to be able to loop very consistently, and you also want it to be able to sleep long enough to be able to do your Around the World tricks and your Wrap Tricks.", "how long should the yoyo sleep for around the world?"],
  ["So if you are a book purist, we have hundreds of other DIY videos that you can watch.", "are there other DIY videos for a book purist?"],
  ["The cardboard on this box was a little thicker than I expected, so I also ended up using a thumbtack to poke holes which I then connected using my craft knife.", "what did she use a thumbtack for when poking holes?"],
  ["Then use a ruler to mark a rectangle on the first page of the book, leaving about an inch on each side and the bottom.", "what is the ruler for on the first page of the book?"],
  ["You can cut apart a cereal box or use any cardboard that you have lying around.", "can a cereal box replace the cardboard?"],
  ["Remove the tape from the edges and then use paint, washi tape, letter stickers, a labelmaker, anything you like to decorate your book bank.", "how can I decorate the book bank?"],
  ["However, you'll need to remove the two chicken breasts from the oven sooner than the rest of the chicken to be sure that they don't dry out.", "why take the chicken breasts out of the oven sooner?"],
  ["I've been scanning chickens since I was about 12 years old and while I used to think it was against all child labor laws, I now think it's a pretty handy skill to have.", "what does he say about chickens and child labor laws?"],
  ["Cut along the joint and then flex the joint into your hip hop, so that it becomes more obvious where to cut all the way through.", "how do I flex the joint to see where to cut?"],
  ["You'll also need a great to lay over the pan so your chicken isn't directly against the pan and has some wounds to breathe and get crisp.", "why keep the chicken off the pan so it can breathe and get crisp?"],
  ["Once you lay the chicken in place on the grate try not to move because it tends to lift the oil from the grate and the chicken will be more prone to sticking.", "why does the chicken stick to the grate if I move it?"],
  ["Get out that plumber snake and try clearing out your house drain pipe.", "should I use a plumber snake on the drain?"],
  ["Now we'll cover some tips for two common types of top load washers made by Kenmore, Warpool, and MateG.", "which top load washers, like Kenmore, are covered?"],
  ["This code indicates you have a broken shifter, the part that sends the washer into spin and drain modes.", "what does the code for a broken shifter mean?"],
  ["This will reset the drive system to conduct the neutral drain process.", "how do I reset the drive system?"],
  ["Cover the plug with electrical tape so there's no chance of the jumper wire shorting to the metal cabinet.", "why tape over the plug next to the jumper wire?"],
  ["And it just so happens, that one of my most cherished ant colonies has been due for a very long time now for a new ant farm upgrade.", "which ant colony was due for a farm upgrade?"],
  ["The last dedicated video we made on these gorgeous gals was way back in August of last year, and before that all the way back in January of last year!", "when was the last video about these gorgeous gals?"],
  ["They're friendly, never tried to escape, ate well, were always intimidating enough to keep wild ants from breaking into their setup, and best of all, grew bigger, but rather gradually and non-explosively.", "did the ants ever try to escape or grow explosively?"],
  ["I promised myself that with these Dark Knights, we would aim for beauty as usual, but keep things simple, because they too were a beautiful yet simple ant colony.", "what did he promise himself about the dark knights and beauty?"],
  ["The colony is currently inhabiting a Hybrid Nest and an Uncle Milton Ant Farm, but the majority of the colony resides in this rooster plant pot within a rubbermaid bin.", "where does most of the colony live, the rooster plant pot?"],
]);

function questionFor(answer: Answer, index: number): string {
  const written = handWritten.get(answer.spoken);
  if (written) return written;
  if (answer.kind === "grid") return `where does someone say ${answer.spoken.split(" ").slice(0, 5).join(" ")}?`;
  const words = answer.keys ?? [...new Set(contentWords(answer.spoken))].sort((a, b) => b.length - a.length).slice(0, 3);
  const templates = [`what is said about ${words.join(" and ")}?`, `where do they talk about ${words.join(", ")}?`, `which part mentions ${words.join(" and ")}?`];
  return templates[index % templates.length] ?? "";
}

// ---------------------------------------------------------------------------------------------------------------------
// The files

/** An answer as the manifest keeps it; the question's wording is derived when the library is returned. */
interface Answer {
  kind: "grid" | "reading" | "narrated";
  startSecond: number;
  endSecond: number;
  spoken: string;
  /** Words a question about it should share with it, for the template when no question is written by hand. */
  keys?: string[];
}

interface Entry {
  name: string;
  recipe: string;
  durationSeconds: number;
  sizeBytes: number;
  answers: Answer[];
}

interface Manifest {
  version: number;
  minutes: number;
  entries: Entry[];
}

const round = (second: number): number => Math.round(second * 1000) / 1000;

/** `count` items spread over the list, first and last included. */
function spread<T>(items: T[], count: number): T[] {
  if (items.length <= count) return items;
  return Array.from({ length: count }, (_, index) => items[Math.round((index * (items.length - 1)) / (count - 1))] as T);
}

function finish(directory: string, name: string, recipe: string, answers: Answer[]): Entry {
  const path = join(directory, name);
  return { name, recipe, durationSeconds: round(probeSeconds(path)), sizeBytes: statSync(path).size, answers };
}

function buildGrid(directory: string, scratch: string, name: string): Entry {
  const folder = sharedPath("media/speech/grid");
  const clips = readdirSync(folder).filter((file) => file.endsWith(".mpg")).sort();
  const timeline = new Timeline(16000);
  const answers: Answer[] = [];
  const chains: string[] = [];
  const inputs: string[] = [];
  for (const [index, clip] of clips.entries()) {
    const path = join(folder, clip);
    const clipSeconds = probeSeconds(path);
    const pcm = decode(path, timeline.rate);
    const span = speechSpan(pcm);
    const start = timeline.add(pcm, clipSeconds);
    timeline.silence(gapSeconds);
    // "id2_vcd_swwp2s" names the sentence in its last part.
    const spoken = gridSentence(clip.replace(/\.mpg$/, "").replace(/^.*_/, ""));
    answers.push({ kind: "grid", startSecond: round(start + span.startSecond), endSecond: round(start + span.endSecond), spoken });
    inputs.push("-i", path);
    chains.push(`[${index}:v]scale=360:288,fps=25,setsar=1,setpts=PTS-STARTPTS,tpad=stop_mode=add:stop_duration=${gapSeconds + 1},trim=duration=${(clipSeconds + gapSeconds).toFixed(3)}[v${index}]`);
  }
  const audio = join(scratch, "grid.wav");
  writeWav(audio, timeline.pcm());
  const concat = `${clips.map((_, index) => `[v${index}]`).join("")}concat=n=${clips.length}:v=1:a=0[v]`;
  run("ffmpeg", ["-y", "-v", "error", ...inputs, "-i", audio, "-filter_complex", [...chains, concat].join(";"), "-map", "[v]", "-map", `${clips.length}:a`,
    "-c:v", "libx264", "-preset", "veryfast", "-threads", "2", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "96k", "-ar", "44100", "-movflags", "+faststart", join(directory, name)]);
  return finish(directory, name, "grid", spread(answers, 6));
}

function buildReadings(directory: string, name: string): Entry {
  const folder = sharedPath("media/audio/librivox");
  const texts = new Map(
    readFileSync(join(folder, "transcription"), "utf8")
      .split("\n")
      .map((line) => line.match(/^<s> (.*) <\/s> \((.*)\)$/))
      .filter((match): match is RegExpMatchArray => match !== null)
      .map((match) => [match[2] ?? "", match[1] ?? ""]),
  );
  const parts = [
    ...readdirSync(folder).filter((file) => file.endsWith(".wav")).sort().map((file) => ({ path: join(folder, file), text: texts.get(file.replace(/\.wav$/, "")) ?? "" })),
    { path: sharedPath("media/audio/jfk.wav"), text: "and so my fellow americans ask not what your country can do for you ask what you can do for your country" },
  ];
  const timeline = new Timeline(16000);
  const answers: Answer[] = [];
  for (const part of parts) {
    const pcm = decode(part.path, timeline.rate);
    const span = speechSpan(pcm);
    const start = timeline.add(pcm);
    timeline.silence(gapSeconds);
    if (part.text) answers.push({ kind: "reading", startSecond: round(start + span.startSecond), endSecond: round(start + span.endSecond), spoken: part.text });
  }
  writeWav(join(directory, name), timeline.pcm());
  return finish(directory, name, "readings", answers);
}

/** A narrated video to make: which transcript, the sentences it may read, for how long, over which colour. */
interface NarrationPlan {
  name: string;
  transcript: string;
  sentences: string[];
  targetSeconds: number;
  colour: string;
}

/** Lengths of 3.5 to 7 minutes adding up to `totalSeconds`, none under 3 minutes or over 8. */
function planLengths(totalSeconds: number, random: () => number): number[] {
  const lengths: number[] = [];
  let left = totalSeconds;
  while (left > 0) {
    if (left <= 480) {
      lengths.push(Math.max(left, 180));
      break;
    }
    let length = 210 + (random() + 0.5) * 210;
    if (left - length < 180) length = left - 180 >= 180 ? left - 180 : left / 2;
    lengths.push(length);
    left -= length;
  }
  return lengths;
}

/** How rare a word is in how-to videos: the log of one over the share of English transcripts that say it. */
type Rareness = (word: string) => number;
/** Said in fewer than one how-to video in thirty. */
const rareEnough = Math.log(30);

function measureRareness(): Rareness {
  const folder = sharedPath("datasets/howto-qa/transcripts");
  // A quarter of the transcripts is enough to tell "buttermilk" from "straight".
  const documents = new Map<string, number>();
  let documentCount = 0;
  for (const file of readdirSync(folder).filter((name) => name.endsWith(".txt")).sort().filter((_, index) => index % 4 === 0)) {
    const text = readFileSync(join(folder, file), "utf8");
    if (wordsOf(text).length < 300 || !readableEnglish(text, sentencesOf(text))) continue;
    documentCount++;
    for (const word of new Set(wordsOf(text))) documents.set(word, (documents.get(word) ?? 0) + 1);
  }
  return (word) => Math.log(documentCount / (1 + (documents.get(word) ?? 0)));
}

/** Long enough, and with rare words enough, that a recogniser getting a third of the words wrong can still place it. */
function askable(sentence: string, rareness: Rareness): boolean {
  const words = wordsOf(sentence).length;
  return words >= 8 && words <= 40 && new Set(contentWords(sentence).filter((word) => rareness(word) >= rareEnough)).size >= 2;
}

/**
 * Transcripts drawn in a seeded order: the first ones in English, punctuated into sentences, long enough for each
 * planned length, and with sentences worth asking about all along what is read.
 */
function planNarration(totalSeconds: number, rareness: Rareness): NarrationPlan[] {
  const folder = sharedPath("datasets/howto-qa/transcripts");
  const random = seededRandom(20261124);
  const names = readdirSync(folder).filter((file) => file.endsWith(".txt")).sort();
  for (let index = names.length - 1; index > 0; index--) {
    const other = Math.floor((random() + 0.5) * (index + 1));
    [names[index], names[other]] = [names[other] as string, names[index] as string];
  }
  const colours = ["navy", "darkgreen", "maroon", "darkslategray", "indigo", "saddlebrown", "teal", "dimgray", "darkolivegreen", "midnightblue"];
  const plans: NarrationPlan[] = [];
  let next = 0;
  for (const targetSeconds of planLengths(totalSeconds, random)) {
    // What espeak reads in the planned time and a minute more, so the reading never runs out.
    const wordsRead = ((targetSeconds + 60) / 60) * espeakWordsPerMinute;
    for (; next < names.length; next++) {
      const transcript = names[next] as string;
      const text = readFileSync(join(folder, transcript), "utf8");
      const all = sentencesOf(text);
      if (wordsOf(text).length < wordsRead || !readableEnglish(text, all)) continue;
      let words = 0;
      const sentences = all.filter((sentence) => (words += wordsOf(sentence).length) <= wordsRead);
      const quarters = [0, 1, 2, 3].map((quarter) => sentences.slice((quarter * sentences.length) / 4, ((quarter + 1) * sentences.length) / 4));
      if (!quarters.every((quarter) => quarter.filter((sentence) => askable(sentence, rareness)).length >= 3)) continue;
      plans.push({ name: `narrated-${plans.length + 1}.mp4`, transcript, sentences, targetSeconds: Math.round(targetSeconds), colour: colours[plans.length % colours.length] ?? "navy" });
      next++;
      break;
    }
  }
  return plans;
}

/** How well a sentence's words place it: rare in how-to videos at large, and together said nowhere else in the library. */
interface Rarity {
  /** 0 when the sentence is not worth asking about. */
  score(sentence: string): number;
  /** The two or three words a question about it should share with it. */
  keys(sentence: string): string[];
}

function measureRarity(rareness: Rareness, librarySentences: string[]): Rarity {
  // Compared by stem: a search engine takes "page" and "pages" for the same word, so must this check.
  const sentenceStems = librarySentences.map((sentence) => new Set(contentWords(sentence).map((word) => stemmer(word))));
  const inLibrary = new Map<string, number>();
  for (const stems of sentenceStems) for (const stem of stems) inLibrary.set(stem, (inLibrary.get(stem) ?? 0) + 1);
  // The fewer sentences here say a word, the better it places its own.
  const weight = (word: string): number => rareness(word) / (inLibrary.get(stemmer(word)) ?? 1);
  const keys = (sentence: string): string[] => {
    const byStem = new Map(contentWords(sentence).filter((word) => rareness(word) >= rareEnough).map((word) => [stemmer(word), word]));
    return [...byStem.values()].sort((a, b) => weight(b) - weight(a)).slice(0, 3);
  };
  return {
    keys,
    score(sentence) {
      if (!askable(sentence, rareness)) return 0;
      const found = keys(sentence);
      // Another sentence with two of the same words could be the answer as well.
      if (sentenceStems.filter((other) => found.filter((word) => other.has(stemmer(word))).length >= 2).length > 1) return 0;
      return found.reduce((sum, word) => sum + weight(word), 0) + Math.min(wordsOf(sentence).length, 24) / 8;
    },
  };
}

function buildNarrated(directory: string, scratch: string, plan: NarrationPlan, rarity: Rarity): Entry {
  const said: { text: string; startSecond: number; endSecond: number }[] = [];
  let timeline: Timeline | undefined;
  for (const [index, sentence] of plan.sentences.entries()) {
    if (timeline && timeline.clockSeconds >= plan.targetSeconds) break;
    const wav = join(scratch, `${plan.name}-${index}.wav`);
    run("espeak-ng", ["-v", "en-us", "-s", String(espeakWordsPerMinute), "-w", wav, sentence]);
    const pcm = readWav(wav);
    rmSync(wav, { force: true });
    timeline ??= new Timeline(pcm.rate);
    timeline.silence(sentencePauseSeconds);
    const span = speechSpan(pcm);
    const start = timeline.add(pcm);
    said.push({ text: sentence, startSecond: start + span.startSecond, endSecond: start + span.endSecond });
  }
  if (!timeline) throw new Error(`${plan.transcript} has no sentences`);
  timeline.silence(1);
  const audio = join(scratch, `${plan.name}.wav`);
  writeWav(audio, timeline.pcm());
  // A plain picture with only a slide number: the words have to be heard, not read.
  const picture = `drawtext=fontfile=${font}:text='Slide %{eif\\:floor(t/${slideSeconds})+1\\:d}':fontsize=72:fontcolor=white:x=(w-text_w)/2:y=(h-text_h)/2`;
  run("ffmpeg", ["-y", "-v", "error", "-f", "lavfi", "-i", `color=c=${plan.colour}:s=1280x720:r=25:d=${timeline.clockSeconds.toFixed(3)}`, "-i", audio,
    "-map", "0:v", "-map", "1:a", "-vf", picture, "-c:v", "libx264", "-preset", "veryfast", "-tune", "stillimage", "-threads", "2", "-pix_fmt", "yuv420p",
    "-c:a", "aac", "-b:a", "96k", "-ar", "44100", "-movflags", "+faststart", join(directory, plan.name)]);
  rmSync(audio, { force: true });

  // Sentences a recogniser that gets a third of the words wrong can still place (eight words or more, two rare ones)
  // and whose rarest words no other sentence in the library shares. The best one in each fifth of the video, so the
  // questions reach from the beginning to the end.
  const endSecond = timeline.clockSeconds;
  const answers: Answer[] = [];
  for (let part = 0; part < questionsPerNarratedVideo; part++) {
    const from = (part * endSecond) / questionsPerNarratedVideo;
    const to = ((part + 1) * endSecond) / questionsPerNarratedVideo;
    const best = said.filter((sentence) => sentence.startSecond >= from && sentence.startSecond < to && rarity.score(sentence.text) > 0)
      .sort((a, b) => rarity.score(b.text) - rarity.score(a.text))[0];
    if (best) answers.push({ kind: "narrated", startSecond: round(best.startSecond), endSecond: round(best.endSecond), spoken: best.text, keys: rarity.keys(best.text) });
  }
  return finish(directory, plan.name, JSON.stringify({ transcript: plan.transcript, targetSeconds: plan.targetSeconds, colour: plan.colour }), answers);
}

// ---------------------------------------------------------------------------------------------------------------------

/** The manifest in `path`, and the files any earlier version of it listed (to delete those no longer made). */
function readManifest(path: string): { manifest: Manifest | undefined; names: string[] } {
  if (!existsSync(path)) return { manifest: undefined, names: [] };
  try {
    const saved = JSON.parse(readFileSync(path, "utf8")) as Partial<Manifest> & { files?: { path?: string }[] };
    const names = [...(saved.entries ?? []).map((entry) => entry.name), ...(saved.files ?? []).map((file) => basename(file.path ?? ""))].filter(Boolean);
    return { manifest: saved.version === version && Array.isArray(saved.entries) ? (saved as Manifest) : undefined, names };
  } catch {
    return { manifest: undefined, names: [] };
  }
}

function present(directory: string, entry: Entry): boolean {
  const path = join(directory, entry.name);
  return existsSync(path) && statSync(path).size === entry.sizeBytes;
}

function toLibrary(directory: string, entries: Entry[]): SpeechLibrary {
  let count = 0;
  return {
    files: entries.map((entry) => ({ path: join(directory, entry.name), durationSeconds: entry.durationSeconds })),
    questions: entries.flatMap((entry) =>
      entry.answers.map((answer) => ({
        question: questionFor(answer, count++),
        file: join(directory, entry.name),
        startSecond: answer.startSecond,
        endSecond: answer.endSecond,
        spoken: answer.spoken,
        ...(answer.keys ? { keys: answer.keys } : {}),
      })),
    ),
    totalSeconds: round(entries.reduce((sum, entry) => sum + entry.durationSeconds, 0)),
  };
}

/** Writes (or finds, from an earlier call) at least `minutes` (default 32) of speech in `directory`, and where each answer is. */
export async function makeSpeechLibrary(directory: string, options: { minutes?: number } = {}): Promise<SpeechLibrary> {
  const minutes = options.minutes ?? 32;
  const absolute = resolve(directory);
  const manifestPath = join(absolute, manifestName);
  const { manifest: saved, names: savedNames } = readManifest(manifestPath);
  const progress = (entry: Entry, how: string): void => {
    process.stderr.write(`speech library: ${entry.name} ${entry.durationSeconds.toFixed(1)} s, ${entry.answers.length} questions (${how})\n`);
  };
  if (saved && saved.minutes === minutes && saved.entries.every((entry) => present(absolute, entry))) {
    for (const entry of saved.entries) progress(entry, "reused");
    return toLibrary(absolute, saved.entries);
  }
  if (!font) throw new Error("no DejaVu font found (apt-get install fonts-dejavu-core)");
  mkdirSync(absolute, { recursive: true });
  const scratch = join(absolute, ".scratch");
  mkdirSync(scratch, { recursive: true });
  const manifest: Manifest = { version, minutes, entries: [] };
  // A file of an earlier, interrupted or different run is kept when it was made the same way.
  const reuse = (name: string, recipe: string, build: () => Entry): Entry => {
    const earlier = saved?.entries.find((entry) => entry.name === name && entry.recipe === recipe);
    const entry = earlier && present(absolute, earlier) ? earlier : build();
    progress(entry, entry === earlier ? "reused" : "made");
    manifest.entries.push(entry);
    writeFileSync(manifestPath, JSON.stringify(manifest, null, 1));
    return entry;
  };
  try {
    reuse("grid-sentences.mp4", "grid", () => buildGrid(absolute, scratch, "grid-sentences.mp4"));
    reuse("readings.wav", "readings", () => buildReadings(absolute, "readings.wav"));
    const madeSeconds = manifest.entries.reduce((sum, entry) => sum + entry.durationSeconds, 0);
    const rareness = measureRareness();
    const plans = planNarration(minutes * 60 - madeSeconds, rareness);
    // What the videos may say: a little more than they will, to err on the safe side.
    const rarity = measureRarity(rareness, [...manifest.entries.flatMap((entry) => entry.answers.map((answer) => answer.spoken)), ...plans.flatMap((plan) => plan.sentences)]);
    for (const plan of plans) {
      const recipe = JSON.stringify({ transcript: plan.transcript, targetSeconds: plan.targetSeconds, colour: plan.colour });
      reuse(plan.name, recipe, () => buildNarrated(absolute, scratch, plan, rarity));
    }
    // Files an earlier run made that this one does not list.
    for (const name of savedNames) {
      if (!manifest.entries.some((kept) => kept.name === name)) rmSync(join(absolute, basename(name)), { force: true });
    }
    return toLibrary(absolute, manifest.entries);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const library = await makeSpeechLibrary(process.argv[2] ?? "speech-library");
  const summary = {
    minutes: round(library.totalSeconds / 60),
    files: library.files.map((file) => ({ path: file.path, durationSeconds: file.durationSeconds, questions: library.questions.filter((question) => question.file === file.path).length })),
    questions: library.questions.length,
  };
  console.log(JSON.stringify(summary, null, 2));
}
