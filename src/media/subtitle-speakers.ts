// Who speaks in a subtitle cue, when the file says so in its text: WebVTT voice spans (`<v Dana>…</v>`) and speaker
// prefixes at the start of a line ("DANA: Hello", "- Dana: hi"). Pure functions: no I/O.
//
// Prefixes are guessed from plain text, so the rules lean towards missing a speaker rather than inventing one: a
// wrong speaker is a confident wrong answer to "who said…", a missing one only an unanswered question.

/** A stretch of a cue's raw text (markup still in it) and the voice it is in, if the file names one. */
export interface VoicedText {
  speaker?: string;
  text: string;
}

/** Where a speaker could be named: raw text parts of one cue, its lines split on line breaks. */
export interface RawCueText {
  parts: VoicedText[];
}

/** A cue's text for one speaker (or none), markup removed. */
export interface SpokenText {
  speaker?: string;
  text: string;
}

// `<v Dana>` or `<v.loud.slow Dana Smith>`: the voice name follows the classes and runs to the `>`.
const voiceTag = /<v(?:\.[^\s>]*)?(?:\s+([^>]*))?>|<\/v\s*>/gi;

/**
 * Splits a WebVTT cue body on its voice spans. A span runs to `</v>` or the end of the cue; text outside any span
 * (or in a `<v>` without a name) has no speaker.
 */
export function splitVoices(body: string, decode: (text: string) => string): VoicedText[] {
  const parts: VoicedText[] = [];
  let speaker: string | undefined;
  let last = 0;
  for (const match of body.matchAll(voiceTag)) {
    parts.push(withSpeaker(body.slice(last, match.index), speaker));
    const opening = !match[0].startsWith("</");
    const name = opening ? decode(match[1] ?? "").trim() : "";
    speaker = name === "" ? undefined : name;
    last = match.index + match[0].length;
  }
  parts.push(withSpeaker(body.slice(last), speaker));
  return parts.filter((part) => part.text.trim() !== "");
}

function withSpeaker(text: string, speaker: string | undefined): VoicedText {
  return speaker === undefined ? { text } : { speaker, text };
}

// Name words: ALL CAPS of two letters or more ("DANA", "O'BRIEN", "DR."), or Capitalised ("Dana", "Dr.", "Mary-Jane").
// Digits never: "10:30", "MAN 2:" and "Step 3:" stay text.
const capsWord = String.raw`\p{Lu}[\p{Lu}'’.-]*\p{Lu}\.?`;
const titleWord = String.raw`\p{Lu}\p{Ll}+(?:[-'’]\p{Lu}?\p{Ll}+)*\.?`;
// One to three words of one kind, then a colon and a space (or the end of the line: the words follow on the next one).
// Requiring the space keeps "http://x" and "10:30" out. A leading dash marks a change of speaker and is dropped.
const speakerPrefix = new RegExp(
  String.raw`^(?:[-‐–—]\s*)?((${capsWord}(?: ${capsWord}){0,2})|${titleWord}(?: ${titleWord}){0,2}):(?:\s+|$)`,
  "u",
);
const changeOfSpeaker = /^[-‐–—]\s*/;

// Words that make a "Name:" a label or a phrase, not a person: "NOTE:", "Step One:", "SO HE SAID:", "At first:".
const notNameWords = new Set(
  (
    "a an the and or but so if then than at in on of to for from by with as into onto about after before over under " +
    "is are was were be been am it its this that these those he she we they you i me my your his her our their them " +
    "said says say tell told asked not no yes ok okay here there when where what why how who which now today " +
    "note notes nb ps fyi tip tips hint warning caution danger attention alert important update edit error info " +
    "step steps chapter part section episode season scene act intro outro credits example question answer q a " +
    "source sources translation translator lyrics music song sound title subtitle subtitles caption captions " +
    "time date day week location place address phone email website link url http https www " +
    "ingredients ingredient recipe method instructions directions materials tools summary result results total " +
    "price cost score level round rule rules goal exercise solution fact quote disclaimer bonus breaking live news"
  ).split(" "),
);

interface PrefixMatch {
  speaker: string;
  /** Whether the name is in capitals ("DANA"), which alone is trusted; a Capitalised one must recur in the file. */
  capitals: boolean;
  rest: string;
}

/** The speaker prefix of one clean line of cue text, if it has one that passes the rules above. */
export function matchSpeakerPrefix(line: string): PrefixMatch | undefined {
  const match = speakerPrefix.exec(line);
  const name = match?.[1];
  if (!match || !name) return undefined;
  if (name.split(" ").some((word) => notNameWords.has(word.toLowerCase().replace(/\.$/, "")))) return undefined;
  return { speaker: name, capitals: match[2] !== undefined, rest: line.slice(match[0].length) };
}

/**
 * The speakers of a subtitle file's cues, from voice spans and line prefixes, with the text split per speaker:
 * a cue where two people speak ("- DANA: Hi.\n- SAM: Hello.", or two voice spans) becomes two, both keeping the cue's
 * times, so "who said X" finds the right one. A cue naming no speaker keeps its text exactly as `clean` gives it.
 *
 * A Capitalised prefix ("Dana:") counts only when the same name starts at least two lines of the file, since
 * "Tomatoes: two cans" reads the same way once; a prefix in capitals ("DANA:") counts on its own.
 */
export function resolveSpeakers(cues: RawCueText[], clean: (text: string) => string): SpokenText[][] {
  const lineCounts = new Map<string, number>();
  const lines = cues.map((cue) =>
    cue.parts.map((part) =>
      part.speaker !== undefined
        ? undefined
        : part.text.split("\n").map((line) => {
            const text = clean(line);
            const prefix = matchSpeakerPrefix(text);
            if (prefix && !prefix.capitals) lineCounts.set(prefix.speaker, (lineCounts.get(prefix.speaker) ?? 0) + 1);
            return { text, prefix };
          }),
    ),
  );
  const trusted = (prefix: PrefixMatch | undefined): prefix is PrefixMatch =>
    prefix !== undefined && (prefix.capitals || (lineCounts.get(prefix.speaker) ?? 0) >= 2);

  return cues.map((cue, cueIndex) => {
    const pieces: SpokenText[] = [];
    cue.parts.forEach((part, partIndex) => {
      if (part.speaker !== undefined) {
        pieces.push({ speaker: part.speaker, text: clean(part.text) });
        return;
      }
      const partLines = lines[cueIndex]?.[partIndex] ?? [];
      if (!partLines.some((line) => trusted(line.prefix))) {
        pieces.push({ text: clean(part.text) });
        return;
      }
      // Each named line starts a piece; so does a "- " line (another, unnamed speaker); other lines continue one.
      let current: SpokenText | undefined;
      for (const line of partLines) {
        if (trusted(line.prefix)) {
          current = { speaker: line.prefix.speaker, text: line.prefix.rest };
          pieces.push(current);
        } else if (!current || changeOfSpeaker.test(line.text)) {
          current = { text: line.text.replace(changeOfSpeaker, "") };
          pieces.push(current);
        } else {
          current.text = `${current.text} ${line.text}`;
        }
      }
    });
    return mergeSameSpeaker(pieces);
  });
}

/**
 * Joins neighbouring pieces of one named speaker (a voice closed and reopened) and drops empty ones. Unnamed pieces
 * stay apart: two "- " lines are two people, even if neither is named.
 */
function mergeSameSpeaker(pieces: SpokenText[]): SpokenText[] {
  const merged: SpokenText[] = [];
  for (const piece of pieces) {
    const text = piece.text.trim();
    if (text === "") continue;
    const previous = merged[merged.length - 1];
    if (previous && piece.speaker !== undefined && previous.speaker === piece.speaker) previous.text = `${previous.text} ${text}`;
    else merged.push(piece.speaker === undefined ? { text } : { speaker: piece.speaker, text });
  }
  return merged;
}
