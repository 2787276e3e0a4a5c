// Diacritics folded as the lexical indexes fold them, so "cafe" finds "café". Both stores tokenize with FTS5's
// `unicode61 remove_diacritics 2` (the Postgres store borrows it in memory, fts5-tokens.ts), which folds the accents of
// Latin letters in every language and leaves Greek, Cyrillic and kana alone. `foldDiacritics` is that folding written
// once here, character for character (fold-diacritics.test.ts checks it against FTS5), except for the letters a language
// counts as letters of its own: Spanish "año" is not "ano", Swedish "får" not "far". The stores' tokenizer still folds
// those too; they stay apart in the index once it is told `remove_diacritics 0` and this folding is all there is. Text
// is stemmed before it is folded (indexed-text.ts): Snowball reads the accents ("égalité" → "égal").

/**
 * Combining marks FTS5 drops from a token (`remove_diacritics 2`): grave, acute, circumflex, tilde, macron, breve, dot,
 * diaeresis, hook, ring, double acute, caron, double grave, inverted breve, horn, dot below, diaeresis below, ring
 * below, comma below, cedilla, ogonek, circumflex below, breve below, tilde below, macron below.
 */
const droppedMarks = "\u0300-\u0304\u0306-\u030c\u030f\u0311\u031b\u0323-\u0328\u032d\u032e\u0330\u0331";
const droppedMark = new RegExp(`^[${droppedMarks}]$`, "u");
/** Latin letters with a mark FTS5 does not fold: a base that is no ASCII letter (æ, ø, ʒ) or a dot above and macron. */
const unfolded = new Set("ǠǡǢǣǮǯǼǽǾǿ");

/**
 * Letters a language's alphabet holds as letters of their own, not as accented forms: kept, upper and lower case.
 * Vietnamese keeps every mark (its tones tell words apart). A language not listed folds every letter FTS5 folds.
 */
const ownLetters: Record<string, string> = {
  es: "ñ",
  sv: "åäö", fi: "åäöšž", et: "äöõüšž", da: "å", no: "å", nb: "å", nn: "å", is: "áéíóúýö",
  tr: "çğöşü", az: "çğöşü", hu: "áéíóöőúüű", ro: "ăâîșşțţ",
  cs: "áčďéěíňóřšťúůýž", sk: "áäčďéíĺľňóôŕšťúýž", pl: "ąćęńóśźż", sl: "čšž", hr: "čćšž", bs: "čćšž", sr: "čćšž",
  lt: "ąčęėįšųūž", lv: "āčēģīķļņšūž",
};
const keepsEveryMark = new Set(["vi"]);

const folded = new Map<string, string>();

/** One character as FTS5 folds it: a Latin letter with marks FTS5 drops becomes its lowercase base letter. */
function foldCharacter(character: string): string {
  let result = folded.get(character);
  if (result !== undefined) return result;
  result = character;
  if (droppedMark.test(character)) result = "";
  else if (!unfolded.has(character)) {
    const [written, ...marks] = [...character.normalize("NFD")];
    // "ẛ" is a long s with a dot: FTS5 folds it to "s".
    const base = written === "ſ" ? "s" : written;
    if (base && /^[A-Za-z]$/.test(base) && marks.length > 0 && marks.every((mark) => droppedMark.test(mark))) result = base.toLowerCase();
  }
  folded.set(character, result);
  return result;
}

const keptLetters = new Map<string, ReadonlySet<string>>(
  Object.entries(ownLetters).map(([language, letters]) => [language, new Set([...letters, ...letters.toUpperCase()])]),
);

/** What a language keeps: its own letters, every mark ("all"), or nothing (undefined). */
function keptBy(language: string | undefined): ReadonlySet<string> | "all" | undefined {
  if (!language) return undefined;
  return keepsEveryMark.has(language) ? "all" : keptLetters.get(language);
}

/**
 * `text` with the diacritics FTS5's `remove_diacritics 2` drops dropped ("Café" → "Cafe", "Việt" → "Viet"), except
 * the letters `language` (ISO 639-1) counts as its own ("año" stays in Spanish). Without a language, or in English, it
 * folds exactly as FTS5 does. ASCII text comes back as it is.
 */
export function foldDiacritics(text: string, language?: string): string {
  if (!/[^\p{ASCII}]/u.test(text)) return text;
  const kept = keptBy(language);
  if (kept === "all") return text;
  // Precomposed, so a kept letter written as base and mark ("n" + U+0303) is the letter; FTS5 itself does not compose.
  const source = kept ? text.normalize("NFC") : text;
  return source.replace(/[^\p{ASCII}]/gu, (character) => (kept?.has(character) ? character : foldCharacter(character)));
}
