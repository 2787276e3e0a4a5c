// The lite transcriber's accuracy and speed under several search settings, side by side in one run:
// - word error rate on the real recordings in ../shared/media: the LibriVox sentences (their reference transcription)
//   and the GRID talking heads (each file's name spells its sentence: bbaf2n = "bin blue at f two now");
// - speed on the narrated videos of `bench incremental`'s speech library (made there if missing) and its readings:
//   x real time by wall clock with every core, and per core by the CPU seconds the decoders used: the files whole, one
//   after the other, and cut in 30 s clips transcribed side by side, one per core, as a full ingest's speech stage runs
//   them (the clips' figures: `clipsRealTime…`);
// - of the rare words a narrated video's questions ask by (`keys`), how many the clips' transcripts hold within 2 s of
//   where they are spoken (`answerKeysHeard`): what a question can find, and what a vocabulary or a narrow search loses
//   first.
//
//   npm run bench transcriber -- [--settings default,narrow,default@all,wpf-10@40000,wpf-10+lp-30+pb-40] [--minutes 5]
// Named settings joined with "+" run together. A setting's words (after "@"): the language model's likeliest so many, or all of the dictionary's; default the
// transcriber's own (`pocketsphinxVocabulary`).
import { readFileSync, readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { extractAudio } from "../src/media/index.js";
import { mapConcurrent } from "../src/providers/runtime/map-concurrent.js";
import { createPocketsphinxTranscriber, pocketsphinxDefaultSearch, pocketsphinxSearch, pocketsphinxVocabulary } from "../src/providers/lite/pocketsphinx-transcriber.js";
import { needsShared, sharedPath } from "../src/test-support/shared.js";
import { answerToleranceSeconds, gridSentence, makeSpeechLibrary, type SpeechQuestion } from "./bench-incremental-media.js";

// A full ingest's clips (planClips' 30 s).
const clipSeconds = 30;

/** The search settings compared, by name. */
const settings: Record<string, readonly string[]> = {
  default: pocketsphinxDefaultSearch,
  shipped: pocketsphinxSearch,
  "no-second-pass": ["-fwdflat", "no", "-bestpath", "no"],
  "top-2": ["-topn", "2", "-maxhmmpf", "3000"],
  narrow: ["-beam", "1e-30", "-pbeam", "1e-30", "-wbeam", "1e-20"],
  "narrow-20": ["-beam", "1e-20", "-pbeam", "1e-20", "-wbeam", "1e-15"],
  "narrow-40": ["-beam", "1e-40", "-pbeam", "1e-40", "-wbeam", "1e-25"],
  "narrow-30-flat": ["-beam", "1e-30", "-pbeam", "1e-30", "-wbeam", "1e-20", "-fwdflatbeam", "1e-40", "-fwdflatwbeam", "1e-25"],
  "one-pass-top-2": ["-fwdflat", "no", "-bestpath", "no", "-topn", "2", "-maxhmmpf", "3000"],
  "one-pass-top-2-wpf": ["-fwdflat", "no", "-bestpath", "no", "-topn", "2", "-maxhmmpf", "3000", "-maxwpf", "5"],
  "one-pass-hmm-2000": ["-fwdflat", "no", "-bestpath", "no", "-maxhmmpf", "2000", "-maxwpf", "5"],
  "lookahead-10": ["-pl_window", "10"],
  "one-pass-lookahead": ["-fwdflat", "no", "-bestpath", "no", "-pl_window", "10"],
  "top-2-only": ["-topn", "2"],
  "hmm-3000-only": ["-maxhmmpf", "3000"],
  "one-pass-hmm-4000": ["-fwdflat", "no", "-bestpath", "no", "-maxhmmpf", "4000"],
  "one-pass-hmm-3000-wpf-10": ["-fwdflat", "no", "-bestpath", "no", "-maxhmmpf", "3000", "-maxwpf", "10"],
  "one-pass-ds-2": ["-fwdflat", "no", "-bestpath", "no", "-ds", "2"],
  "ds-2": ["-ds", "2"],
  "one-pass-wbeam-25": ["-fwdflat", "no", "-bestpath", "no", "-wbeam", "1e-25"],
  "hmm-2000-wpf-5": ["-maxhmmpf", "2000", "-maxwpf", "5"],
  "one-pass-hmm-3000": ["-fwdflat", "no", "-bestpath", "no", "-maxhmmpf", "3000"],
  "one-pass-hmm-4000-wpf-10": ["-fwdflat", "no", "-bestpath", "no", "-maxhmmpf", "4000", "-maxwpf", "10"],
  "one-pass-hmm-3500-wpf-15": ["-fwdflat", "no", "-bestpath", "no", "-maxhmmpf", "3500", "-maxwpf", "15"],
  "hmm-4000-wpf-10": ["-maxhmmpf", "4000", "-maxwpf", "10"],
  "hmm-3000-wpf-10": ["-maxhmmpf", "3000", "-maxwpf", "10"],
  "wpf-5": ["-maxwpf", "5"],
  "wpf-10": ["-maxwpf", "10"],
  "wpf-20": ["-maxwpf", "20"],
  "hmm-10000-wpf-10": ["-maxhmmpf", "10000", "-maxwpf", "10"],
  // Pieces to join with "+" ("wpf-10+lp-30+pb-40"): each adds its arguments to those before it.
  "tree-only": ["-fwdflat", "no"],
  "lp-30": ["-lpbeam", "1e-30"],
  "lp-25": ["-lpbeam", "1e-25"],
  "lp-20": ["-lpbeam", "1e-20"],
  "pb-40": ["-pbeam", "1e-40"],
  "beam-40": ["-beam", "1e-40"],
  "top-3": ["-topn", "3"],
  "flatw-20": ["-fwdflatwbeam", "1e-20"],
  "sfwin-10": ["-fwdflatsfwin", "10"],
  "sfwin-5": ["-fwdflatsfwin", "5"],
  "lpo-25": ["-lponlybeam", "1e-25"],
  "hmm-4000": ["-maxhmmpf", "4000"],
};

const normalise = (text: string): string[] =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, " ")
    .split(/\s+/)
    .filter(Boolean);

/** Word-level edit distance: substitutions, deletions and insertions turning `hypothesis` into `reference`. */
export function wordErrors(reference: string[], hypothesis: string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, index) => index);
  for (let row = 1; row <= reference.length; row++) {
    const current = [row];
    for (let column = 1; column <= hypothesis.length; column++) {
      const same = reference[row - 1] === hypothesis[column - 1] ? 0 : 1;
      current[column] = Math.min((previous[column] ?? 0) + 1, (current[column - 1] ?? 0) + 1, (previous[column - 1] ?? 0) + same);
    }
    previous = current;
  }
  return previous[hypothesis.length] ?? 0;
}

/** CPU seconds used by this process's finished children (user + system), from /proc. */
function childCpuSeconds(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
  // After the command's ")": state is field 3, cutime 16, cstime 17 (1-based in proc(5)); ticks of 1/100 s.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

interface Recording {
  wav: string;
  reference: string;
}

async function recordings(scratch: string): Promise<{ librivox: Recording[]; grid: Recording[] }> {
  const librivoxDir = sharedPath("media/audio/librivox");
  const references = new Map(
    readFileSync(join(librivoxDir, "transcription"), "utf8")
      .split("\n")
      .map((line) => /^<s> (.*) <\/s> \((.*)\)$/.exec(line.trim()))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [match[2] ?? "", match[1] ?? ""]),
  );
  const librivox = [...references].map(([id, reference]) => ({ wav: join(librivoxDir, `${id}.wav`), reference }));
  const gridDir = sharedPath("media/speech/grid");
  const grid: Recording[] = [];
  for (const name of readdirSync(gridDir).filter((file) => file.endsWith(".mpg")).sort()) {
    const wav = join(scratch, `${basename(name, ".mpg")}.wav`);
    await extractAudio(join(gridDir, name), wav);
    grid.push({ wav, reference: gridSentence(basename(name, ".mpg").split("_").at(-1) ?? "") });
  }
  return { librivox, grid };
}

const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

/** Of the keys of the questions whose answers the transcribed files hold, those heard at their answer (±2 s). */
function keysHeard(questions: SpeechQuestion[], words: { file: string; word: string; startSecond: number; endSecond: number }[]): { heard: number; asked: number; answers: number } {
  const files = new Set(words.map((word) => word.file));
  const counted = { heard: 0, asked: 0, answers: 0 };
  for (const question of questions) {
    if (!question.keys || !files.has(question.file)) continue;
    const near = new Set(
      words
        .filter((word) => word.file === question.file && word.startSecond <= question.endSecond + answerToleranceSeconds && word.endSecond >= question.startSecond - answerToleranceSeconds)
        .map((word) => word.word.toLowerCase()),
    );
    counted.heard += question.keys.filter((key) => near.has(key.toLowerCase())).length;
    counted.asked += question.keys.length;
    counted.answers += 1;
  }
  return counted;
}

export async function benchTranscriber(args: string[] = []): Promise<Record<string, unknown>> {
  if (needsShared) return { skipped: needsShared };
  const option = (name: string): string | undefined => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const names = (option("settings") ?? Object.keys(settings).join(",")).split(",");
  // A name is a search's settings, and after "@" the words listened for ("default@40000", "wpf-10@all").
  const parse = (name: string): { search: readonly string[]; vocabulary: number | "all" | undefined } => {
    const [search = "", words] = name.split("@");
    const vocabulary = words === undefined ? undefined : words === "all" ? "all" : Number(words);
    const pieces = search.split("+").map((piece) => settings[piece]);
    if (pieces.some((piece) => !piece) || (typeof vocabulary === "number" && !(vocabulary > 0))) {
      throw new Error(`no settings named ${name}; known: ${Object.keys(settings).join(", ")}, joined with "+", optionally @<words>|@all`);
    }
    return { search: pieces.flatMap((piece) => piece ?? []), vocabulary };
  };
  for (const name of names) parse(name);
  const minutes = Number(option("minutes") ?? 5);
  const scratch = await mkdtemp(join(tmpdir(), "videorag-bench-transcriber-"));
  try {
    const corpora = await recordings(scratch);
    // Speech long enough to time: narrated videos' audio, in order, up to `minutes`.
    const speech = await makeSpeechLibrary(process.env.BENCH_SPEECH_DIR ?? join(tmpdir(), "videorag-bench-speech"));
    const long: { wav: string; seconds: number }[] = [];
    const clips: { wav: string; file: string; startSecond: number }[] = [];
    let total = 0;
    for (const file of speech.files) {
      if (total >= minutes * 60) break;
      const wav = join(scratch, `${basename(file.path)}.wav`);
      await extractAudio(file.path, wav);
      long.push({ wav, seconds: file.durationSeconds });
      for (let start = 0; start < file.durationSeconds - 0.5; start += clipSeconds) {
        const clip = join(scratch, `${basename(file.path)}-${start}.wav`);
        await extractAudio(file.path, clip, { startSecond: start, durationSeconds: Math.min(clipSeconds, file.durationSeconds - start) });
        clips.push({ wav: clip, file: file.path, startSecond: start });
      }
      total += file.durationSeconds;
    }
    const results: Record<string, unknown> = {};
    for (const name of names) {
      const { search, vocabulary } = parse(name);
      const transcriber = createPocketsphinxTranscriber({ decoderArgs: search, ...(vocabulary ? { vocabulary } : {}) });
      const wer = async (set: Recording[]): Promise<number> => {
        let errors = 0;
        let words = 0;
        for (const recording of set) {
          const { segments } = await transcriber.transcribe(recording.wav, { scratchDir: scratch });
          const reference = normalise(recording.reference);
          errors += wordErrors(reference, normalise(segments.map((segment) => segment.text).join(" ")));
          words += reference.length;
        }
        return errors / Math.max(1, words);
      };
      const librivox = await wer(corpora.librivox);
      const grid = await wer(corpora.grid);
      const cpuBefore = childCpuSeconds();
      const started = performance.now();
      for (const file of long) await transcriber.transcribe(file.wav, { scratchDir: scratch });
      const wallSeconds = (performance.now() - started) / 1000;
      const cpuSeconds = childCpuSeconds() - cpuBefore;
      const clipsCpuBefore = childCpuSeconds();
      const clipsStarted = performance.now();
      const heard = await mapConcurrent(clips, transcriber.capabilities.maxConcurrency, (clip) => transcriber.transcribe(clip.wav, { scratchDir: scratch }));
      const clipsWallSeconds = (performance.now() - clipsStarted) / 1000;
      const clipsCpuSeconds = childCpuSeconds() - clipsCpuBefore;
      const keys = keysHeard(
        speech.questions,
        clips.flatMap((clip, index) =>
          (heard[index]?.segments ?? []).flatMap((segment) => segment.words ?? []).map((word) => ({ ...word, file: clip.file, startSecond: word.startSecond + clip.startSecond, endSecond: word.endSecond + clip.startSecond })),
        ),
      );
      results[name] = {
        decoderArgs: search.join(" ") || "(pocketsphinx defaults)",
        vocabulary: vocabulary ?? pocketsphinxVocabulary,
        werLibrivox: round(librivox * 100, 1),
        werGrid: round(grid * 100, 1),
        realTimeWall: round(total / wallSeconds, 1),
        realTimePerCore: round(total / cpuSeconds, 1),
        clipsRealTimeWall: round(total / clipsWallSeconds, 1),
        clipsRealTimePerCore: round(total / clipsCpuSeconds, 1),
        answerKeysHeard: `${keys.heard} of ${keys.asked} (${keys.answers} answers)`,
      };
      console.error(name, JSON.stringify(results[name]));
    }
    return { speechSeconds: round(total, 0), librivoxFiles: corpora.librivox.length, gridFiles: corpora.grid.length, settings: results };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
