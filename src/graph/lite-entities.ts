// Entities and relations from text with no model: capitalised names and frequent noun phrases, related when they are
// mentioned in the same sentence. The offline fallback for the graph; it runs over every transcript at ingest, so it is
// one scan of the characters plus counting, with what is known about each written word memoised across calls.

import type { ExtractedEntity, ExtractedRelation } from "../spec/index.js";
import { englishStopwords } from "../text/index.js";
import { entityNameKey, singularWord } from "./entity-name-key.js";

/** The extractor id `buildVideoGraph` records for this extractor; bump it when its output changes. */
export const liteExtractorId = "lite-entities@1";

/** Frequent verbs that are rarely what a video is about, by their base form; `verbForms` adds -s, -ed and -ing. */
const frequentVerbs = `ask become begin believe bring buy call choose come consider continue create decide describe eat
  enjoy expect explain fall feel find follow forget get give go grab guess happen hate hear help hope imagine include keep
  know laugh learn leave let like look love make mean meet mention need notice pay pick prefer pretend put realize
  recommend remember say see seem send show sit speak spend stand start stay subscribe suggest suppose take talk tell thank
  think try understand use wait walk want wonder worry write`;

/** Irregular and doubled forms `verbForms` cannot derive. */
const irregularVerbForms = `became began bought brought came chose chosen did done ate eaten fell fallen felt found forgot
  forgotten gave given went gone got gotten getting heard kept knew known left made meant met paid put putting said saw
  seen sat sitting spoke spoken spent stood took taken told thought understood wrote written letting`;

/**
 * Adverbs, fillers, vague nouns, numbers and a few adjectives that say nothing about a video's subject. With the verbs,
 * they break a noun phrase as stopwords do, and a capitalised one at a sentence start is not a name ("Really nice").
 */
const otherBreakers = `actually basically really probably maybe definitely certainly literally pretty quite rather simply
  totally exactly obviously usually always never often sometimes already still even ever almost finally quickly slowly
  easily especially together instead anyway though although however therefore else perhaps enough away today tomorrow
  yesterday tonight later soon right well yes yeah hey hello welcome thanks please kinda sorta gotta hmm mhm wow cool
  awesome amazing perfect ready thing things stuff something anything everything nothing someone anyone everyone
  somebody everybody lot lots bit way ways guys guy folks kind sort one two three four five six seven eight nine ten
  hundred thousand second third fourth fifth another every many much several whatever wherever whenever sure able
  couple likely unless since around back course sorry video videos channel`;

function verbForms(bases: string): string[] {
  return words(bases).flatMap((base) => {
    const stem = base.endsWith("e") ? base.slice(0, -1) : base;
    const third = /(?:s|sh|ch|x|o)$/.test(base) ? `${base}es` : /[^aeiou]y$/.test(base) ? `${base.slice(0, -1)}ies` : `${base}s`;
    const past = base.endsWith("e") ? `${base}d` : /[^aeiou]y$/.test(base) ? `${base.slice(0, -1)}ied` : `${base}ed`;
    return [base, third, past, `${stem}ing`];
  });
}

function words(list: string): string[] {
  return list.split(/\s+/).filter(Boolean);
}

const phraseBreakers: ReadonlySet<string> = new Set([
  ...verbForms(frequentVerbs),
  ...words(irregularVerbForms),
  ...words(otherBreakers),
]);

/**
 * Imperatives that start many how-to sentences ("Cut the rope."): common enough that, capitalised at a sentence start,
 * they are no name, though they may well be the subject of a phrase ("a clean cut", "fresh paint").
 */
const sentenceStarters: ReadonlySet<string> = new Set(
  words(`add apply attach bake boil check chop clean close connect cook cover cut drain drill dry fill finish fold fry heat
  hold insert install lay lift loosen lower mark measure melt mix move open paint peel place plant pour press pull push
  remove repeat replace rinse roll rotate sand screw season serve set slice slide spray spread sprinkle stir stop taste
  tie tighten trim turn twist wash water wipe wrap next first then finally`),
);

/** Common adjectives: fine inside a phrase ("cast iron skillet") and in names ("Great Britain"), never at a phrase's edge. */
const edgeOnly: ReadonlySet<string> = new Set(
  words(`good great nice big small little bad best better new old different whole certain real main important easy hard
  simple possible entire full high low long short large huge tiny next last first tall regular tasty super free fresh
  clean dry wet hot cold warm thick thin soft dark heavy strong fine quick bigger smaller longer shorter thicker thinner
  easier harder faster higher lower larger wider deeper`),
);

/** -ly words that are nouns, not adverbs ("power supply"). */
const lyNouns: ReadonlySet<string> = new Set(
  words(`family supply assembly butterfly dragonfly firefly italy jelly belly anomaly monopoly rally reply lily holly
  tally bully`),
);

/**
 * Participles ("purchased") and adverbs ("carefully") by their endings: an -ed word may sit inside a phrase ("stained
 * glass window") but not at its edge, an -ly word not at all. Too short or -eed words ("shed", "seed") are nouns.
 */
function suffixClass(lower: string): WordClass | undefined {
  if (lower.length >= 5 && lower.endsWith("ed") && !lower.endsWith("eed")) return WordClass.Edge;
  if (lower.length >= 6 && lower.endsWith("ly") && !lyNouns.has(lower)) return WordClass.Break;
  return undefined;
}

/** Lowercase words allowed inside a name between capitalised words ("Popeye the Sailor", "Bank of America"). */
const nameConnectors: ReadonlySet<string> = new Set(["of", "the", "de", "du", "da", "del", "la", "le", "van", "von"]);

/** Sentences longer than this (speech without punctuation) are read in windows of `windowWords`. */
const longestSentenceWords = 40;
const windowWords = 25;
/** Most words in a name, connectors included. */
const longestNameWords = 5;
/** All-caps words up to this length are acronyms (TV, NASA); longer ones are shouting and read as ordinary words. */
const longestAcronym = 4;
const descriptionChars = 200;
/** Longest bracketed caption annotation skipped, brackets included. */
const longestAnnotation = 40;

const enum WordClass {
  /** Stopwords, contractions, fillers, numbers, words under three letters: never part of a phrase. */
  Break,
  /** Inside a phrase, not at its edge. */
  Edge,
  Content,
}

/** What is known about a written word regardless of where it appears. */
interface WordInfo {
  /** Lowercase, possessive 's dropped. */
  lower: string;
  singular: string;
  wordClass: WordClass;
  /** Starts with a capital (acronyms included, shouted words not). */
  capitalised: boolean;
  /** Capitalised and usable in a name: not a stopword, filler, number or single letter. */
  nameWord: boolean;
  connector: boolean;
  /** A word common enough that, capitalised at a sentence start, it is probably not a name. */
  common: boolean;
  /** Shared by every written form of the same lowercase word: how the current text writes it. */
  usage: WordUsage;
}

/**
 * Which extraction last saw a word written in lowercase, or capitalised other than at a sentence start. Stamps rather
 * than per-call sets: a set lookup per word was a fifth of the extractor's time.
 */
interface WordUsage {
  lowercaseIn: number;
  capitalisedInsideIn: number;
}

const wordUsages = new Map<string, WordUsage>();
/** Numbers each extraction for the usage stamps. */
let extractionNumber = 0;

/**
 * Memo of `wordInfo` by the word as written, a few MB at most. Cleared between texts once full, never inside one, so a
 * text's usage stamps stay on one set of entries; a corpus's vocabulary is usually far smaller.
 */
const wordInfos = new Map<string, WordInfo>();
const wordInfoLimit = 100_000;

function forgetWordsWhenFull(): void {
  if (wordInfos.size < wordInfoLimit) return;
  wordInfos.clear();
  wordUsages.clear();
}

function wordInfo(raw: string): WordInfo {
  const known = wordInfos.get(raw);
  if (known) return known;
  const info = describeWord(raw);
  wordInfos.set(raw, info);
  return info;
}

function describeWord(raw: string): WordInfo {
  let lower = raw.toLowerCase().replace(/’/g, "'");
  const apostrophe = lower.indexOf("'");
  let contraction = false;
  if (apostrophe > 0) {
    const prefix = lower.slice(0, apostrophe);
    const suffix = lower.slice(apostrophe + 1);
    if (englishStopwords.has(prefix) || /^(?:t|re|ve|ll|d|m)$/.test(suffix)) contraction = true;
    else if (suffix === "s") lower = prefix;
  }
  let letters = 0;
  let hasDigit = false;
  for (let index = 0; index < lower.length; index++) {
    const code = lower.charCodeAt(index);
    if ((code >= 48 && code <= 57) || (code > 127 && /\p{N}/u.test(lower.charAt(index)))) hasDigit = true;
    else if (isWordCharacter(code)) letters++;
  }
  const stop = contraction || englishStopwords.has(lower);
  const wordClass =
    stop || hasDigit || letters < 3 || phraseBreakers.has(lower)
      ? WordClass.Break
      : edgeOnly.has(lower)
        ? WordClass.Edge
        : (suffixClass(lower) ?? WordClass.Content);

  const first = raw.charAt(0);
  const upperFirst = first !== first.toLowerCase();
  const shouted = raw.length > longestAcronym && raw === raw.toUpperCase();
  const capitalised = upperFirst && !shouted;
  const common = wordClass !== WordClass.Content || lower.endsWith("ing") || sentenceStarters.has(lower);
  let usage = wordUsages.get(lower);
  if (!usage) wordUsages.set(lower, (usage = { lowercaseIn: 0, capitalisedInsideIn: 0 }));
  return {
    usage,
    lower,
    singular: wordClass === WordClass.Break ? lower : singularWord(lower),
    wordClass,
    capitalised,
    nameWord: capitalised && !stop && !hasDigit && letters >= 2 && !phraseBreakers.has(lower),
    connector: nameConnectors.has(lower),
    common,
  };
}

export interface LiteEntitiesOptions {
  /** Most entities returned, best first. Default 20. */
  maxEntities?: number;
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
 * common word) typed "name", and noun phrases of one to three content words typed "concept", ranked by how often they
 * occur: a phrase seen twice outranks its single words, and a word counts only where no frequent longer phrase holds
 * it. Each is described by the first sentence mentioning it. Entities mentioned in the same sentence (or the same
 * 25-word window of unpunctuated speech) are related, strength = how often (at most 10); the most frequent pairs are
 * kept, as many as there are entities (three times as many doubled the graph's rows and its ingest time, and changed
 * graph retrieval's recall@10 on the how-to questions by 0.002). Deterministic.
 */
export function extractLiteEntities(
  text: string,
  options: LiteEntitiesOptions = {},
): { entities: ExtractedEntity[]; relations: ExtractedRelation[] } {
  const maxEntities = Math.max(0, options.maxEntities ?? 20);
  const tokens = tokenize(text);
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
  /** 0: only spaces before the word; 1: punctuation (a phrase break); 2: a sentence end. */
  gapBefore: Uint8Array;
  /** Segment (sentence or window) of each word; segment bounds in words. */
  segmentOf: Int32Array;
  segmentFirst: number[];
  segmentLast: number[];
  /** This extraction's number in the words' usage stamps. */
  stamp: number;
  /** Excerpts of segments short enough to be shown whole, by segment: many entities and pairs share a sentence. */
  excerpts: Map<number, string>;
}

/** Letters and digits of any script; ASCII is tested by code, since a regex per character was the extractor's cost. */
function isWordCharacter(code: number): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
  return /[\p{L}\p{N}]/u.test(String.fromCharCode(code));
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

function tokenize(text: string): Tokens {
  forgetWordsWhenFull();
  // A word and the character after it take at least two characters.
  const capacity = Math.ceil(text.length / 2) + 1;
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
  };
  const sentenceOf = new Int32Array(capacity);
  let sentence = 0;
  let previousEnd = 0;
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
    const gap = gapKind(text, previousEnd, start);
    const index = tokens.infos.length;
    if (gap === 2 && index > 0) sentence++;
    const info = wordInfo(text.slice(start, end));
    tokens.infos.push(info);
    tokens.starts[index] = start;
    tokens.ends[index] = previousEnd = end;
    start = end - 1;
    tokens.gapBefore[index] = index === 0 ? 2 : gap;
    sentenceOf[index] = sentence;
    if (!info.capitalised) info.usage.lowercaseIn = tokens.stamp;
    else if (index > 0 && gap !== 2) info.usage.capitalisedInsideIn = tokens.stamp;
  }
  tokens.count = tokens.infos.length;
  segmentSentences(tokens, sentenceOf);
  return tokens;
}

/** 2 when the text between two words ends a sentence, 1 when it holds other punctuation, 0 for spaces only. */
function gapKind(text: string, from: number, to: number): number {
  let kind = 0;
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index);
    if (code === 46 || code === 33 || code === 63 || code === 0x2026) return 2; // . ! ? …
    if (code > 32 && code !== 160) kind = 1;
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
}

function countCandidates(text: string, tokens: Tokens): Counted {
  const { infos, gapBefore, segmentOf } = tokens;
  const names = new Map<string, Candidate>();
  const phrases = new Map<string, Candidate>();
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

  // A name is a run of name words, possibly joined by connectors; `nameStart` is its first word, `nameLast` its last.
  let nameStart = -1;
  let nameLast = -1;
  const closeName = (): void => {
    if (nameStart < 0) return;
    let key = "";
    for (let index = nameStart; index < nameLast; index++) key += `${(infos[index] as WordInfo).lower} `;
    key += (infos[nameLast] as WordInfo).singular;
    if (!counted(names, key, nameStart, false)) {
      const display = oneLine(text.slice(tokens.starts[nameStart], tokens.ends[nameLast]));
      add(names, key, display, nameStart, nameLast - nameStart + 1, true);
    }
    nameStart = -1;
  };
  // Consecutive phrase words (content or edge) ending at the current word, up to 3.
  let run = 0;

  for (let index = 0; index < infos.length; index++) {
    const info = infos[index] as WordInfo;
    const gap = gapBefore[index] as number;
    const initial = gap === 2;
    if (gap !== 0) {
      closeName();
      run = 0;
    }

    const isName =
      info.nameWord &&
      (!initial ||
        info.usage.capitalisedInsideIn === tokens.stamp ||
        (info.usage.lowercaseIn !== tokens.stamp && !info.common));
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
    if (info.wordClass !== WordClass.Content) continue;
    // The singular form, where the text uses it, is the one shown.
    const preferred = info.singular === info.lower;
    if (!counted(phrases, info.singular, index, preferred)) add(phrases, info.singular, info.singular, index, 1, false);
    if (run < 2) continue;
    const previous = infos[index - 1] as WordInfo;
    // "stir stir stir" is emphasis, not a phrase.
    if (previous === info) continue;
    if (previous.wordClass === WordClass.Content) {
      const key = `${previous.lower} ${info.singular}`;
      if (!counted(phrases, key, index - 1, preferred)) add(phrases, key, `${previous.lower} ${info.lower}`, index - 1, 2, false);
    }
    if (run < 3) continue;
    const before = infos[index - 2] as WordInfo;
    if (before.wordClass === WordClass.Content && before !== previous) {
      const key = `${before.lower} ${previous.lower} ${info.singular}`;
      if (!counted(phrases, key, index - 2, preferred)) {
        add(phrases, key, `${before.lower} ${previous.lower} ${info.lower}`, index - 2, 3, false);
      }
    }
  }
  closeName();
  return { names, phrases };
}

/** Weight of a phrase by its length and count: a repeated phrase says more than its words, a one-off less. */
function phraseWeight(words: number, count: number): number {
  if (words === 1) return 1;
  if (count < 2) return 0.75;
  return words === 2 ? 2 : 2.5;
}

const nameBoost = 1.5;

function rankCandidates({ names, phrases }: Counted, tokens: Tokens, maxEntities: number): Candidate[] {
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
  while (end < text.length && /[.!?…"”')\]]/.test(text.charAt(end))) end++;
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
