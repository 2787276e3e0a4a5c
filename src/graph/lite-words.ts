// What the lite entity extractor knows about a written word before it sees where the word stands: whether it can be
// part of a noun phrase or a name, from stop lists (verbs, fillers, interjections, units, adjectives) and spelling
// (stutters, suffixes). These lists are English; a word of another language is judged by that language's stop words
// alone (lite-language.ts). Memoised by the word as written, per language, since a corpus repeats a small vocabulary.

import { englishStopwords } from "../text/index.js";
import { singularWord } from "./entity-name-key.js";
import { forgetLanguageWords, isUnspaced, liteLanguage, onlyHiragana, type LiteLanguage } from "./lite-language.js";

/** Frequent verbs that are rarely what a video is about, by their base form; `verbForms` adds -s, -ed and -ing. */
const frequentVerbs = `ask become begin believe bring buy call choose come consider continue create decide describe eat
  enjoy expect explain fall feel find follow forget get give go grab guess happen hate hear help hope imagine include keep
  know laugh learn leave let like look love make mean meet mention need notice pay pick prefer pretend put realize
  recommend remember say see seem send show sit speak spend stand start stay subscribe suggest suppose take talk tell thank
  think try understand use wait walk want wonder worry write read allow enhance rise`;

/** Irregular and doubled forms `verbForms` cannot derive. */
const irregularVerbForms = `became began bought brought came chose chosen did done ate eaten fell fallen felt found forgot
  forgotten gave given went gone got gotten getting heard kept knew known left made meant met paid put putting said saw
  seen sat sitting spoke spoken spent stood took taken told thought understood wrote written letting stole stolen taught
  caught ran drove driven threw thrown rose risen built`;

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
  eleven twelve twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion second third
  fourth fifth per another every many much several whatever wherever whenever sure able couple likely unless since
  around back course sorry video videos channel nowhere somewhere anywhere everywhere place`;

/**
 * Interjections and hesitations as subtitles and speech recognition write them ("Ohh!", "Nonono!", "huh"): never a
 * name or a phrase. Drawn-out spellings ("ohhh", "sooo") and repeats ("hahaha") are caught by `isInterjection`.
 */
const interjections = `oh ohh ooh oho ah ahh aah aha uh uhh uhm um umm hm hmm mm mmm mhm huh er erm eh ehh hey heh ha
  haha hah whoa woah wow yay yey yo ouch oops whoops ow ugh yikes gee gosh golly duh hooray hurray nah nope yep yup yah
  shh psst phew whew oi oy alright bye okay ok`;

/** Units of measure: part of a phrase ("opening hours", "minute timer"), but alone they name no subject. */
const units = `minute minutes hour hours gram grams kilogram kilograms milligram milligrams ounce ounces inch inches
  centimeter centimeters centimetre centimetres millimeter millimeters millimetre millimetres meter meters metre metres
  kilometer kilometers kilometre kilometres mile miles degree degrees percent euro euros dollar dollars cent cents watt
  watts volt volts mph`;

/** Common adjectives: fine inside a phrase ("cast iron skillet") and in names ("Great Britain"), never at a phrase's edge. */
const edgeAdjectives = `good great nice big small little bad best better new old different whole certain real main
  important easy hard simple possible entire full high low long short large huge tiny next last first tall regular tasty
  super free fresh clean dry wet hot cold warm thick thin soft dark heavy strong fine quick bigger smaller longer shorter
  thicker thinner easier harder faster higher lower larger wider deeper`;

/** Adjectives that may lead a phrase ("young man", "single file") but are no subject alone. */
const leadingAdjectives = `young smooth single elastic ordinary typical actual`;

/** -ly words that are nouns, not adverbs ("power supply"). */
const lyNouns: ReadonlySet<string> = new Set(
  words(`family supply assembly butterfly dragonfly firefly italy jelly belly anomaly monopoly rally reply lily holly
  tally bully`),
);

/** Nouns (and verbs) with an adjective's ending ("vegetable", "priest", "radish", "handful"), kept as they were. */
const suffixNouns: ReadonlySet<string> = new Set(
  words(`vegetable stable timetable turntable constable variable syllable deliverable collectible priest suggest arrest
  attest radish relish polish finish parish varnish cherish ravish fetish establish publish punish accomplish english
  british irish scottish spanish danish swedish finnish turkish jewish handful mouthful spoonful cupful armful
  bucketful`),
);

function words(list: string): string[] {
  return list.split(/\s+/).filter(Boolean);
}

function verbForms(bases: string): string[] {
  return words(bases).flatMap((base) => {
    const stem = base.endsWith("e") ? base.slice(0, -1) : base;
    const third = /(?:s|sh|ch|x|o)$/.test(base) ? `${base}es` : /[^aeiou]y$/.test(base) ? `${base.slice(0, -1)}ies` : `${base}s`;
    const past = base.endsWith("e") ? `${base}d` : /[^aeiou]y$/.test(base) ? `${base.slice(0, -1)}ied` : `${base}ed`;
    return [base, third, past, `${stem}ing`];
  });
}

const interjectionWords: ReadonlySet<string> = new Set(words(interjections));

const phraseBreakers: ReadonlySet<string> = new Set([
  ...verbForms(frequentVerbs),
  ...words(irregularVerbForms),
  ...words(otherBreakers),
  ...interjectionWords,
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

const edgeOnly: ReadonlySet<string> = new Set(words(edgeAdjectives));
const leadingOnly: ReadonlySet<string> = new Set(words(leadingAdjectives));
const phraseOnly: ReadonlySet<string> = new Set(words(units));

/** All-caps words up to this length are acronyms (TV, NASA); longer ones are shouting and read as ordinary words. */
const longestAcronym = 4;

/** How a word may take part in a noun phrase. */
export const enum WordClass {
  /** Stopwords, contractions, fillers, numbers, words under three letters: never part of a phrase. */
  Break,
  /** Inside a phrase, not at its edge. */
  Edge,
  /** First or inside a phrase ("stainless steel"), not last and not alone. */
  Leading,
  /** Anywhere in a phrase ("opening hours"), not alone. */
  PhraseOnly,
  Content,
}

/**
 * Whether a word is an interjection: listed, drawn out ("ohhh", "nooo": a letter three times running) or a short one
 * repeated ("nonono", "hahaha").
 */
function isInterjection(lower: string): boolean {
  return interjectionWords.has(lower) || /(\p{L})\1\1/u.test(lower) || /^(no|oh|ah|ha|he|ho|la)\1+$/.test(lower);
}

/** True when a word reads as an adjective by its ending: superlatives and -able, -ible, -ous, -ish, -ful, -less words. */
function adjectiveBySuffix(lower: string): boolean {
  if (lower.length < 6 || suffixNouns.has(lower)) return false;
  if (lower.endsWith("est")) {
    // "biggest", "easiest", "oldest", "finest": a doubled consonant, -iest, or a listed adjective before -est.
    const stem = lower.slice(0, -3);
    return /([b-df-hj-np-tv-z])\1$/.test(stem) || stem.endsWith("i") || edgeOnly.has(stem) || edgeOnly.has(`${stem}e`) || leadingOnly.has(stem);
  }
  return /(?:able|ible|ous|ish|ful|less)$/.test(lower);
}

/**
 * Participles ("purchased") and adverbs ("carefully") by their endings: an -ed word may sit inside a phrase ("stained
 * glass window") but not at its edge, an -ly word not at all. Too short or -eed words ("shed", "seed") are nouns.
 * Adjectives by their endings may lead a phrase ("stainless steel", "adjustable wrench").
 */
function suffixClass(lower: string): WordClass | undefined {
  if (lower.length >= 5 && lower.endsWith("ed") && !lower.endsWith("eed")) return WordClass.Edge;
  if (lower.length >= 6 && lower.endsWith("ly") && !lyNouns.has(lower)) return WordClass.Break;
  if (adjectiveBySuffix(lower)) return WordClass.Leading;
  return undefined;
}

/** What is known about a written word regardless of where it appears. */
export interface WordInfo {
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
export interface WordUsage {
  lowercaseIn: number;
  capitalisedInsideIn: number;
}

const wordUsages = new Map<string, WordUsage>();

/**
 * `wordInfo`'s memo, by the word as written, holds at most this many words of a language, a few MB. Cleared between
 * texts once full, never inside one, so a text's usage stamps stay on one set of entries; a corpus's vocabulary is
 * usually far smaller.
 */
const wordInfoLimit = 100_000;

/** Called before each text in `language`: empties the memos once its own is full. */
export function forgetWordsWhenFull(language: LiteLanguage): void {
  if (language.words.size < wordInfoLimit) return;
  forgetLanguageWords();
  wordUsages.clear();
}

/** What is known about a written word of `language` (English's rules when absent). */
export function wordInfo(raw: string, language: LiteLanguage = liteLanguage(undefined)): WordInfo {
  const known = language.words.get(raw);
  if (known) return known;
  const info = language.english ? describeWord(raw, language) : describeOtherWord(raw, language);
  language.words.set(raw, info);
  return info;
}

/**
 * Length of a stuttered start ("H-H-" of "H-H-Help", "W-" of "W-What"): hyphenated pieces of one to three letters, each
 * the start of the word they lead to. 0 when there is none.
 */
export function stutterLength(raw: string): number {
  const hyphen = raw.lastIndexOf("-");
  if (hyphen <= 0 || hyphen === raw.length - 1) return 0;
  const word = raw.slice(hyphen + 1).toLowerCase();
  const pieces = raw.slice(0, hyphen).toLowerCase().split("-");
  return pieces.every((piece) => piece.length >= 1 && piece.length <= 3 && word.startsWith(piece)) ? hyphen + 1 : 0;
}

function describeWord(raw: string, language: LiteLanguage): WordInfo {
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
  const breaker = phraseBreakers.has(lower) || isInterjection(lower);
  const wordClass =
    stop || hasDigit || letters < 3 || breaker
      ? WordClass.Break
      : edgeOnly.has(lower)
        ? WordClass.Edge
        : leadingOnly.has(lower)
          ? WordClass.Leading
          : phraseOnly.has(lower)
            ? WordClass.PhraseOnly
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
    nameWord: capitalised && !stop && !hasDigit && letters >= 2 && !breaker,
    connector: language.connectors.has(lower),
    common,
  };
}

/**
 * A word of a language other than English, by its stop words, length and digits only: no English verb, adjective or
 * plural rule applies. A word of a script without spaces (a segment of Chinese or Japanese) needs two characters, not
 * three. Two spellings tell a word's class: in German a noun is capitalised, so a lowercase word (a verb, an adjective)
 * may lead a phrase ("rote Katze") but is no subject; in Japanese hiragana alone (particles, endings) is no word, and a
 * word ending in it ("高い", "見え") is a verb or an adjective.
 */
function describeOtherWord(raw: string, language: LiteLanguage): WordInfo {
  const lower = raw.toLowerCase().replace(/’/g, "'");
  let letters = 0;
  let hasDigit = false;
  for (const character of lower) {
    if (/\p{N}/u.test(character)) hasDigit = true;
    else if (isWordCharacter(character.charCodeAt(0))) letters++;
  }
  const unspaced = isUnspaced(lower);
  const inflected = unspaced && /[\u3041-\u309f]$/u.test(lower);
  const stop = language.stopwords.has(lower) || (unspaced && onlyHiragana(lower));
  const first = raw.charAt(0);
  const capitalised = first !== first.toLowerCase() && !(raw.length > longestAcronym && raw === raw.toUpperCase());
  const wordClass =
    stop || hasDigit || inflected || letters < (unspaced ? 2 : 3)
      ? WordClass.Break
      : language.nounCapitals && !capitalised
        ? WordClass.Leading
        : WordClass.Content;
  let usage = wordUsages.get(lower);
  if (!usage) wordUsages.set(lower, (usage = { lowercaseIn: 0, capitalisedInsideIn: 0 }));
  return {
    usage,
    lower,
    singular: lower,
    wordClass,
    capitalised,
    nameWord: capitalised && !stop && !hasDigit && letters >= 2,
    connector: language.connectors.has(lower),
    common: wordClass !== WordClass.Content,
  };
}

/** Letters and digits of any script; ASCII is tested by code, since a regex per character was the extractor's cost. */
export function isWordCharacter(code: number): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
  return /[\p{L}\p{N}]/u.test(String.fromCharCode(code));
}
