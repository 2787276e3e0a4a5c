// Turns a model's evidence numbers ([1], [1, 2], [1][2], [1-3]) into the library's citations ([file m:ss–m:ss]),
// dropping numbers that name no evidence. Works on a stream: text is released as soon as it cannot be part of a marker.

import type { Citation } from "../spec/index.js";
import { formatCitation } from "../text/citation-format.js";
import { citationOf, type Evidence } from "./evidence.js";

/** A model's answer with its evidence numbers checked and rewritten. */
export interface CitedAnswer {
  /** The answer with citations in the library's format. */
  text: string;
  /** One per distinct evidence cited, in order of first citation; the score falls with that order. */
  citations: Citation[];
  /** Numbers the model cited that name no evidence, in order of appearance; they are dropped from `text`. */
  invalidNumbers: number[];
  /** Sentences that carry no valid citation. */
  uncitedSentences: number;
}

/** Rewrites evidence numbers in text that arrives in pieces. */
export interface CitationRewriter {
  /** Takes the next piece of the model's text; returns the text now ready for the user (possibly ""). */
  push(delta: string): string;
  /** Ends the text; returns what was held back. */
  end(): string;
  /** The whole rewritten answer; call after `end`. */
  result(): CitedAnswer;
}

/** Characters a marker may hold between its brackets, and how many; anything else means the `[` is literal text. */
const markerCharacter = /[0-9 ,;\-–—]/;
const maxMarkerInnerChars = 32;
const markerInner = /^ *\d+(?: *[-–—] *\d+)?(?: *[,;] *\d+(?: *[-–—] *\d+)?)* *$/;
/** Stands for a citation when sentences are counted. */
const citationPlaceholder = "\uE000";

/** Checks and rewrites the evidence numbers in a complete answer. */
export function parseCitedAnswer(text: string, evidence: Evidence[]): CitedAnswer {
  const rewriter = createCitationRewriter(evidence);
  rewriter.push(text);
  rewriter.end();
  return rewriter.result();
}

export function createCitationRewriter(evidence: Evidence[]): CitationRewriter {
  let held = "";
  let output = "";
  /** The output with each citation replaced by a placeholder, for counting uncited sentences. */
  let sentenceSource = "";
  /** Whitespace to drop from the next text: all of it at the start, spaces after a dropped marker at a line start. */
  let dropLeading: RegExp | null = /^\s+/;
  /** Evidence the marker just before cited, so `[1][1]` renders once; null once other text came between. */
  let justCited: Set<number> | null = null;
  const cited: number[] = [];
  const invalid: number[] = [];

  function emitText(text: string): string {
    if (dropLeading) {
      text = text.replace(dropLeading, "");
      if (text === "") return "";
      dropLeading = null;
    }
    if (text === "") return "";
    justCited = null;
    output += text;
    sentenceSource += text;
    return text;
  }

  function emitMarker(before: string, inner: string): string {
    const { valid, outside } = markerNumbers(inner, evidence.length);
    for (const number of outside) if (!invalid.includes(number)) invalid.push(number);
    if (valid.length === 0) {
      // The marker goes, and so does the space before it: "said it [7]." reads "said it.".
      const text = emitText(before.replace(/[ \t]+$/, ""));
      if (output === "" || output.endsWith("\n")) dropLeading ??= /^[ \t]+/;
      return text;
    }
    let text = emitText(before);
    const fresh = valid.filter((number) => !justCited?.has(number));
    if (fresh.length === 0) return text;
    const space = /[\p{L}\p{N}.,;:!?'"”’)]$/u.test(output) ? " " : "";
    const rendered = space + fresh.map((number) => formatEvidenceCitation(evidence[number - 1]!)).join("");
    for (const number of fresh) if (!cited.includes(number)) cited.push(number);
    justCited = new Set([...(justCited ?? []), ...fresh]);
    dropLeading = null;
    output += rendered;
    sentenceSource += space + citationPlaceholder;
    text += rendered;
    return text;
  }

  function release(final: boolean): string {
    const source = held;
    let out = "";
    let position = 0;
    while (position < source.length) {
      const open = source.indexOf("[", position);
      if (open === -1) {
        const rest = source.slice(position);
        // Trailing spaces wait: a marker after them may be dropped, and the spaces with it.
        const keep = final ? rest.length - rest.trimEnd().length : trailingSpaceLength(rest);
        out += emitText(rest.slice(0, rest.length - keep));
        position = final ? source.length : source.length - keep;
        break;
      }
      let close = open + 1;
      while (close < source.length && close - open - 1 < maxMarkerInnerChars && markerCharacter.test(source[close]!)) close++;
      if (close === source.length && close - open - 1 <= maxMarkerInnerChars && !final) {
        // An unfinished marker: hold it, with the spaces before it, until it closes or clearly is not one.
        const before = source.slice(position, open);
        const keep = trailingSpaceLength(before);
        out += emitText(before.slice(0, before.length - keep));
        position = open - keep;
        break;
      }
      const inner = source.slice(open + 1, close);
      if (source[close] === "]" && markerInner.test(inner)) {
        out += emitMarker(source.slice(position, open), inner);
        position = close + 1;
      } else {
        out += emitText(source.slice(position, open + 1));
        position = open + 1;
      }
    }
    held = source.slice(position);
    return out;
  }

  return {
    push(delta) {
      held += delta;
      return release(false);
    },
    end() {
      return release(true);
    },
    result() {
      return {
        text: output,
        citations: cited.map((number, order) => citationOf(evidence[number - 1]!, Number((1 / (order + 1)).toFixed(4)))),
        invalidNumbers: [...invalid],
        uncitedSentences: countUncitedSentences(sentenceSource),
      };
    },
  };
}

function formatEvidenceCitation(evidence: Evidence): string {
  return formatCitation(evidence, evidence.timesEstimated);
}

function trailingSpaceLength(text: string): number {
  return text.length - text.trimEnd().length;
}

/** The numbers a marker names within 1..count, and those outside (for a range, its ends that fall outside). */
function markerNumbers(inner: string, count: number): { valid: number[]; outside: number[] } {
  const valid: number[] = [];
  const outside: number[] = [];
  for (const item of inner.split(/[,;]/)) {
    const [from, to = from] = item.split(/[-–—]/).map((part) => Number.parseInt(part.trim(), 10));
    if (from === undefined || to === undefined) continue;
    const low = Math.min(from, to);
    const high = Math.max(from, to);
    for (let number = Math.max(1, low); number <= Math.min(count, high); number++) {
      if (!valid.includes(number)) valid.push(number);
    }
    for (const end of new Set([low, high])) if (end < 1 || end > count) outside.push(end);
  }
  return { valid, outside };
}

/** Sentences with words and no citation; a citation opening a sentence is credited to the sentence before it. */
function countUncitedSentences(source: string): number {
  const sentences: { hasWords: boolean; cited: boolean }[] = [];
  for (const sentence of source.split(/\n+|(?<=[.!?]["'”’)]?)\s+/)) {
    const leading = /^[\s\uE000]*/.exec(sentence)?.[0] ?? "";
    const previous = sentences.at(-1);
    if (previous && leading.includes(citationPlaceholder)) previous.cited = true;
    const body = sentence.slice(leading.length);
    sentences.push({ hasWords: /[\p{L}\p{N}]/u.test(body), cited: body.includes(citationPlaceholder) });
  }
  return sentences.filter((sentence) => sentence.hasWords && !sentence.cited).length;
}
