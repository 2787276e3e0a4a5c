// Finding a moment in every language: German, French, Spanish, Chinese (simplified) and Japanese, and English on the
// same material. The material is real translated text with its English original: the messages of Debian's packages
// (/usr/share/locale/<lang>/LC_MESSAGES/*.mo, msgid → msgstr). Per language, videos carry the lines as subtitles (an SRT
// beside a still picture, a line every 4 s) or on screen (each line drawn on a slide for 4 s, read by OCR with the
// language's tesseract pack; fonts-noto-cjk draws Chinese and Japanese). A question is a stretch from the middle of one
// line (four words; four characters in Chinese and Japanese); it is right at k when a moment of the line's video that
// overlaps the line is among the first k search results.
//
//   npm run bench languages [-- --lines 30] [--seed 1] [--no-screen] [--keep dir] [--out file]
//
// What is missing (a tesseract pack, the CJK font) skips that part with the apt-get line that installs it.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { openLibrary } from "../src/library.js";
import { liteConfig } from "../src/providers/registry.js";
import { seededRandom } from "./seeded-random.js";

export interface BenchLanguagesOptions {
  lines: number;
  seed: number;
  screen: boolean;
  out: string;
  keep?: string;
  log: (line: string) => void;
}

export function parseLanguagesArgs(args: string[]): Omit<BenchLanguagesOptions, "log"> {
  const { values } = parseArgs({ args, options: { lines: { type: "string" }, seed: { type: "string" }, "no-screen": { type: "boolean" }, out: { type: "string" }, keep: { type: "string" } } });
  const lines = Number(values.lines ?? 30);
  const seed = Number(values.seed ?? 1);
  if (!Number.isInteger(lines) || lines < 5) throw new Error(`--lines takes a whole number of at least 5, not "${values.lines}"`);
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed takes a whole number, not "${values.seed}"`);
  return {
    lines,
    seed,
    screen: values["no-screen"] !== true,
    out: values.out ?? join("bench-results", `languages-${new Date().toISOString().slice(0, 10)}.json`),
    ...(values.keep ? { keep: values.keep } : {}),
  };
}

/** The languages measured: their locale folder, tesseract pack and whether words are written without spaces. */
const languages = [
  { code: "de", locale: "de", tesseract: "deu", cjk: false },
  { code: "fr", locale: "fr", tesseract: "fra", cjk: false },
  { code: "es", locale: "es", tesseract: "spa", cjk: false },
  { code: "zh", locale: "zh_CN", tesseract: "chi_sim", cjk: true },
  { code: "ja", locale: "ja", tesseract: "jpn", cjk: true },
] as const;

const cjkFont = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc";
const latinFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
const secondsPerLine = 4;

/** msgid → msgstr pairs of a .mo file (GNU gettext's binary catalogue); bench-segmenter.ts reads them too. */
export function readMo(path: string): [string, string][] {
  const bytes = readFileSync(path);
  const little = bytes.readUInt32LE(0) === 0x950412de;
  const word = (offset: number): number => (little ? bytes.readUInt32LE(offset) : bytes.readUInt32BE(offset));
  const count = word(8);
  const originals = word(12);
  const translations = word(16);
  const text = (table: number, index: number): string => bytes.toString("utf8", word(table + index * 8 + 4), word(table + index * 8 + 4) + word(table + index * 8));
  const pairs: [string, string][] = [];
  for (let index = 0; index < count; index++) pairs.push([text(originals, index), text(translations, index)]);
  return pairs;
}

/** A message as a line someone could say or show: placeholders, markup and accelerators out, one line. */
export const cleanMessage = (text: string): string =>
  text.replace(/%[-0-9.]*[sdluxfc]|%\([a-z_]+\)[sd]|\{[^}]*\}|<[^>]+>|&(?=\w)|_(?=\w)|\\n/g, " ").replace(/\s+/g, " ").trim();

/**
 * Every single-line message of a locale's catalogues (`/usr/share/locale/<locale>/LC_MESSAGES/*.mo`), as English
 * original and translation, in the catalogues' order; none where the locale has no catalogues.
 */
export function* catalogueMessages(locale: string): Generator<[english: string, translated: string]> {
  const folder = `/usr/share/locale/${locale}/LC_MESSAGES`;
  if (!existsSync(folder)) return;
  for (const file of readdirSync(folder).filter((name) => name.endsWith(".mo")).sort()) {
    let pairs: [string, string][];
    try {
      pairs = readMo(join(folder, file));
    } catch {
      continue;
    }
    // A NUL joins a message's plural forms.
    for (const [id, translation] of pairs) if (id && !id.includes("\u0000") && !translation.includes("\u0000")) yield [id, translation];
  }
}

/** Sentence-like translated lines of one language with their English originals, the same English for every language. */
function parallelLines(locale: string, wanted: number, seed: number): { english: string; translated: string }[] {
  const seen = new Set<string>();
  const candidates: { english: string; translated: string }[] = [];
  for (const [id, translation] of catalogueMessages(locale)) {
    const english = cleanMessage(id);
    const translated = cleanMessage(translation);
    const words = english.split(" ").length;
    if (words < 8 || words > 22 || translated.length < 25 || translated.length > 110 || translated === english || seen.has(english)) continue;
    if (!/^[\p{L}\p{N} ,.;:'’!?()-]+$/u.test(english) || /["'\\]/.test(translated)) continue;
    // Chinese and Japanese lines are asked about by a run of their own characters: one of at least six.
    if (/^(?:zh|ja)/.test(locale) && !/[\u3040-\u30ff\u3400-\u9fff]{6,}/u.test(translated)) continue;
    seen.add(english);
    candidates.push({ english, translated });
  }
  const random = seededRandom(seed);
  return candidates.map((line) => ({ line, key: random() })).sort((a, b) => a.key - b.key).slice(0, wanted).map(({ line }) => line);
}

/**
 * A stretch from the middle of a line: four words, or, where words are not spaced, four characters from the middle of
 * its longest run of Chinese or Japanese characters (translations keep some English terms, which are not asked about).
 */
export function excerpt(line: string, cjk: boolean): string {
  if (cjk) {
    const runs = line.match(/[\u3040-\u30ff\u3400-\u9fff]+/gu) ?? [];
    const longest = [...(runs.sort((a, b) => [...b].length - [...a].length)[0] ?? "")];
    const from = Math.max(0, Math.floor((longest.length - 4) / 2));
    return longest.slice(from, from + 4).join("");
  }
  const words = line.split(/[^\p{L}\p{N}]+/u).filter((word) => [...word].length > 1);
  const from = Math.max(0, Math.floor((words.length - 4) / 2));
  return words.slice(from, from + 4).join(" ");
}

const clock = (second: number): string => `00:${String(Math.floor(second / 60)).padStart(2, "0")}:${String(second % 60).padStart(2, "0")},000`;

function ffmpeg(args: string[]): void {
  execFileSync("ffmpeg", ["-v", "error", "-y", ...args], { stdio: ["ignore", "ignore", "pipe"] });
}

/**
 * A still video as long as its lines, with the lines as an SRT beside it. Its colour comes from its name: videos of the
 * same length and colour would be one file to the library (a video's id is its content's hash).
 */
function subtitledVideo(path: string, lines: string[]): void {
  const colour = createHash("sha1").update(path).digest("hex").slice(0, 6);
  ffmpeg(["-f", "lavfi", "-i", `color=c=0x${colour}:s=160x120:r=2:d=${lines.length * secondsPerLine}`, "-pix_fmt", "yuv420p", path]);
  writeFileSync(path.replace(/\.mp4$/, ".srt"), lines.map((line, index) => `${index + 1}\n${clock(index * secondsPerLine)} --> ${clock(index * secondsPerLine + secondsPerLine - 1)}\n${line}\n`).join("\n"));
}

/** Each line drawn on a white 1280x720 slide for its 4 s, wrapped at 38 characters (18 in CJK). */
function slideVideo(path: string, lines: string[], cjk: boolean, folder: string): void {
  const width = cjk ? 18 : 38;
  const parts: string[] = [];
  for (const [index, line] of lines.entries()) {
    const wrapped: string[] = [];
    if (cjk) for (let at = 0; at < line.length; at += width) wrapped.push(line.slice(at, at + width));
    else {
      let current = "";
      for (const word of line.split(" ")) {
        if ((current + " " + word).trim().length > width) {
          wrapped.push(current);
          current = word;
        } else current = `${current} ${word}`.trim();
      }
      if (current) wrapped.push(current);
    }
    const textFile = join(folder, `slide-${index}.txt`);
    writeFileSync(textFile, wrapped.join("\n"));
    const slide = join(folder, `slide-${index}.mp4`);
    ffmpeg(["-f", "lavfi", "-i", `color=c=white:s=1280x720:r=2:d=${secondsPerLine}`, "-vf", `drawtext=fontfile=${cjk ? cjkFont : latinFont}:textfile=${textFile}:fontsize=48:fontcolor=black:x=80:y=200:line_spacing=24:expansion=none`, "-pix_fmt", "yuv420p", slide]);
    parts.push(`file '${slide}'`);
  }
  const list = join(folder, "slides.txt");
  writeFileSync(list, parts.join("\n"));
  ffmpeg(["-f", "concat", "-safe", "0", "-i", list, "-c", "copy", path]);
}

interface Question {
  language: string;
  channel: "subtitles" | "screen";
  title: string;
  startSecond: number;
  endSecond: number;
  query: string;
}

export async function benchLanguages(options: BenchLanguagesOptions): Promise<Record<string, unknown>> {
  const folder = options.keep ? resolve(options.keep) : mkdtempSync(join(tmpdir(), "videorag-languages-"));
  mkdirSync(folder, { recursive: true });
  const installed = (() => {
    try {
      return execFileSync("tesseract", ["--list-langs"]).toString("utf8").split("\n").slice(1).map((line) => line.trim());
    } catch {
      return [];
    }
  })();
  const skipped: string[] = [];
  const videos: string[] = [];
  const questions: Question[] = [];
  const ocrLanguages = ["eng"];
  for (const language of languages) {
    const lines = parallelLines(language.locale, options.lines, options.seed);
    if (lines.length < 5) {
      skipped.push(`${language.code}: fewer than 5 translated messages in /usr/share/locale/${language.locale}`);
      continue;
    }
    const channels: ("subtitles" | "screen")[] = ["subtitles"];
    const screenReason = !options.screen
      ? "--no-screen"
      : !installed.includes(language.tesseract)
        ? `no tesseract pack (apt-get install tesseract-ocr-${language.tesseract.replace(/_/g, "-")})`
        : language.cjk && !existsSync(cjkFont)
          ? "no CJK font (apt-get install fonts-noto-cjk)"
          : "";
    if (screenReason) skipped.push(`${language.code} on screen: ${screenReason}`);
    else {
      channels.push("screen");
      ocrLanguages.push(language.tesseract);
    }
    for (const channel of channels) {
      for (const [version, texts, code, cjk] of [
        [language.code, lines.map((line) => line.translated), language.code, language.cjk],
        [`en-${language.code}`, lines.map((line) => line.english), "en", false],
      ] as const) {
        // The English of a language's lines shows on screen once (with the first language), as subtitles for each.
        if (channel === "screen" && code === "en" && language !== languages[0]) continue;
        const title = `${channel}-${version}.mp4`;
        const path = join(folder, title);
        if (!existsSync(path)) {
          if (channel === "subtitles") subtitledVideo(path, [...texts]);
          else {
            const slides = join(folder, `slides-${version}`);
            mkdirSync(slides, { recursive: true });
            slideVideo(path, [...texts], cjk, slides);
          }
        }
        videos.push(path);
        texts.forEach((text, index) => questions.push({ language: code === "en" ? `en (${language.code}'s lines)` : code, channel, title, startSecond: index * secondsPerLine, endSecond: index * secondsPerLine + secondsPerLine - 1, query: excerpt(text, cjk) }));
      }
    }
  }
  for (const reason of skipped) options.log(`skipped: ${reason}`);
  // A library per channel: the same lines as subtitles and on screen would otherwise compete for every question.
  const ranks: (Question & { rank: number })[] = [];
  const identified: Record<string, string | null> = {};
  for (const channel of ["subtitles", "screen"] as const) {
    const own = videos.filter((path) => path.slice(path.lastIndexOf("/") + 1).startsWith(`${channel}-`));
    if (own.length === 0) continue;
    const libraryPath = join(folder, `library-${channel}`);
    rmSync(libraryPath, { recursive: true, force: true });
    const config = liteConfig();
    config.models.ocr = { provider: "tesseract", languages: channel === "screen" ? [...new Set(ocrLanguages)] : ["eng"] };
    // A frame at least every 2 s, so every 4-second slide is sampled (the default gap, 5 s, could pass one by).
    config.frameGapSeconds = 2;
    const library = await openLibrary({ path: libraryPath, config, speech: false, visual: false });
    try {
      const started = performance.now();
      const report = await library.ingest(own);
      if (report.failed > 0) throw new Error(`ingest failed: ${JSON.stringify(report.results.filter((result) => result.status === "failed"))}`);
      options.log(`${channel}: ingested ${own.length} videos in ${((performance.now() - started) / 1000).toFixed(1)} s${channel === "screen" ? ` (OCR ${[...new Set(ocrLanguages)].join("+")})` : ""}`);
      for (const video of await library.list()) identified[video.title] = video.language ?? null;
      for (const question of questions.filter((entry) => entry.channel === channel)) {
        const hits = await library.search(question.query, { limit: 10 });
        const at = hits.findIndex((hit) => hit.title === question.title && hit.startSecond <= question.endSecond && hit.endSecond >= question.startSecond);
        ranks.push({ ...question, rank: at < 0 ? Infinity : at + 1 });
      }
    } finally {
      await library.close();
    }
  }
  try {
    const table: Record<string, Record<string, { questions: number; recallAt1: number; recallAt5: number }>> = {};
    for (const channel of ["subtitles", "screen"] as const) {
      for (const language of [...new Set(ranks.filter((rank) => rank.channel === channel).map((rank) => rank.language))]) {
        const group = ranks.filter((rank) => rank.channel === channel && rank.language === language);
        const share = (k: number): number => Math.round((group.filter((rank) => rank.rank <= k).length / group.length) * 1000) / 1000;
        (table[channel] ??= {})[language] = { questions: group.length, recallAt1: share(1), recallAt5: share(5) };
        options.log(`${channel.padEnd(9)} ${language.padEnd(16)} recall@1 ${share(1).toFixed(3)}  recall@5 ${share(5).toFixed(3)}  (${group.length})`);
      }
    }
    const results = {
      date: new Date().toISOString().slice(0, 10),
      seed: options.seed,
      linesPerLanguage: options.lines,
      skipped,
      identified,
      recall: table,
      missed: ranks.filter((rank) => rank.rank > 5).slice(0, 15).map(({ language, channel, query, title }) => ({ language, channel, query, title })),
    };
    mkdirSync(dirname(options.out), { recursive: true });
    writeFileSync(options.out, `${JSON.stringify(results, null, 1)}\n`);
    return results;
  } finally {
    if (!options.keep) rmSync(folder, { recursive: true, force: true });
  }
}
