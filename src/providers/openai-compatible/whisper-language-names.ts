// The language a Whisper-class server reports, as ISO 639-1. OpenAI's API and whisper.cpp's server answer with
// Whisper's English name ("german", "haitian creole"); faster-whisper-server and others with the code ("de").

import { languageFromTag } from "../../text/index.js";

/**
 * Whisper's language names (openai/whisper tokenizer.py, LANGUAGES and its aliases) by ISO 639-1 code. Whisper's own
 * codes differ twice: Javanese is "jw" there ("jv" here) and Cantonese "yue" (Chinese here); Hawaiian has no 639-1 code.
 */
const whisperNames: Record<string, string> = {
  english: "en", chinese: "zh", mandarin: "zh", cantonese: "zh", german: "de", spanish: "es", castilian: "es", russian: "ru",
  korean: "ko", french: "fr", japanese: "ja", portuguese: "pt", turkish: "tr", polish: "pl", catalan: "ca", valencian: "ca",
  dutch: "nl", flemish: "nl", arabic: "ar", swedish: "sv", italian: "it", indonesian: "id", hindi: "hi", finnish: "fi",
  vietnamese: "vi", hebrew: "he", ukrainian: "uk", greek: "el", malay: "ms", czech: "cs", romanian: "ro", moldavian: "ro",
  moldovan: "ro", danish: "da", hungarian: "hu", tamil: "ta", norwegian: "no", thai: "th", urdu: "ur", croatian: "hr",
  bulgarian: "bg", lithuanian: "lt", latin: "la", maori: "mi", malayalam: "ml", welsh: "cy", slovak: "sk", telugu: "te",
  persian: "fa", latvian: "lv", bengali: "bn", serbian: "sr", azerbaijani: "az", slovenian: "sl", kannada: "kn",
  estonian: "et", macedonian: "mk", breton: "br", basque: "eu", icelandic: "is", armenian: "hy", nepali: "ne",
  mongolian: "mn", bosnian: "bs", kazakh: "kk", albanian: "sq", swahili: "sw", galician: "gl", marathi: "mr", punjabi: "pa",
  panjabi: "pa", sinhala: "si", sinhalese: "si", khmer: "km", shona: "sn", yoruba: "yo", somali: "so", afrikaans: "af",
  occitan: "oc", georgian: "ka", belarusian: "be", tajik: "tg", sindhi: "sd", gujarati: "gu", amharic: "am", yiddish: "yi",
  lao: "lo", uzbek: "uz", faroese: "fo", "haitian creole": "ht", haitian: "ht", pashto: "ps", pushto: "ps", turkmen: "tk",
  nynorsk: "nn", maltese: "mt", sanskrit: "sa", luxembourgish: "lb", letzeburgesch: "lb", myanmar: "my", burmese: "my",
  tibetan: "bo", tagalog: "tl", malagasy: "mg", assamese: "as", tatar: "tt", lingala: "ln", hausa: "ha", bashkir: "ba",
  javanese: "jv", sundanese: "su",
};

/**
 * The ISO 639-1 code of the language a transcription server reports: a Whisper name ("german"), a code ("de",
 * Whisper's "jw" and "yue" included) or a tag ("de-DE"); undefined for none or one it cannot place.
 */
export function reportedLanguage(reported: string | null | undefined): string | undefined {
  const text = reported?.trim().toLowerCase();
  if (!text) return undefined;
  if (text === "jw") return "jv";
  const code = whisperNames[text] ?? languageFromTag(text);
  return code && /^[a-z]{2}$/.test(code) ? code : undefined;
}
