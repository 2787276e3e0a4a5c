// Entities and relations from text with no model: capitalised names and frequent noun phrases, related when they are
// mentioned in the same sentence. The offline fallback for the graph; it runs over every transcript at ingest, so it is
// one scan of the characters plus counting, with what is known about each written word (lite-words.ts) memoised. The
// rules are English's unless the text's language says otherwise (lite-language.ts).

import type { ExtractedEntity, ExtractedRelation } from "../spec/index.js";
import { isSentenceEnd } from "../text/index.js";
import { entityNameKey } from "./entity-name-key.js";
import { elisionLength, isUnspaced, liteLanguage, segmentWords, type LiteLanguage } from "./lite-language.js";
import { WordClass, forgetWordsWhenFull, isWordCharacter, stutterLength, wordInfo, type WordInfo } from "./lite-words.js";

/** The extractor id `buildVideoGraph` records for this extractor; bump it when its output changes. */
export const liteExtractorId = "lite-entities@3";

/** Numbers each extraction for the words' usage stamps. */
let extractionNumber = 0;

/** Sentences longer than this (speech without punctuation) are read in windows of `windowWords`. */
const longestSentenceWords = 40;
const windowWords = 25;
/** Most words in a name, connectors included. */
const longestNameWords = 5;
const descriptionChars = 200;
/** Longest bracketed caption annotation skipped, brackets included. */
const longestAnnotation = 40;

export interface LiteEntitiesOptions {
  /** Most entities returned, best first. Default 20. */
  maxEntities?: number;
  /**
   * The text's language, ISO 639-1 (a video's `language`). English rules when absent or "en"; in another language its
   * own stop words judge its words, and in German a capital marks a noun, not a name. Chinese, Japanese and Thai are
   * cut into words in any case.
   */
  language?: string;
}

/** A name or phrase as counted, before ranking. */
interface Candidate {
  key: string;
  /** As first written (a name) or lowercase, singular where that form occurs (a phrase). */
  display: string;
  isName: boolean;
  words: number;
  count: number;
  firstToken: number;
  /** Segments it occurs in, ascending, each once. */
  segments: number[];
}

/**
 * Named entities (runs of capitalised words; a sentence-initial one only when it is capitalised elsewhere too or is no
 * common word, and no command such as "Knead the dough"; a lone capitalised adjective is a title's, not a name) typed
 * "name", and noun phrases of one to three content words typed "concept" (a single word only where it is used more as a
 * noun than as a verb: "we bake", "don't drop me" are verbs), ranked by how often they occur: a phrase seen twice
 * outranks its single words, and a word counts only where no frequent longer phrase holds it. Each is described by the
 * first sentence mentioning it. Entities mentioned in the same sentence (or the same 25-word window of unpunctuated
 * speech) are related, strength = how often (at most 10); the most frequent pairs are kept, as many as there are
 * entities (three times as many doubled the graph's rows and its ingest time, and changed graph retrieval's recall@10
 * on the how-to questions by 0.002). Precision on test-data/lite-entities-labelled.json (the real media's text, every
 * entity labelled by hand): 0.586 before these verb, adjective, interjection, stutter and unit rules, 0.903 with them.
 * Those rules are English's; text in another `language` keeps only the counting, its own stop words and its own
 * sentence ends ("。" included). Deterministic.
 */
export function extractLiteEntities(
  text: string,
  options: LiteEntitiesOptions = {},
): { entities: ExtractedEntity[]; relations: ExtractedRelation[] } {
  const maxEntities = Math.max(0, options.maxEntities ?? 20);
  const tokens = tokenize(text, liteLanguage(options.language));
  if (tokens.infos.length === 0 || maxEntities === 0) return { entities: [], relations: [] };
  const counted = countCandidates(text, tokens);
  const kept = rankCandidates(counted, tokens, maxEntities);
  const entities = kept.map((candidate) => ({
    name: candidate.display,
    type: candidate.isName ? "name" : "concept",
    description: excerpt(text, tokens, candidate.segments[0] ?? 0, [tokens.starts[candidate.firstToken] ?? 0]),
  }));
  return { entities, relations: relate(text, tokens, kept, kept.length) };
}

/** The words of a text with offsets, sentences and the punctuation between them. */
interface Tokens {
  infos: WordInfo[];
  count: number;
  starts: Int32Array;
  ends: Int32Array;
  /** What stands before each word, a `Gap`. */
  gapBefore: Uint8Array;
  /** Segment (sentence or window) of each word; segment bounds in words. */
  segmentOf: Int32Array;
  segmentFirst: number[];
  segmentLast: number[];
  /** This extraction's number in the words' usage stamps. */
  stamp: number;
  /** Excerpts of segments short enough to be shown whole, by segment: many entities and pairs share a sentence. */
  excerpts: Map<number, string>;
  language: LiteLanguage;
}

/** Characters that join two runs of letters into one word: apostrophes ("don't"), hyphens, and "10.22", "43,560". */
function isJoiner(code: number): boolean {
  return code === 39 || code === 0x2019 || code === 45 || code === 46 || code === 44;
}

/** End of the word starting at `start`: letters and digits, joined by single joiners between them. */
function wordEnd(text: string, start: number): number {
  let end = start + 1;
  for (;;) {
    while (end < text.length && isWordCharacter(text.charCodeAt(end))) end++;
    if (end + 1 < text.length && isJoiner(text.charCodeAt(end)) && isWordCharacter(text.charCodeAt(end + 1))) end += 2;
    else return end;
  }
}

function tokenize(text: string, language: LiteLanguage): Tokens {
  forgetWordsWhenFull(language);
  // A word and the character after it take at least two characters; a word of Chinese or Japanese may take one.
  const capacity = (isUnspaced(text) ? text.length : Math.ceil(text.length / 2)) + 1;
  const tokens: Tokens = {
    infos: [],
    count: 0,
    starts: new Int32Array(capacity),
    ends: new Int32Array(capacity),
    gapBefore: new Uint8Array(capacity),
    segmentOf: new Int32Array(capacity),
    segmentFirst: [],
    segmentLast: [],
    stamp: ++extractionNumber,
    excerpts: new Map(),
    language,
  };
  const sentenceOf = new Int32Array(capacity);
  let sentence = 0;
  let previousEnd = 0;
  /**
   * Adds the word at [start, end); the gap is what stands before `written`, where the word as written begins (before
   * its stutter or elision). True when the word starts a new sentence.
   */
  const addWord = (written: number, start: number, end: number, raw: string): boolean => {
    const gap = gapKind(text, previousEnd, written);
    const index = tokens.infos.length;
    const next = gap === Gap.Sentence && index > 0;
    const info = wordInfo(raw, language);
    tokens.infos.push(info);
    tokens.starts[index] = start;
    tokens.ends[index] = previousEnd = end;
    tokens.gapBefore[index] = index === 0 ? Gap.Sentence : gap;
    sentenceOf[index] = next ? sentence + 1 : sentence;
    if (!info.capitalised) info.usage.lowercaseIn = tokens.stamp;
    else if (index > 0 && gap !== Gap.Sentence && gap !== Gap.Line) info.usage.capitalisedInsideIn = tokens.stamp;
    return next;
  };
  for (let start = 0; start < text.length; start++) {
    const code = text.charCodeAt(start);
    if (code === 91) {
      // Caption annotations ("[Music]", "[Applause]") are not what is said.
      const close = text.indexOf("]", start);
      if (close > 0 && close - start <= longestAnnotation) start = close;
      continue;
    }
    if (!isWordCharacter(code)) continue;
    const end = wordEnd(text, start);
    const written = start;
    let raw = text.slice(start, end);
    // A stutter ("H-H-Help", "P-P-Popeye") is the word it leads to; so is an elided article ("l'eau").
    const stutter = raw.includes("-") ? stutterLength(raw) : 0;
    const elided = stutter === 0 ? elisionLength(raw, language) : 0;
    if (stutter + elided > 0) {
      start += stutter + elided;
      raw = raw.slice(stutter + elided);
    }
    if (code > 127 && isUnspaced(raw)) {
      // Chinese, Japanese, Thai: a run of characters is many words.
      for (const [offset, word] of segmentWords(raw, language.code)) {
        const at = start + offset;
        if (addWord(offset === 0 ? written : at, at, at + word.length, word)) sentence++;
      }
    } else if (addWord(written, start, end, raw)) sentence++;
    start = end - 1;
  }
  tokens.count = tokens.infos.length;
  segmentSentences(tokens, sentenceOf);
  return tokens;
}

/** What separates two words; `Gap.Sentence` and `Gap.Line` start a word where a capital proves nothing. */
const enum Gap {
  Space,
  /** Punctuation: a phrase break. */
  Punctuation,
  Sentence,
  /**
   * The " / " between on-screen lines: titles and list items start with a capital, as sentences do. (A newline is a
   * space: transcripts wrap sentences over caption lines.)
   */
  Line,
}

function gapKind(text: string, from: number, to: number): Gap {
  let kind = Gap.Space;
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index);
    if (isSentenceEnd(code)) return Gap.Sentence; // . ! ? … 。 ！ ？ and other scripts' (text/sentences.ts)
    if (code === 47) kind = Gap.Line; // /
    else if (code > 32 && code !== 160 && kind === Gap.Space) kind = Gap.Punctuation;
  }
  return kind;
}

/** Sentences become segments; long unpunctuated ones are cut into windows so "together" still means "near". */
function segmentSentences(tokens: Tokens, sentenceOf: Int32Array): void {
  const count = tokens.count;
  let first = 0;
  while (first < count) {
    let last = first;
    while (last + 1 < count && sentenceOf[last + 1] === sentenceOf[first]) last++;
    const length = last - first + 1;
    const step = length > longestSentenceWords ? windowWords : length;
    for (let start = first; start <= last; start += step) {
      const segment = tokens.segmentFirst.length;
      const end = Math.min(last, start + step - 1);
      tokens.segmentFirst.push(start);
      tokens.segmentLast.push(end);
      tokens.segmentOf.fill(segment, start, end + 1);
    }
    first = last + 1;
  }
}

interface Counted {
  names: Map<string, Candidate>;
  phrases: Map<string, Candidate>;
  /** How often each single word (by its singular) was used as a verb and as a noun, where the words around tell. */
  usedAs: Map<string, { verb: number; noun: number }>;
}

/** Words after which the next word is a verb: subjects, modals, "to", negations ("we bake", "don't drop", "to end"). */
const beforeVerbs: ReadonlySet<string> = new Set(
  `i we you they he she it will would can could should must shall may might to don't doesn't didn't won't can't let's
  please`.split(/\s+/),
);
/** Words a verb takes as its object's first word ("knead the dough", "man the lifeboats", "drop me"). */
const objectStarts: ReadonlySet<string> = new Set(
  "the a an this these those my your his its our their me him them us it some".split(" "),
);
/** Words after which the next word is a noun: determiners and prepositions ("the dough", "of flour"). */
const beforeNouns: ReadonlySet<string> = new Set(
  `the a an this these those my your his her its our their some any no each every another of with for in on into from
  about under over without through between`.split(/\s+/),
);
/** Numbers after an imperative at a sentence start ("Mix five hundred grams", "Copy one file"). */
const numberWords: ReadonlySet<string> = new Set("one two three four five six seven eight nine ten".split(" "));

function countCandidates(text: string, tokens: Tokens): Counted {
  const { infos, gapBefore, segmentOf } = tokens;
  const { english, nounCapitals } = tokens.language;
  const names = new Map<string, Candidate>();
  const phrases = new Map<string, Candidate>();
  const usedAs = new Map<string, { verb: number; noun: number }>();
  /** Counts one occurrence; true when the key is new and the caller must add it. */
  const counted = (map: Map<string, Candidate>, key: string, first: number, preferred: boolean): boolean => {
    const known = map.get(key);
    if (!known) return false;
    known.count++;
    const segment = segmentOf[first] as number;
    if (known.segments[known.segments.length - 1] !== segment) known.segments.push(segment);
    if (preferred && known.display !== key) known.display = key;
    return true;
  };
  const add = (map: Map<string, Candidate>, key: string, display: string, first: number, words: number, isName: boolean) => {
    map.set(key, { key, display, isName, words, count: 1, firstToken: first, segments: [segmentOf[first] as number] });
  };
  /** The word after `index` when only spaces separate them. */
  const nextWord = (index: number): WordInfo | undefined => (gapBefore[index + 1] === Gap.Space ? infos[index + 1] : undefined);
  /** A word starting a sentence or a line and followed by its object is an imperative ("Knead the dough"). */
  const imperative = (index: number): boolean => {
    const next = nextWord(index)?.lower;
    // A command is a verb's base form: "Adults 12 euros" is a price list.
    if (next === undefined || (infos[index] as WordInfo).singular !== (infos[index] as WordInfo).lower) return false;
    if (numberWords.has(next) || /^\d/.test(next)) return true;
    // "Popeye the Sailor" is a name joined by "the", "Knead the dough" a command.
    return objectStarts.has(next) && nextWord(index + 1)?.capitalised !== true;
  };

  /**
   * Words `first`..`last` as shown: English lowercase (a phrase's last word in the form the text used); another language
   * as written, lowercase unless it capitalises its nouns (German "rote Katze"), so "東京タワー" stays one word.
   */
  const shown = (first: number, last: number, englishForm: string): string => {
    if (english) return englishForm;
    const written = oneLine(text.slice(tokens.starts[first], tokens.ends[last]));
    return nounCapitals ? written : written.toLowerCase();
  };

  // A name is a run of name words, possibly joined by connectors; `nameStart` is its first word, `nameLast` its last.
  let nameStart = -1;
  let nameLast = -1;
  /**
   * In German every noun is capitalised: a capitalised word is a name only in a run of them ("Angela Merkel", "Walther
   * von der Vogelweide"); alone it is a noun, counted as a phrase.
   */
  const inCapitalRun = (index: number): boolean => {
    if (nameStart >= 0) return true;
    for (let next = index + 1; next <= index + 3 && gapBefore[next] === Gap.Space; next++) {
      const word = infos[next];
      if (word === undefined || !(word.nameWord || word.connector)) return false;
      if (word.nameWord) return true;
    }
    return false;
  };
  const closeName = (): void => {
    if (nameStart < 0) return;
    const only = nameStart === nameLast ? (infos[nameStart] as WordInfo) : undefined;
    // A lone capitalised adjective or participle is a title's first word ("Simple", "Guided"), not a name.
    if (only && only.wordClass !== WordClass.Content) {
      nameStart = -1;
      return;
    }
    let key = "";
    for (let index = nameStart; index < nameLast; index++) key += `${(infos[index] as WordInfo).lower} `;
    key += (infos[nameLast] as WordInfo).singular;
    if (!counted(names, key, nameStart, false)) {
      const display = oneLine(text.slice(tokens.starts[nameStart], tokens.ends[nameLast]));
      add(names, key, display, nameStart, nameLast - nameStart + 1, true);
    }
    nameStart = -1;
  };
  // Consecutive phrase words (any class but Break) ending at the current word, up to 3.
  let run = 0;

  for (let index = 0; index < infos.length; index++) {
    const info = infos[index] as WordInfo;
    const gap = gapBefore[index] as Gap;
    const initial = gap === Gap.Sentence || gap === Gap.Line;
    if (gap !== Gap.Space) {
      closeName();
      run = 0;
    }

    const isName =
      info.nameWord &&
      (nounCapitals
        ? inCapitalRun(index)
        : !initial ||
          info.usage.capitalisedInsideIn === tokens.stamp ||
          (info.usage.lowercaseIn !== tokens.stamp && !info.common && (!english || !imperative(index))));
    if (isName) {
      if (nameStart >= 0 && index - nameStart >= longestNameWords) closeName();
      if (nameStart < 0) nameStart = index;
      nameLast = index;
      run = 0;
      continue;
    }
    if (nameStart >= 0 && !(info.connector && index - nameLast <= 2)) closeName();

    if (info.wordClass === WordClass.Break) {
      run = 0;
      continue;
    }
    run = run < 3 ? run + 1 : 3;
    const previous = index > 0 ? (infos[index - 1] as WordInfo) : undefined;
    if (english && info.wordClass === WordClass.Content) {
      // Where the neighbours tell a verb from a noun, count it: a word used only as a verb is no subject alone.
      const before = gap === Gap.Space ? previous : undefined;
      const asVerb =
        (before !== undefined && beforeVerbs.has(before.lower)) ||
        ((gap !== Gap.Space || before?.capitalised === true) && objectStarts.has(nextWord(index)?.lower ?? "")) ||
        (initial && imperative(index));
      const asNoun =
        before !== undefined &&
        (beforeNouns.has(before.lower) || before.wordClass === WordClass.Edge || before.wordClass === WordClass.Leading);
      if (asVerb || asNoun) {
        const usage = usedAs.get(info.singular) ?? { verb: 0, noun: 0 };
        if (asVerb) usage.verb++;
        else usage.noun++;
        usedAs.set(info.singular, usage);
      }
    }
    if (info.wordClass !== WordClass.Content && info.wordClass !== WordClass.PhraseOnly) continue;
    // The singular form, where the text uses it, is the one shown (in English; elsewhere the first written).
    const preferred = english && info.singular === info.lower;
    if (info.wordClass === WordClass.Content && !counted(phrases, info.singular, index, preferred)) {
      add(phrases, info.singular, shown(index, index, info.singular), index, 1, false);
    }
    if (run < 2 || !previous) continue;
    // "stir stir stir" is emphasis, not a phrase.
    if (previous === info) continue;
    if (startsPhrase(previous)) {
      const key = `${previous.lower} ${info.singular}`;
      if (!counted(phrases, key, index - 1, preferred)) add(phrases, key, shown(index - 1, index, `${previous.lower} ${info.lower}`), index - 1, 2, false);
    }
    if (run < 3) continue;
    const before = infos[index - 2] as WordInfo;
    if (startsPhrase(before) && before !== previous) {
      const key = `${before.lower} ${previous.lower} ${info.singular}`;
      if (!counted(phrases, key, index - 2, preferred)) {
        add(phrases, key, shown(index - 2, index, `${before.lower} ${previous.lower} ${info.lower}`), index - 2, 3, false);
      }
    }
  }
  closeName();
  return { names, phrases, usedAs };
}

/** Whether a word may be a phrase's first word. */
function startsPhrase(info: WordInfo): boolean {
  return info.wordClass === WordClass.Content || info.wordClass === WordClass.Leading || info.wordClass === WordClass.PhraseOnly;
}

/** Weight of a phrase by its length and count: a repeated phrase says more than its words, a one-off less. */
function phraseWeight(words: number, count: number): number {
  if (words === 1) return 1;
  if (count < 2) return 0.75;
  return words === 2 ? 2 : 2.5;
}

const nameBoost = 1.5;

function rankCandidates({ names, phrases, usedAs }: Counted, tokens: Tokens, maxEntities: number): Candidate[] {
  for (const [key, name] of names) {
    const phrase = phrases.get(key);
    if (!phrase) continue;
    if (name.words > 1) {
      // A multi-word name also written in lowercase ("home depot") is the same thing: those mentions count too.
      mergeInto(name, phrase);
      phrases.delete(key);
    } else if (phrase.count >= name.count) {
      // A word written in lowercase at least as often is an ordinary word capitalised by habit or caption style.
      mergeInto(phrase, name);
      names.delete(key);
    }
  }
  // A word or pair counts only where no frequent longer phrase holds it ("moose lake" inside "big moose lake").
  const coveredBy = new Map<string, number>();
  for (const phrase of phrases.values()) {
    if (phrase.words < 2 || phrase.count < 2) continue;
    for (const key of subPhraseKeys(tokens, phrase)) coveredBy.set(key, Math.max(coveredBy.get(key) ?? 0, phrase.count));
  }

  const limit = maxEntities * 2;
  const best: { candidate: Candidate; score: number }[] = [];
  const offer = (candidate: Candidate, score: number): void => {
    if (score <= 0) return;
    if (best.length === limit) {
      const worst = best[best.length - 1] as { candidate: Candidate; score: number };
      if (!ranksBefore(score, candidate, worst.score, worst.candidate)) return;
      best.pop();
    }
    let at = best.length;
    while (at > 0) {
      const above = best[at - 1] as { candidate: Candidate; score: number };
      if (!ranksBefore(score, candidate, above.score, above.candidate)) break;
      at--;
    }
    best.splice(at, 0, { candidate, score });
  };
  for (const phrase of phrases.values()) {
    const usage = phrase.words === 1 ? usedAs.get(phrase.key) : undefined;
    // "we bake", "Bake the loaf": a word used more as a verb than as a noun is no subject alone.
    if (usage && usage.verb > usage.noun) continue;
    const residual = phrase.count - (coveredBy.get(phrase.key) ?? 0);
    offer(phrase, residual * phraseWeight(phrase.words, phrase.count));
  }
  for (const name of names.values()) offer(name, name.count * nameBoost * (name.words > 1 ? 2 : 1));

  // The counting keys approximate entityNameKey; the real key merges what it would merge later anyway.
  const kept: Candidate[] = [];
  const seen = new Set<string>();
  for (const { candidate } of best) {
    const key = entityNameKey(candidate.display);
    if (key === "" || seen.has(key)) continue;
    seen.add(key);
    kept.push(candidate);
    if (kept.length === maxEntities) break;
  }
  return kept;
}

function ranksBefore(score: number, candidate: Candidate, otherScore: number, other: Candidate): boolean {
  return score > otherScore || (score === otherScore && candidate.firstToken < other.firstToken);
}

function mergeInto(target: Candidate, source: Candidate): void {
  target.count += source.count;
  target.firstToken = Math.min(target.firstToken, source.firstToken);
  const segments = new Set([...target.segments, ...source.segments]);
  target.segments = [...segments].sort((a, b) => a - b);
}

/** Counting keys of the shorter phrases inside a phrase, from the words at its first occurrence. */
function subPhraseKeys(tokens: Tokens, phrase: Candidate): string[] {
  const words = tokens.infos.slice(phrase.firstToken, phrase.firstToken + phrase.words);
  const keys: string[] = [];
  for (let length = 1; length < words.length; length++) {
    for (let start = 0; start + length <= words.length; start++) {
      const part = words.slice(start, start + length);
      const last = part[part.length - 1] as WordInfo;
      keys.push([...part.slice(0, -1).map((word) => word.lower), last.singular].join(" "));
    }
  }
  return keys;
}

/** Pairs of kept entities in the same segment, strongest first, each described by the shortest segment holding both. */
function relate(text: string, tokens: Tokens, kept: Candidate[], maxRelations: number): ExtractedRelation[] {
  const inSegment = new Map<number, number[]>();
  kept.forEach((candidate, rank) => {
    for (const segment of candidate.segments) {
      const list = inSegment.get(segment);
      if (list) list.push(rank);
      else inSegment.set(segment, [rank]);
    }
  });
  const pairs = new Map<number, { source: number; target: number; count: number; segment: number; length: number }>();
  for (const [segment, ranks] of inSegment) {
    if (ranks.length < 2) continue;
    // "survey" inside "boundary survey" is that phrase's mention, not one of its own.
    const present = ranks.filter((rank) => !ranks.some((other) => other !== rank && holds(kept[other], kept[rank])));
    const length = (tokens.segmentLast[segment] as number) - (tokens.segmentFirst[segment] as number);
    for (let i = 0; i < present.length; i++) {
      for (let j = i + 1; j < present.length; j++) {
        const source = Math.min(present[i] as number, present[j] as number);
        const target = Math.max(present[i] as number, present[j] as number);
        const id = source * kept.length + target;
        const pair = pairs.get(id);
        if (!pair) pairs.set(id, { source, target, count: 1, segment, length });
        else {
          pair.count++;
          if (length < pair.length || (length === pair.length && segment < pair.segment)) Object.assign(pair, { segment, length });
        }
      }
    }
  }
  return [...pairs.values()]
    .sort((a, b) => b.count - a.count || a.source - b.source || a.target - b.target)
    .slice(0, maxRelations)
    .map((pair) => {
      const source = kept[pair.source] as Candidate;
      const target = kept[pair.target] as Candidate;
      const mentions = mentionsIn(tokens, pair.segment, [source, target]);
      return {
        source: source.display,
        target: target.display,
        description: `mentioned together: ${excerpt(text, tokens, pair.segment, mentions)}`,
        strength: Math.min(10, pair.count),
      };
    });
}

/** True when `outer` is a longer entity whose words hold `inner`'s ("boundary survey" holds "survey"). */
function holds(outer: Candidate | undefined, inner: Candidate | undefined): boolean {
  if (!outer || !inner || outer.key.length <= inner.key.length) return false;
  return ` ${outer.key} `.includes(` ${inner.key} `);
}

/** Character offsets where the entities' first words occur in a segment, for centring an excerpt on them. */
function mentionsIn(tokens: Tokens, segment: number, candidates: Candidate[]): number[] {
  const first = tokens.segmentFirst[segment] as number;
  const last = tokens.segmentLast[segment] as number;
  const offsets: number[] = [];
  for (const candidate of candidates) {
    const space = candidate.key.indexOf(" ");
    const word = space < 0 ? candidate.key : candidate.key.slice(0, space);
    for (let index = first; index <= last; index++) {
      const info = tokens.infos[index] as WordInfo;
      if (info.lower === word || info.singular === word) {
        offsets.push(tokens.starts[index] as number);
        break;
      }
    }
  }
  return offsets;
}

/**
 * A segment's text on one line, at most ~200 characters: when longer, a window cut at word boundaries around the
 * mentions, with "…" where it was cut.
 */
function excerpt(text: string, tokens: Tokens, segment: number, mentions: number[]): string {
  const firstWord = tokens.segmentFirst[segment] as number;
  const lastWord = tokens.segmentLast[segment] as number;
  const start = tokens.starts[firstWord] as number;
  let end = tokens.ends[lastWord] as number;
  // Keep the sentence's own closing punctuation.
  while (end < text.length && (isSentenceEnd(text.charCodeAt(end)) || /["”')\]」』）]/.test(text.charAt(end)))) end++;
  if (end - start <= descriptionChars) {
    let whole = tokens.excerpts.get(segment);
    if (whole === undefined) tokens.excerpts.set(segment, (whole = oneLine(text.slice(start, end))));
    return whole;
  }

  // Start a little before the first mention, but never so late that the window runs past the segment's end.
  const anchor = mentions.length > 0 ? Math.min(...mentions) - 40 : start;
  const from = Math.max(start, Math.min(anchor, end - descriptionChars));
  let firstIndex = firstWord;
  while (firstIndex < lastWord && (tokens.starts[firstIndex] as number) < from) firstIndex++;
  const windowStart = tokens.starts[firstIndex] as number;
  let lastIndex = firstIndex;
  while (lastIndex < lastWord && (tokens.ends[lastIndex + 1] as number) - windowStart <= descriptionChars) lastIndex++;
  const windowEnd = lastIndex === lastWord ? end : (tokens.ends[lastIndex] as number);
  const prefix = windowStart > start ? "…" : "";
  const suffix = windowEnd < end ? "…" : "";
  return `${prefix}${oneLine(text.slice(windowStart, windowEnd))}${suffix}`;
}

function oneLine(text: string): string {
  // Most excerpts and names hold single spaces only; skip the regex for them.
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const loneSpace = code === 32 && text.charCodeAt(index + 1) !== 32 && index > 0 && index < text.length - 1;
    if ((code <= 32 || code === 160) && !loneSpace) return text.replace(/\s+/g, " ").trim();
  }
  return text;
}
