// OCR with the Debian `tesseract` program: screen text on sampled frames and bitmap subtitles.
// Natural video frames make tesseract "read" edges and textures ("|", "~ ee", "Sa"), so lines are filtered hard:
// screen text is only worth keeping when it is clean enough to search.

import { availableParallelism } from "node:os";
import type { ImageInput, OcrEngine, OcrLine } from "../../spec/providers.js";
import { runProcess } from "../../media/index.js";
import { tesseractLanguage } from "../../text/index.js";

export interface TesseractOcrOptions {
  /** Tesseract language code(s), joined with "+" for several, e.g. "eng" or "eng+deu". Default "eng". */
  language?: string;
  /**
   * The language packs installed (`tesseract --list-langs`): text known to be in one of them (a subtitle stream's
   * tag) is read with it first, even when it is not among `language`. Default: only `language`.
   */
  installed?: readonly string[];
  /** Program to run. Default "tesseract" from PATH. */
  binary?: string;
}

// Page segmentation modes. Measured on generated slides, a text overlay on a film frame and 30 natural frames:
// psm 3 (automatic layout) read every slide that psm 11 (sparse text) read, also read an overlaid caption psm 11
// missed entirely, and produced almost no noise on natural frames where psm 11 found garbage on most of them.
const pageSegmentationMode = { screen: 3, subtitle: 6 } as const;

// Thresholds chosen on the frames above: real words scored 87-96, noise mostly below 60 with a few symbols near 85.
const minWordConfidence = 40;
const minLineConfidence = 60;
// A line made only of one- and two-character tokens ("Sa", "ee", "a i") is noise unless tesseract is very sure.
const minShortLineConfidence = 85;

/** Creates an OcrEngine that runs one `tesseract` process per image. */
export function createTesseractOcr(options: TesseractOcrOptions = {}): OcrEngine {
  const language = options.language ?? "eng";
  const binary = options.binary ?? "tesseract";
  const configured = language.split("+");
  const installed = new Set([...(options.installed ?? []), ...configured]);
  // Known text in an installed language reads with that language first, then the configured ones.
  const languagesFor = (known: string | undefined): string => {
    const code = known ? tesseractLanguage(known) : undefined;
    return code && installed.has(code) && code !== configured[0] ? [code, ...configured.filter((entry) => entry !== code)].join("+") : language;
  };
  return {
    id: `tesseract:${language}`,
    // One single-threaded process per core is how tesseract scales best (see OMP_THREAD_LIMIT below).
    capabilities: { languages: language.split("+"), maxConcurrency: availableParallelism() },
    async recognize(image: ImageInput, recognizeOptions = {}): Promise<OcrLine[]> {
      const mode = recognizeOptions.mode ?? "screen";
      const { stdout } = await runProcess(
        binary,
        ["stdin", "stdout", "-l", languagesFor(recognizeOptions.language), "--psm", String(pageSegmentationMode[mode]), "tsv"],
        {
          input: image.data,
          signal: recognizeOptions.signal,
          // Tesseract's OpenMP threads contend with each other when the core already runs one process per core.
          env: { OMP_THREAD_LIMIT: "1" },
          installHint: "apt-get install tesseract-ocr tesseract-ocr-eng",
        },
      );
      return parseTesseractTsv(stdout.toString("utf8"));
    },
  };
}

interface TsvWord {
  text: string;
  confidence: number;
}

/** Groups tesseract's TSV words into lines in reading order and keeps the lines that look like real text. */
export function parseTesseractTsv(tsv: string): OcrLine[] {
  const lines = new Map<string, TsvWord[]>();
  for (const row of tsv.split("\n").slice(1)) {
    const columns = row.split("\t");
    // Level 5 rows are words; the others describe pages, blocks, paragraphs and lines without text.
    if (columns.length < 12 || columns[0] !== "5") continue;
    const [, page, block, paragraph, line] = columns;
    const confidence = Number(columns[10]);
    const text = cleanWord(columns.slice(11).join("\t"));
    if (!text || !(confidence >= minWordConfidence)) continue;
    const key = `${page}.${block}.${paragraph}.${line}`;
    const words = lines.get(key) ?? [];
    words.push({ text, confidence });
    lines.set(key, words);
  }
  // Map iteration follows insertion order, which is tesseract's reading order.
  const result: OcrLine[] = [];
  for (const words of lines.values()) {
    const text = joinWords(words.map((word) => word.text));
    const confidence = words.reduce((sum, word) => sum + word.confidence, 0) / words.length;
    if (looksLikeText(text, confidence)) result.push({ text, confidence: Math.round(confidence * 10) / 10 });
  }
  return result;
}

// Tesseract reads frame edges as quotes, bars and dashes; a word without a letter or digit carries no searchable text.
function cleanWord(raw: string): string {
  const text = raw.trim();
  return /[\p{L}\p{N}]/u.test(text) ? text : "";
}

// Han and kana: Chinese and Japanese are written without spaces (Korean's Hangul has them between words).
const unspacedScript = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\u{20000}-\u{2fa1f}]/u;

/**
 * The words of a line with a space between them, except between two words of Chinese or Japanese: tesseract splits
 * those at every character or two, and "参 数" would neither read right nor be found by a search for "参数".
 */
export function joinWords(words: string[]): string {
  let text = "";
  for (const word of words) {
    const touching = unspacedScript.test(text.at(-1) ?? "") && unspacedScript.test(String.fromCodePoint(word.codePointAt(0) ?? 32));
    text += text === "" || touching ? word : ` ${word}`;
  }
  return text;
}

function looksLikeText(text: string, confidence: number): boolean {
  if (confidence < minLineConfidence) return false;
  const visible = text.replace(/\s/g, "");
  const alphanumeric = visible.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
  // A single character alone ("a", "4") is the commonest noise and useless to search.
  if (alphanumeric < 2) return false;
  // Real text is mostly letters and digits; noise is mostly marks ("=)", "|(", "—_*t").
  if (alphanumeric / visible.length < 0.6) return false;
  const longestWord = Math.max(...text.split(" ").map((word) => word.match(/[\p{L}\p{N}]/gu)?.length ?? 0));
  return longestWord >= 3 || confidence >= minShortLineConfidence;
}
