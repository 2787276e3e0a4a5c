// Chinese and Japanese words as Intl.Segmenter cuts them, against the overlapping character pairs the index ships
// (src/text/indexed-text.ts). The material is real translated text: the messages of Debian's packages
// (/usr/share/locale/{zh_CN,ja}/LC_MESSAGES/*.mo, read by bench-languages.ts's reader). Per language, an in-memory BM25
// (k1 = 1.2, b = 0.75, FTS5's idf) over the lines, once per tokenisation; a question is a stretch from the middle of a
// line (four characters from its longest run of Chinese or Japanese, as bench-languages asks) or a two-character word
// of that run (one the segmenter itself gives as a word somewhere in the catalogues), and it is right at k when its line
// is among the first k results. Beside recall: how many of the lines holding a word's characters a tokenisation can find
// by it at all (some of those hold another word: "リスト" in "リストア"), and how often a two- to four-character word the
// segmenter gives in one line is, in another, split into pieces or swallowed by a longer word.
//
//   npm run bench segmenter [-- --lines 5000] [--queries 1000] [--seed 1] [--out file]

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { tokenize } from "../src/text/index.js";
import { catalogueMessages, cleanMessage, excerpt } from "./bench-languages.js";
import { seededRandom } from "./seeded-random.js";

export interface BenchSegmenterOptions {
  lines: number;
  queries: number;
  seed: number;
  out: string;
  log: (line: string) => void;
}

export function parseSegmenterArgs(args: string[]): Omit<BenchSegmenterOptions, "log"> {
  const { values } = parseArgs({ args, options: { lines: { type: "string" }, queries: { type: "string" }, seed: { type: "string" }, out: { type: "string" } } });
  const lines = Number(values.lines ?? 5000);
  const queries = Number(values.queries ?? 1000);
  const seed = Number(values.seed ?? 1);
  if (!Number.isInteger(lines) || lines < 100) throw new Error(`--lines takes a whole number of at least 100, not "${values.lines}"`);
  if (!Number.isInteger(queries) || queries < 10) throw new Error(`--queries takes a whole number of at least 10, not "${values.queries}"`);
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed takes a whole number, not "${values.seed}"`);
  return { lines, queries, seed, out: values.out ?? join("bench-results", `segmenter-${new Date().toISOString().slice(0, 10)}.json`) };
}

const languages = [
  { code: "zh", locale: "zh_CN", name: "Chinese (simplified)" },
  { code: "ja", locale: "ja", name: "Japanese" },
] as const;

/** Han and kana, the characters a run of Chinese or Japanese is made of (as bench-languages reads them). */
const cjkRun = /[\u3040-\u30ff\u3400-\u9fff]+/gu;
const onlyCjk = /^[\u3040-\u30ff\u3400-\u9fff]+$/u;
/** A word with a Han or katakana character: a content word, not Japanese particles and endings in hiragana. */
const contentWord = /[\u30a0-\u30ff\u3400-\u9fff]/u;

/** Distinct translated lines of a locale's catalogues holding a run of at least six Chinese or Japanese characters. */
function catalogueLines(locale: string): string[] {
  const seen = new Set<string>();
  for (const [, translation] of catalogueMessages(locale)) {
    const line = cleanMessage(translation);
    if (line.length <= 200 && /[\u3040-\u30ff\u3400-\u9fff]{6,}/u.test(line)) seen.add(line);
  }
  return [...seen];
}

type Tokenizer = (text: string) => string[];

/** Intl.Segmenter's words (those it marks word-like), each split at what is no letter or digit as the index splits. */
function segmenterTokens(language: string): Tokenizer {
  const segmenter = new Intl.Segmenter(language, { granularity: "word" });
  return (text) => {
    const tokens: string[] = [];
    for (const { segment, isWordLike } of segmenter.segment(text.normalize("NFKC").toLowerCase())) {
      if (isWordLike) tokens.push(...(segment.match(/[\p{L}\p{N}]+/gu) ?? []));
    }
    return tokens;
  };
}

/** BM25 over documents as FTS5 scores it (idf = ln((N − n + 0.5) / (n + 0.5)), at least 1e-6). */
class Bm25 {
  private readonly postings = new Map<string, [document: number, count: number][]>();
  private readonly lengths: number[] = [];
  private readonly averageLength: number;

  constructor(documents: string[][]) {
    for (const [document, tokens] of documents.entries()) {
      this.lengths.push(tokens.length);
      const counts = new Map<string, number>();
      for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
      for (const [token, count] of counts) {
        const list = this.postings.get(token);
        if (list) list.push([document, count]);
        else this.postings.set(token, [[document, count]]);
      }
    }
    this.averageLength = this.lengths.reduce((sum, length) => sum + length, 0) / Math.max(1, documents.length);
  }

  get terms(): number {
    return this.postings.size;
  }

  get postingCount(): number {
    let count = 0;
    for (const list of this.postings.values()) count += list.length;
    return count;
  }

  /** Documents holding every one of `tokens`. */
  holdingAll(tokens: string[]): Set<number> {
    const lists = [...new Set(tokens)].map((token) => this.postings.get(token) ?? []);
    if (lists.length === 0) return new Set();
    let found = new Set(lists[0]?.map(([document]) => document));
    for (const list of lists.slice(1)) found = new Set(list.map(([document]) => document).filter((document) => found.has(document)));
    return found;
  }

  /** The best `limit` documents for the query's tokens (any of them, weighted by repetition), ties by position. */
  search(tokens: string[], limit: number): number[] {
    const weights = new Map<string, number>();
    for (const token of tokens) weights.set(token, (weights.get(token) ?? 0) + 1);
    const total = this.lengths.length;
    const scores = new Map<number, number>();
    for (const [token, weight] of weights) {
      const list = this.postings.get(token);
      if (!list) continue;
      const idf = Math.max(1e-6, Math.log((total - list.length + 0.5) / (list.length + 0.5)));
      for (const [document, count] of list) {
        const norm = 1.2 * (0.25 + (0.75 * (this.lengths[document] as number)) / this.averageLength);
        scores.set(document, (scores.get(document) ?? 0) + (weight * idf * (count * 2.2)) / (count + norm));
      }
    }
    return [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit).map(([document]) => document);
  }
}

interface Question {
  line: number;
  text: string;
}

/**
 * The two-character word a user might type, from the middle of a line's longest run: the pair nearest its centre that
 * the segmenter gives as a word in at least three lines of the catalogue, wherever it cuts this line, and that has a
 * Han or katakana character (not "こと", "って").
 */
function twoCharacterWord(line: string, words: ReadonlyMap<string, number>): string | undefined {
  const runs = line.match(cjkRun) ?? [];
  const longest = [...(runs.sort((a, b) => [...b].length - [...a].length)[0] ?? "")];
  const centre = (longest.length - 2) / 2;
  let best: { word: string; distance: number } | undefined;
  for (let at = 0; at + 2 <= longest.length; at++) {
    const word = longest.slice(at, at + 2).join("");
    const distance = Math.abs(at - centre);
    if ((words.get(word) ?? 0) >= 3 && contentWord.test(word) && (!best || distance < best.distance)) best = { word, distance };
  }
  return best?.word;
}

const round = (value: number): number => Math.round(value * 1000) / 1000;

export async function benchSegmenter(options: BenchSegmenterOptions): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  const skipped: string[] = [];
  for (const language of languages) {
    const all = catalogueLines(language.locale);
    if (all.length < 100) {
      skipped.push(`${language.code}: fewer than 100 translated lines in /usr/share/locale/${language.locale}`);
      continue;
    }
    const random = seededRandom(options.seed);
    const lines = all.map((line) => ({ line, key: random() })).sort((a, b) => a.key - b.key).slice(0, options.lines).map(({ line }) => line);
    const segment = segmenterTokens(language.code);
    const tokenizers: [name: string, tokens: Tokenizer][] = [["character pairs", tokenize], ["Intl.Segmenter", segment]];
    const tokenized = new Map<string, string[][]>();
    const timings: Record<string, number> = {};
    for (const [name, tokens] of tokenizers) {
      const started = performance.now();
      tokenized.set(name, lines.map(tokens));
      timings[name] = round((performance.now() - started) / (lines.length / 1000));
    }
    const segmented = tokenized.get("Intl.Segmenter") as string[][];
    const indexes = new Map(tokenizers.map(([name]) => [name, new Bm25(tokenized.get(name) as string[][])]));

    // The segmenter's words of two to four Chinese or Japanese characters, with the lines it gives each in.
    const wordLines = new Map<string, Set<number>>();
    segmented.forEach((tokens, line) => {
      for (const token of tokens) {
        const length = [...token].length;
        if (length < 2 || length > 4 || !onlyCjk.test(token)) continue;
        const set = wordLines.get(token);
        if (set) set.add(line);
        else wordLines.set(token, new Set([line]));
      }
    });
    const wordCounts = new Map([...wordLines].map(([word, set]) => [word, set.size]));

    // Consistency: where a word the segmenter gives stands in other lines, is it a word there too? Each place its
    // characters stand is whole (a segment), split (segment edges at both ends and one inside: "イン|ポート" where
    // "インポート" is a word elsewhere), or inside a longer segment (another word, "リスト" in "リストア", or a compound).
    const pairs = indexes.get("character pairs") as Bm25;
    const segmenter = new Intl.Segmenter(language.code, { granularity: "word" });
    const edges = lines.map((line) => {
      const text = line.normalize("NFKC").toLowerCase();
      const at = new Set<number>();
      for (const { index, segment } of segmenter.segment(text)) at.add(index).add(index + segment.length);
      return { text, at };
    });
    const consistency = (which: (word: string) => boolean) => {
      const counts = { words: 0, splitSomewhere: 0, places: 0, split: 0, inside: 0 };
      const examples: { word: string; asAWord: string; split: string }[] = [];
      for (const [word, asWord] of wordLines) {
        if (!which(word)) continue;
        let places = 0;
        let split = 0;
        let inside = 0;
        let example: number | undefined;
        for (const line of pairs.holdingAll(tokenize(word))) {
          const { text, at } = edges[line] as { text: string; at: Set<number> };
          for (let from = text.indexOf(word); from >= 0; from = text.indexOf(word, from + 1)) {
            places++;
            if (!at.has(from) || !at.has(from + word.length)) inside++;
            else if ([...Array(word.length - 1).keys()].some((offset) => at.has(from + offset + 1))) {
              split++;
              example ??= line;
            }
          }
        }
        if (places < 2) continue;
        counts.words++;
        counts.places += places;
        counts.split += split;
        counts.inside += inside;
        if (split === 0) continue;
        counts.splitSomewhere++;
        if (examples.length < 5 && example !== undefined) {
          // The segmenter's words around the word, as it cut one line where it is a word and one where it split it.
          const around = (line: number): string => {
            const tokens = segmented[line] as string[];
            const first = tokens.findIndex((_, index) => tokens.slice(index, index + 3).join("").includes(word));
            return tokens.slice(Math.max(0, first), first + 3).join("|");
          };
          examples.push({ word, asAWord: around([...asWord][0] as number), split: around(example) });
        }
      }
      return {
        words: counts.words,
        splitSomewhere: round(counts.splitSomewhere / counts.words),
        places: counts.places,
        placesSplit: round(counts.split / counts.places),
        placesInsideLongerWord: round(counts.inside / counts.places),
        examples,
      };
    };
    const allWords = consistency(() => true);
    const contentWords = consistency((word) => contentWord.test(word));
    for (const [label, group] of [["all", allWords], ["content", contentWords]] as const) {
      options.log(`${language.code} segmenter consistency (${label} words): ${group.words} words of 2–4 characters, ${group.places} places; split differently somewhere ${group.splitSomewhere.toFixed(3)}; places split ${group.placesSplit.toFixed(3)}, inside a longer word ${group.placesInsideLongerWord.toFixed(3)}`);
    }

    // Questions: a four-character stretch and a two-character word from the middle of sampled lines.
    const questionRandom = seededRandom(options.seed + 1);
    const asked = lines.map((_, line) => ({ line, key: questionRandom() })).sort((a, b) => a.key - b.key).slice(0, options.queries).map(({ line }) => line);
    const kinds: Record<string, Question[]> = { "four characters": [], "two-character word": [] };
    for (const line of asked) {
      const text = lines[line] as string;
      kinds["four characters"]?.push({ line, text: excerpt(text, true) });
      const word = twoCharacterWord(text, wordCounts);
      if (word) kinds["two-character word"]?.push({ line, text: word });
    }
    const recall: Record<string, Record<string, { questions: number; recallAt1: number; recallAt5: number; linesMatchable?: number }>> = {};
    for (const [kind, questions] of Object.entries(kinds)) {
      for (const [name, tokens] of tokenizers) {
        const index = indexes.get(name) as Bm25;
        let at1 = 0;
        let at5 = 0;
        let holding = 0;
        let matchable = 0;
        for (const question of questions) {
          const queryTokens = tokens(question.text);
          const found = index.search(queryTokens, 5);
          if (found[0] === question.line) at1++;
          if (found.includes(question.line)) at5++;
          if (kind === "two-character word") {
            // Every line holding the word is a right answer to it; how many can this tokenisation match at all?
            const lower = question.text.normalize("NFKC").toLowerCase();
            const withWord = [...pairs.holdingAll(tokenize(question.text))].filter((line) => (edges[line] as { text: string }).text.includes(lower));
            const reachable = index.holdingAll(queryTokens);
            holding += withWord.length;
            matchable += withWord.filter((line) => queryTokens.length > 0 && reachable.has(line)).length;
          }
        }
        (recall[kind] ??= {})[name] = {
          questions: questions.length,
          recallAt1: round(at1 / questions.length),
          recallAt5: round(at5 / questions.length),
          ...(kind === "two-character word" ? { linesMatchable: round(matchable / holding) } : {}),
        };
        options.log(`${language.code} ${kind.padEnd(18)} ${name.padEnd(15)} recall@1 ${(at1 / questions.length).toFixed(3)}  recall@5 ${(at5 / questions.length).toFixed(3)}  (${questions.length})${kind === "two-character word" ? `  lines holding it matchable ${(matchable / holding).toFixed(3)}` : ""}`);
      }
    }
    results[language.code] = {
      lines: lines.length,
      catalogueLines: all.length,
      recall,
      consistency: { allWords, contentWords },
      millisecondsPer1000Lines: timings,
      indexTerms: Object.fromEntries([...indexes].map(([name, index]) => [name, index.terms])),
      postings: Object.fromEntries([...indexes].map(([name, index]) => [name, index.postingCount])),
    };
  }
  const report = { date: new Date().toISOString().slice(0, 10), node: process.version, icu: process.versions.icu, seed: options.seed, skipped, ...results };
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(report, null, 1)}\n`);
  return report;
}
