// "Who said …?" answered end to end: meetings of 2–4 synthetic voices (espeak-ng variants; Debian's festival voices
// when installed) reading lines of the how-to transcripts in ../shared, each a video whose WebVTT subtitles give every
// line and its times but name no one, as most subtitles do. The library is built as a user builds it (`ingest`, the
// lite profile: the diarizer labels the subtitles from the audio), then asked "who said <eight words of a line>?" for
// lines of every meeting. An answer is right when its first quoted line is from that meeting at that line's time and
// its speaker is the line's voice under the best one-to-one mapping of the meeting's labels to its voices.
//
//   npm run bench who-said [-- --meetings 20] [--questions 5] [--seed 1] [--keep dir] [--out file]
//
// The readable report goes to stderr, the JSON to stdout and to --out (default bench-results/who-said-<date>.json).

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { openLibrary } from "../src/library.js";
import { runProcess } from "../src/media/index.js";
import { decodeSpeech, trimSilence, writeSpeechWav } from "../src/providers/lite/lite-diarizer-conversation.js";
import { sharedDir } from "../src/test-support/shared.js";
import { assertDistinctEspeakVoices } from "./espeak-voices.js";
import { seededRandom } from "./seeded-random.js";

export interface BenchWhoSaidOptions {
  meetings: number;
  questions: number;
  seed: number;
  out: string;
  keep?: string;
  log: (line: string) => void;
}

export function parseWhoSaidArgs(args: string[]): Omit<BenchWhoSaidOptions, "log"> {
  const { values } = parseArgs({ args, options: { meetings: { type: "string" }, questions: { type: "string" }, seed: { type: "string" }, out: { type: "string" }, keep: { type: "string" } } });
  const whole = (value: string | undefined, fallback: number, name: string, least: number): number => {
    const number = Number(value ?? fallback);
    if (!Number.isInteger(number) || number < least) throw new Error(`--${name} takes a whole number of at least ${least}, not "${value}"`);
    return number;
  };
  return {
    meetings: whole(values.meetings, 20, "meetings", 1),
    questions: whole(values.questions, 5, "questions", 1),
    seed: whole(values.seed, 1, "seed", 0),
    out: values.out ?? join("bench-results", `who-said-${new Date().toISOString().slice(0, 10)}.json`),
    ...(values.keep ? { keep: values.keep } : {}),
  };
}

const rate = 16_000;

/** A voice that reads text aloud into 16 kHz samples. */
interface Voice {
  name: string;
  say(text: string, wavPath: string, textPath: string): Promise<void>;
}

const espeak = (voice: string, pitch: number, speed: number): Voice => ({
  name: `espeak-ng:${voice}`,
  say: async (_text, wavPath, textPath) => {
    await runProcess("espeak-ng", ["-v", voice, "-p", String(pitch), "-s", String(speed), "-w", wavPath, "-f", textPath], { installHint: "apt-get install espeak-ng" });
  },
});

async function availableVoices(log: (line: string) => void): Promise<Voice[]> {
  const voices = [
    espeak("en-us+m1", 45, 165), espeak("en+f4", 60, 160), espeak("en-us+m3", 30, 150), espeak("en-gb-scotland+m4", 40, 170),
    espeak("en-us+f1", 70, 155), espeak("en+edward", 50, 160), espeak("en-us+grandma", 55, 140), espeak("en-029+m5", 35, 175),
  ];
  await assertDistinctEspeakVoices(voices.map(({ name }) => name.slice("espeak-ng:".length)));
  const hasFestival = await runProcess("text2wave", ["-h"], { allowFailure: true }).then(() => true, () => false);
  if (!hasFestival) log("festival voices skipped: festival is not installed (apt-get install festival festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts)");
  else {
    for (const voice of ["kal_diphone", "ked_diphone", "cmu_us_slt_arctic_hts"]) {
      voices.push({ name: `festival:${voice}`, say: async (_text, wavPath, textPath) => void (await runProcess("text2wave", ["-eval", `(voice_${voice})`, "-o", wavPath, textPath])) });
    }
  }
  return voices;
}

/** A line of a meeting: who says it, what, and when. */
interface Line {
  voice: string;
  text: string;
  startSecond: number;
  endSecond: number;
}

interface Meeting {
  file: string;
  voices: string[];
  lines: Line[];
}

/** Runs of 14–36 words of the how-to transcripts, in their own words. */
function lineSource(folder: string): (random: () => number) => string {
  const files = readdirSync(folder).filter((name) => name.endsWith(".txt")).sort();
  return (random) => {
    for (;;) {
      const words = readFileSync(join(folder, files[Math.floor(random() * files.length)] as string), "utf8").toLowerCase().replace(/[^a-z' \n]/g, " ").split(/\s+/).filter(Boolean);
      const length = 14 + Math.floor(random() * 23);
      if (words.length < length + 10) continue;
      const start = Math.floor(random() * (words.length - length));
      return words.slice(start, start + length).join(" ");
    }
  };
}

const clock = (second: number): string => {
  const whole = Math.floor(second);
  return `${String(Math.floor(whole / 3600)).padStart(2, "0")}:${String(Math.floor(whole / 60) % 60).padStart(2, "0")}:${String(whole % 60).padStart(2, "0")}.${String(Math.round((second - whole) * 1000)).padStart(3, "0").slice(0, 3)}`;
};

async function buildMeetings(options: BenchWhoSaidOptions, folder: string): Promise<Meeting[]> {
  const voices = await availableVoices(options.log);
  const text = lineSource(join(sharedDir as string, "datasets", "howto-qa", "transcripts"));
  const meetings: Meeting[] = [];
  for (let index = 0; index < options.meetings; index++) {
    const file = join(folder, `meeting-${String(index + 1).padStart(2, "0")}.mp4`);
    const manifest = `${file}.json`;
    if (existsSync(manifest) && existsSync(file)) {
      meetings.push(JSON.parse(readFileSync(manifest, "utf8")) as Meeting);
      continue;
    }
    const raw = seededRandom(options.seed * 1_000_003 + index * 7_919);
    const random = (): number => raw() + 0.5;
    const cast = [...voices].sort(() => random() - 0.5).slice(0, 2 + Math.floor(random() * 3));
    const lineCount = 8 + Math.floor(random() * 7);
    const parts: Float32Array[] = [];
    const lines: Line[] = [];
    let cursor = 0.5;
    parts.push(new Float32Array(Math.round(0.5 * rate)));
    let previous = -1;
    for (let at = 0; at < lineCount; at++) {
      // Turns change hands: no voice speaks twice in a row.
      let who = Math.floor(random() * cast.length);
      if (who === previous) who = (who + 1) % cast.length;
      previous = who;
      const voice = cast[who] as Voice;
      const words = text(random);
      const wavPath = join(folder, `line-${index}-${at}.wav`);
      const textPath = `${wavPath}.txt`;
      writeFileSync(textPath, words);
      await voice.say(words, `${wavPath}.raw.wav`, textPath);
      const samples = trimSilence(await decodeSpeech(`${wavPath}.raw.wav`));
      rmSync(`${wavPath}.raw.wav`);
      rmSync(textPath);
      lines.push({ voice: voice.name, text: words, startSecond: cursor, endSecond: cursor + samples.length / rate });
      cursor += samples.length / rate;
      const pause = 0.3 + random() * 0.9;
      parts.push(samples, new Float32Array(Math.round(pause * rate)));
      cursor += pause;
    }
    const all = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
    let offset = 0;
    for (const part of parts) {
      all.set(part, offset);
      offset += part.length;
    }
    const wav = join(folder, `meeting-${index}.wav`);
    await writeSpeechWav(wav, all);
    await runProcess("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=160x120:r=2", "-i", wav, "-shortest", "-pix_fmt", "yuv420p", "-c:a", "aac", file]);
    rmSync(wav);
    writeFileSync(file.replace(/\.mp4$/, ".vtt"), ["WEBVTT", "", ...lines.flatMap((line) => [`${clock(line.startSecond)} --> ${clock(line.endSecond)}`, line.text, ""])].join("\n"));
    const meeting = { file, voices: cast.map((voice) => voice.name), lines };
    writeFileSync(manifest, JSON.stringify(meeting));
    meetings.push(meeting);
  }
  return meetings;
}

/** The one-to-one mapping of labels to voices that agrees on the most lines (labels left over map to no one). */
function bestMapping(pairs: { label: string; voice: string }[]): Map<string, string> {
  const labels = [...new Set(pairs.map((pair) => pair.label))];
  const voices = [...new Set(pairs.map((pair) => pair.voice))];
  let best = new Map<string, string>();
  let bestScore = -1;
  const assign = (at: number, used: Set<string>, current: Map<string, string>): void => {
    if (at === labels.length) {
      const score = pairs.filter((pair) => current.get(pair.label) === pair.voice).length;
      if (score > bestScore) [best, bestScore] = [new Map(current), score];
      return;
    }
    const label = labels[at] as string;
    assign(at + 1, used, current);
    for (const voice of voices) {
      if (used.has(voice)) continue;
      current.set(label, voice);
      used.add(voice);
      assign(at + 1, used, current);
      used.delete(voice);
      current.delete(label);
    }
  };
  assign(0, new Set(), new Map());
  return best;
}

export async function benchWhoSaid(options: BenchWhoSaidOptions): Promise<Record<string, unknown>> {
  if (!sharedDir) throw new Error("the who-said bench needs ../shared (its how-to transcripts)");
  const folder = options.keep ? resolve(options.keep) : mkdtempSync(join(tmpdir(), "videorag-who-said-"));
  mkdirSync(folder, { recursive: true });
  const started = performance.now();
  const meetings = await buildMeetings(options, folder);
  options.log(`built ${meetings.length} meetings, ${(meetings.reduce((sum, meeting) => sum + (meeting.lines.at(-1)?.endSecond ?? 0), 0) / 60).toFixed(1)} minutes, in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const libraryPath = join(folder, "library");
  rmSync(libraryPath, { recursive: true, force: true });
  const library = await openLibrary({ path: libraryPath, ocr: false, visual: false });
  try {
    const ingestStarted = performance.now();
    const report = await library.ingest(meetings.map((meeting) => meeting.file));
    if (report.failed > 0) throw new Error(`ingest failed: ${JSON.stringify(report.results.filter((result) => result.status === "failed"))}`);
    options.log(`ingested in ${((performance.now() - ingestStarted) / 1000).toFixed(1)} s (${report.providers?.find((line) => line.startsWith("speakers:"))})`);
    const random = seededRandom(options.seed * 31 + 7);
    const outcomes: { meeting: string; voices: number; asked: string; moment: boolean; right: boolean; answer: string }[] = [];
    let countRight = 0;
    for (const meeting of meetings) {
      const title = meeting.file.slice(meeting.file.lastIndexOf("/") + 1);
      const segments = (await library.transcript(title)).segments;
      // The label of each line, as the library stored it: the one its cue carries.
      const pairs = meeting.lines.flatMap((line) => {
        const cue = segments.find((segment) => Math.abs(segment.startSecond - line.startSecond) < 0.01);
        return cue?.speaker ? [{ label: cue.speaker, voice: line.voice }] : [];
      });
      const mapping = bestMapping(pairs);
      if (new Set(pairs.map((pair) => pair.label)).size === meeting.voices.length) countRight++;
      const chosen = [...meeting.lines.keys()].sort(() => random()).slice(0, options.questions);
      for (const at of chosen) {
        const line = meeting.lines[at] as Line;
        const words = line.text.split(" ");
        const from = Math.max(0, Math.floor((words.length - 8) / 2));
        const asked = `who said ${words.slice(from, from + 8).join(" ")}?`;
        const answer = await library.ask(asked);
        const first = answer.citations[0];
        const moment = first !== undefined && first.title === title && first.startSecond < line.endSecond && first.endSecond > line.startSecond;
        const label = moment ? segments.find((segment) => Math.abs(segment.startSecond - first.startSecond) < 0.01)?.speaker : undefined;
        const right = moment && label !== undefined && mapping.get(label) === line.voice;
        outcomes.push({ meeting: title, voices: meeting.voices.length, asked, moment, right, answer: answer.text.split("\n")[0] ?? "" });
      }
    }
    const share = (list: typeof outcomes, test: (outcome: (typeof outcomes)[number]) => boolean): number => Math.round((list.filter(test).length / Math.max(1, list.length)) * 1000) / 1000;
    const byVoices: Record<string, { questions: number; right: number }> = {};
    for (const voices of [...new Set(outcomes.map((outcome) => outcome.voices))].sort()) {
      const group = outcomes.filter((outcome) => outcome.voices === voices);
      byVoices[String(voices)] = { questions: group.length, right: share(group, (outcome) => outcome.right) };
    }
    const results = {
      date: new Date().toISOString().slice(0, 10),
      seed: options.seed,
      meetings: meetings.length,
      minutes: Math.round((meetings.reduce((sum, meeting) => sum + (meeting.lines.at(-1)?.endSecond ?? 0), 0) / 60) * 10) / 10,
      questions: outcomes.length,
      right: share(outcomes, (outcome) => outcome.right),
      momentFound: share(outcomes, (outcome) => outcome.moment),
      rightWhereMomentFound: share(outcomes.filter((outcome) => outcome.moment), (outcome) => outcome.right),
      speakerCountExact: Math.round((countRight / meetings.length) * 1000) / 1000,
      byVoices,
      wrong: outcomes.filter((outcome) => !outcome.right).slice(0, 12),
    };
    options.log(
      `"who said" right on ${(results.right * 100).toFixed(1)}% of ${results.questions} questions (the moment found for ${(results.momentFound * 100).toFixed(1)}%, the speaker right on ${(results.rightWhereMomentFound * 100).toFixed(1)}% of those); speaker count exact in ${(results.speakerCountExact * 100).toFixed(0)}% of meetings`,
    );
    mkdirSync(dirname(options.out), { recursive: true });
    writeFileSync(options.out, `${JSON.stringify(results, null, 1)}\n`);
    return results;
  } finally {
    await library.close();
    if (!options.keep) rmSync(folder, { recursive: true, force: true });
  }
}
