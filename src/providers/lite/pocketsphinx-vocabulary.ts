// The words pocketsphinx listens for. Its search walks a tree of every word in its pronouncing dictionary (Debian's
// en-us one holds 134,723 pronunciations of the language model's 72,547 words), and most of its time goes to words
// hardly ever said. A dictionary of the language model's likeliest words makes the search smaller: `npm run bench
// transcriber` measured the trade (docs/benchmarks.md `## transcriber`). The likelihoods are the model's own unigram
// probabilities, read from its binary file (sphinxbase's trie format), so no word list ships with the package.

import { createHash, randomUUID } from "node:crypto";
import { mkdir, open, readFile, rename, stat, writeFile, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const trieHeader = "Trie Language Model";
/** sphinxbase quantises the trie's probabilities and back-offs to 16 bits: tables of 2^16 floats. */
const quantTableBytes = 4 * 65_536;
/** A unigram: log probability, back-off (floats), and the index of its first bigram (uint32). */
const unigramBytes = 12;

/**
 * The `count` likeliest words of a pocketsphinx language model in sphinxbase's binary trie format (`.lm.bin`), by
 * unigram probability, likeliest first. Undefined when the file is not in that format (an ARPA or DMP model, another
 * layout): the caller keeps the whole dictionary.
 */
export async function likeliestWords(languageModelPath: string, count: number): Promise<string[] | undefined> {
  const file = await open(languageModelPath, "r");
  try {
    const { size } = await file.stat();
    const head = Buffer.alloc(trieHeader.length + 1 + 4 * 3 + 4);
    await file.read(head, 0, head.length, 0);
    if (head.toString("latin1", 0, trieHeader.length) !== trieHeader) return undefined;
    const order = head.readUInt8(trieHeader.length);
    if (order < 2 || order > 3) return undefined;
    const counts = Array.from({ length: order }, (_, at) => head.readUInt32LE(trieHeader.length + 1 + 4 * at));
    const unigramCount = counts[0] as number;
    // The quantisation type (an int) follows the counts, then its tables: a probability and a back-off table for each
    // middle order, a probability table for the last.
    const quantType = head.readInt32LE(trieHeader.length + 1 + 4 * order);
    const quantBytes = quantType === 0 ? 0 : (order - 2) * 2 * quantTableBytes + quantTableBytes;
    const unigramsAt = trieHeader.length + 1 + 4 * order + 4 + quantBytes;
    const unigrams = Buffer.alloc((unigramCount + 1) * unigramBytes);
    if (unigramsAt + unigrams.length > size) return undefined;
    await file.read(unigrams, 0, unigrams.length, unigramsAt);
    // Each unigram's first bigram never goes back, and the sentinel after the last points no further than the bigrams
    // go (Debian's en-us model: 2,051,541 of 2,051,547): a check that these bytes are the unigram table.
    let previous = 0;
    for (let at = 0; at <= unigramCount; at += 1) {
      const next = unigrams.readUInt32LE(at * unigramBytes + 8);
      if (next < previous) return undefined;
      previous = next;
    }
    if (previous === 0 || previous > (counts[1] as number)) return undefined;
    // The words close the file, NUL-terminated, in unigram order.
    const words = await lastStrings(file, size, unigramCount);
    if (!words) return undefined;
    const ranked = words.map((word, at) => ({ word, logProbability: unigrams.readFloatLE(at * unigramBytes) }));
    ranked.sort((a, b) => b.logProbability - a.logProbability);
    return ranked
      .map((entry) => entry.word)
      .filter((word) => !/^<.*>$/.test(word))
      .slice(0, count);
  } finally {
    await file.close();
  }
}

/** The last `count` NUL-terminated strings of the file, in order; undefined when it does not end with that many. */
async function lastStrings(file: FileHandle, size: number, count: number): Promise<string[] | undefined> {
  // Words average under ten bytes; read back from the end until `count` strings are whole.
  for (let span = Math.min(size, count * 16); ; span = Math.min(size, span * 2)) {
    const tail = Buffer.alloc(span);
    await file.read(tail, 0, span, size - span);
    if (tail[tail.length - 1] !== 0) return undefined;
    const parts = tail.toString("latin1", 0, tail.length - 1).split("\0");
    // The first part may be cut; it counts only when the whole file was read.
    if (parts.length - 1 >= count) return parts.slice(parts.length - count);
    if (span === size) return parts.length >= count ? parts.slice(parts.length - count) : undefined;
  }
}

/**
 * A pronouncing dictionary of the language model's `count` likeliest words (every pronunciation of each), written once
 * under `folder` and reused: its name carries both files' sizes and times. Undefined when the language model is not in
 * a format `likeliestWords` reads.
 */
export async function restrictedDictionary(
  dictionaryPath: string,
  languageModelPath: string,
  count: number,
  folder = join(tmpdir(), "videorag-pocketsphinx"),
): Promise<string | undefined> {
  const [dictionary, model] = await Promise.all([stat(dictionaryPath), stat(languageModelPath)]);
  const sources = [dictionaryPath, dictionary.size, dictionary.mtimeMs, languageModelPath, model.size, model.mtimeMs, count].join("\0");
  const path = join(folder, `dictionary-${count}-${createHash("sha256").update(sources).digest("hex").slice(0, 16)}.dict`);
  if (await stat(path).then(() => true, () => false)) return path;
  const words = await likeliestWords(languageModelPath, count);
  if (!words) return undefined;
  const wanted = new Set(words);
  const kept = (await readFile(dictionaryPath, "latin1")).split("\n").filter((line) => wanted.has(headword(line)));
  // A dictionary that misses most of the model's words is not the model's own (a phone model, another language).
  if (new Set(kept.map(headword)).size < words.length / 2) return undefined;
  await mkdir(folder, { recursive: true });
  // Written aside and renamed, so a transcriber starting at the same time (another thread or process) never reads half
  // a dictionary.
  const partial = `${path}.${randomUUID()}.partial`;
  await writeFile(partial, `${kept.join("\n")}\n`, "latin1");
  await rename(partial, path);
  return path;
}

/** The word a dictionary line pronounces: "word(2) ..." is the word's second pronunciation. */
const headword = (line: string): string => line.slice(0, line.indexOf(" ")).replace(/\(\d+\)$/, "");
