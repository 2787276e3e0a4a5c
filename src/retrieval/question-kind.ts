// What a question asks about: something said, something written on screen, or something shown. Question-time extraction
// runs only the heavy stages that can answer it (speech recognition, OCR, the dense visual pass).

import { stemmer } from "stemmer";
import { tokenize } from "./query-analyzer.js";

/** said: speech or subtitles; written: text on screen; shown: what the picture shows. */
export type QuestionKind = "said" | "written" | "shown";

/** The kinds named by words matched by their stems; what is shown is named by words matched as written (`shownWords`). */
type StemmedKind = Exclude<QuestionKind, "shown">;

/**
 * Words that name a kind, matched by their stems ("recommended" as "recommend"). A question of no clear kind gets every
 * stage, the speech first, so a word that names a kind only sometimes ("table", "board", "label" in "how to refinish a
 * table") is left out: a kind named wrongly runs only stages that cannot answer.
 */
const cues: Record<StemmedKind, string[]> = {
  said: [
    "say", "said", "says", "saying", "tell", "told", "talk", "talked", "speak", "spoke", "speaker", "mention", "explain",
    "ask", "asked", "quote", "voice", "hear", "heard", "sound", "discuss", "narrator", "word", "words", "claim", "recommend",
    "describe", "call", "called", "answer", "reply", "announce", "promise", "argue", "speech", "sentence", "lecture",
  ],
  written: [
    "written", "write", "wrote", "text", "screen", "slide", "slides", "sign", "title", "caption", "banner", "headline",
    "printed", "display", "displayed", "poster", "url", "logo",
    // Not "read": "what was read out" is speech as often as "what does the sign read" is text.
  ],
};

/**
 * Words that name what is shown, matched as written: the stems of the others are instructions or subjects as often
 * ("the roof tiles show wear", "look for", "appearance", "was the young man ill disposed?"). Who or what a question is
 * about (a man, a car, a dog) may be said as well as shown, so it names no kind.
 */
const shownWords = new Set(["seen", "shown", "visible", "appear", "appears", "appeared", "appearing", "footage"]);

const cueStems = new Map<string, QuestionKind[]>();
for (const [kind, words] of Object.entries(cues) as [StemmedKind, string[]][]) {
  for (const word of words) {
    const stem = stemmer(word);
    cueStems.set(stem, [...new Set([...(cueStems.get(stem) ?? []), kind])]);
  }
}

/** Cue words that only frame a question ("what did they say", "where is it shown"); the rest name its subject too. */
const framingStems = new Set(
  [
    ...cues.said,
    ...["written", "write", "wrote", "text", "screen", "printed", "display", "displayed"],
    ...["see", "seen", "show", "shown", "shows", "look", "looks", "appear", "appears", "visible", "picture", "scene", "frame", "footage", "camera"],
  ].map((word) => stemmer(word)),
);

/** Whether a word only says what kind of question it is ("say", "shown"), not what it is about. */
export function isKindCue(word: string): boolean {
  return framingStems.has(stemmer(word.toLowerCase()));
}

/** The kinds a question names; empty when it names none (any stage may answer it). */
export function questionKinds(question: string): QuestionKind[] {
  const kinds = new Set<QuestionKind>();
  for (const token of tokenize(question)) {
    for (const kind of cueStems.get(stemmer(token)) ?? []) kinds.add(kind);
    if (shownWords.has(token)) kinds.add("shown");
  }
  return (["said", "written", "shown"] as const).filter((kind) => kinds.has(kind));
}
