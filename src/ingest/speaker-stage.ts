// Who speaks in a video's recognised speech or unvoiced subtitles. A transcriber that diarizes (a server's
// `diarized_json`) labels its segments itself; otherwise the diarizer splits the whole video's audio into turns and each
// segment takes the voice of the turn it overlaps most, speech cut where the voice changes within it. Labels become
// "Speaker 1", "Speaker 2", … in order of first appearance, once: the voices are kept (the store's speakerVoices) and
// speech recognised later, at question time, is labelled by them without diarizing again, so a label never changes its
// voice. Names a user gives are kept apart (the store's SpeakerNames), so renaming re-indexes nothing.

import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { extractAudio } from "../media/index.js";
import type { Diarizer, Segment, SpeakerTurn, SpeakerVoice, SpeakerVoices, Video, Warning } from "../spec/index.js";

/** A diarizing server's or a diarizer's own label ("A", "SPEAKER_00", "spk_1", "S2"), not a person's name. */
export function isMachineLabel(label: string): boolean {
  return /^(?:\d+:)?(?:[A-Z]|S\d+|SPEAKER[_ ]?\d+|spk[_ ]?\d+|speaker[_ ]?\d+|\d+)$/i.test(label.trim());
}

/** The clip a transcriber's label was given in ("3:A" → "3"), or undefined for a label of the whole video. */
const labelClip = (label: string): string | undefined => /^(\d+):/.exec(label)?.[1];

/** Machine labels numbered "Speaker 1", "Speaker 2", … by first appearance in time; names left as they are. */
export function numberSpeakers(segments: readonly Segment[]): Segment[] {
  const numbers = new Map<string, string>();
  const ordered = [...segments].sort((a, b) => a.startSecond - b.startSecond);
  for (const segment of ordered) {
    const label = segment.speaker;
    if (label && isMachineLabel(label) && !numbers.has(label)) numbers.set(label, `Speaker ${numbers.size + 1}`);
  }
  return segments.map((segment) => {
    const label = segment.speaker;
    return label && numbers.has(label) ? { ...segment, speaker: numbers.get(label) } : segment;
  });
}

// A segment runs on across a change of voice when the pause there is short (a transcriber ends its segments at pauses
// a listener notices): it is cut where the voices change, when each side holds at least this much of one voice.
const minSplitSeconds = 1;

/**
 * Each segment with the speaker of the turn it overlaps most, and none where no turn overlaps it. Recognised speech
 * across a change of voice, each side holding a second or more of its voice, is cut at the change; its words are shared
 * out by their letters' share of its time (segments keep no word times).
 */
export function assignTurns(segments: readonly Segment[], turns: readonly SpeakerTurn[]): Segment[] {
  return segments.flatMap((segment) => {
    const { speaker: _old, ...rest } = segment;
    // A subtitle's cue is a line its author timed, one voice's as a rule: it keeps the voice it overlaps most.
    const pieces = segment.source === "speech" ? voicedPieces(segment, turns) : [];
    const words = segment.text.split(/\s+/).filter(Boolean);
    if (pieces.length < 2 || words.length < pieces.length) {
      const speaker = mostOverlapping(segment, turns);
      return [speaker ? { ...rest, speaker } : rest];
    }
    const duration = segment.endSecond - segment.startSecond;
    // Each word's end, as a share of the segment's letters (a space counted with the word before it).
    const letters = words.reduce((sum, word) => sum + word.length + 1, 0);
    const wordEnds: number[] = [];
    let seen = 0;
    for (const word of words) wordEnds.push((seen += word.length + 1) / letters);
    const parts: Segment[] = [];
    let firstWord = 0;
    for (const [index, piece] of pieces.entries()) {
      const next = pieces[index + 1];
      const isLast = next === undefined;
      // The words that end before the next voice starts, leaving at least one word for each piece after this one.
      let lastWord = words.length - 1;
      if (!isLast) {
        const cut = (next.startSecond - segment.startSecond) / duration;
        lastWord = firstWord;
        while (lastWord + 1 < words.length - (pieces.length - index - 1) && Math.abs((wordEnds[lastWord + 1] as number) - cut) < Math.abs((wordEnds[lastWord] as number) - cut)) lastWord += 1;
      }
      const startSecond = index === 0 ? segment.startSecond : piece.startSecond;
      const endSecond = isLast ? segment.endSecond : next.startSecond;
      parts.push({ ...rest, startSecond, endSecond, text: words.slice(firstWord, lastWord + 1).join(" "), speaker: piece.speaker });
      firstWord = lastWord + 1;
    }
    return parts;
  });
}

type Span = { startSecond: number; endSecond: number };
/** Seconds two spans share; zero or less where they do not meet. */
const overlapSeconds = (a: Span, b: Span): number => Math.min(a.endSecond, b.endSecond) - Math.max(a.startSecond, b.startSecond);

/** The turn that overlaps the segment most. */
function mostOverlapping(segment: Segment, turns: readonly SpeakerTurn[]): string | undefined {
  let best: string | undefined;
  let bestOverlap = 0;
  for (const turn of turns) {
    const overlap = overlapSeconds(segment, turn);
    if (overlap > bestOverlap) [best, bestOverlap] = [turn.speaker, overlap];
  }
  return best;
}

/**
 * The stretches of one voice within the segment, in time order: the turns it overlaps, one voice's neighbouring turns
 * joined, and a stretch shorter than a second given to the voice beside it.
 */
function voicedPieces(segment: Segment, turns: readonly SpeakerTurn[]): SpeakerTurn[] {
  const overlapping = turns
    .filter((turn) => overlapSeconds(segment, turn) > 0)
    .map((turn) => ({ startSecond: Math.max(segment.startSecond, turn.startSecond), endSecond: Math.min(segment.endSecond, turn.endSecond), speaker: turn.speaker }))
    .sort((a, b) => a.startSecond - b.startSecond);
  const joined = (list: SpeakerTurn[]): SpeakerTurn[] => {
    const out: SpeakerTurn[] = [];
    for (const piece of list) {
      const last = out.at(-1);
      if (last && last.speaker === piece.speaker) last.endSecond = Math.max(last.endSecond, piece.endSecond);
      else out.push({ ...piece });
    }
    return out;
  };
  return joined(joined(overlapping).filter((piece) => piece.endSecond - piece.startSecond >= minSplitSeconds));
}

export interface SpeakerLabelling {
  video: Pick<Video, "path" | "hasAudio">;
  /** The video's transcript segments: recognised speech, or subtitles that name no one. */
  segments: readonly Segment[];
  diarizer?: Diarizer;
  /** The key of the diarizer's settings (the speakers stage's key): voices kept under another key are found again. */
  key: string;
  /** The voices kept from an earlier run, which label the segments when their key is `key`. */
  kept?: SpeakerVoices;
  /** Where the light index heard speech, for the diarizer. */
  speechRegions?: [number, number][];
  /** The number of speakers, when the user gave it. */
  speakers?: number;
  tempDir: string;
  signal?: AbortSignal;
}

export interface LabelledSpeakers {
  segments: Segment[];
  warnings: Warning[];
  /** The voices the diarizer found now, to keep; absent when none ran. */
  voices?: SpeakerVoices;
}

/**
 * The segments with their speakers: by the kept voices when they are this diarizer's, else by the transcriber's labels,
 * else by diarizing the video's audio now (its voices returned, to keep).
 */
export async function labelSpeakers(input: SpeakerLabelling): Promise<LabelledSpeakers> {
  const { segments, diarizer } = input;
  // A diarizing transcriber's labels stand when they are the whole video's (one request) or when nothing can do better;
  // labels given clip by clip cannot tell whether "A" of one clip is "A" of the next: the diarizer decides that.
  const labelled = segments.filter((segment) => segment.speaker);
  const clips = new Set(labelled.map((segment) => labelClip(segment.speaker as string)));
  if (labelled.length > 0 && (clips.size <= 1 || !diarizer)) return { segments: numberSpeakers(segments), warnings: [] };
  if (input.kept && input.kept.key === input.key) return { segments: assignTurns(segments, turnsOf(input.kept.voices)), warnings: [] };
  if (!diarizer || !input.video.hasAudio) return { segments: [...segments], warnings: [] };
  const scratch = await mkdtemp(join(input.tempDir, "speakers-"));
  try {
    const wavPath = join(scratch, "audio.wav");
    await extractAudio(input.video.path, wavPath, { signal: input.signal });
    const found = await diarizer.diarize(wavPath, {
      signal: input.signal,
      ...(input.speechRegions ? { speechRegions: input.speechRegions } : {}),
      ...(input.speakers ? { speakers: input.speakers } : {}),
    });
    const voices = numberVoices(found.turns, segments, found.embeddings);
    return { segments: assignTurns(segments, turnsOf(voices)), warnings: found.warnings, voices: { key: input.key, voices } };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The diarizer's voices as "Speaker 1", "Speaker 2", …: first those that say a segment, in the order their first
 * segment starts (what a reader of the transcript meets first), then those no segment has yet, by their first turn.
 */
export function numberVoices(turns: readonly SpeakerTurn[], segments: readonly Segment[], embeddings?: Record<string, Float32Array>): SpeakerVoice[] {
  const byLabel = new Map<string, [number, number][]>();
  for (const turn of [...turns].sort((a, b) => a.startSecond - b.startSecond)) {
    const list = byLabel.get(turn.speaker) ?? [];
    list.push([turn.startSecond, turn.endSecond]);
    byLabel.set(turn.speaker, list);
  }
  const firstSaid = new Map<string, number>();
  for (const segment of assignTurns(segments, turns)) {
    const first = segment.speaker === undefined ? undefined : firstSaid.get(segment.speaker);
    if (segment.speaker !== undefined && (first === undefined || segment.startSecond < first)) firstSaid.set(segment.speaker, segment.startSecond);
  }
  const order = [...byLabel.keys()].sort((a, b) => {
    const saidA = firstSaid.get(a);
    const saidB = firstSaid.get(b);
    if (saidA !== undefined && saidB !== undefined) return saidA - saidB;
    if (saidA !== undefined || saidB !== undefined) return saidA !== undefined ? -1 : 1;
    return ((byLabel.get(a) as [number, number][])[0]?.[0] ?? 0) - ((byLabel.get(b) as [number, number][])[0]?.[0] ?? 0);
  });
  return order.map((label, index) => {
    const vector = embeddings?.[label];
    return { label: `Speaker ${index + 1}`, turns: byLabel.get(label) as [number, number][], ...(vector ? { vector } : {}) };
  });
}

/** The kept voices as turns, in time order. */
export const turnsOf = (voices: readonly SpeakerVoice[]): SpeakerTurn[] =>
  voices.flatMap((voice) => voice.turns.map(([startSecond, endSecond]) => ({ startSecond, endSecond, speaker: voice.label }))).sort((a, b) => a.startSecond - b.startSecond);
