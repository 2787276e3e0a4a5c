// Who speaks in a video's recognised speech. A transcriber that diarizes (a server's `diarized_json`) labels its segments
// itself; otherwise the diarizer splits the whole video's speech into turns and each speech segment takes the voice of
// the turn it overlaps most. Labels become "Speaker 1", "Speaker 2", … in order of first appearance, stable per video;
// names a user gives are kept apart (the store's SpeakerNames), so renaming re-indexes nothing.

import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { extractAudio } from "../media/index.js";
import type { Diarizer, Segment, SpeakerTurn, Video, Warning } from "../spec/index.js";

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

/** Each segment with the speaker of the turn it overlaps most; none where no turn overlaps it. */
export function assignTurns(segments: readonly Segment[], turns: readonly SpeakerTurn[]): Segment[] {
  return segments.map((segment) => {
    let best: string | undefined;
    let bestOverlap = 0;
    for (const turn of turns) {
      const overlap = Math.min(segment.endSecond, turn.endSecond) - Math.max(segment.startSecond, turn.startSecond);
      if (overlap > bestOverlap) [best, bestOverlap] = [turn.speaker, overlap];
    }
    const { speaker: _old, ...rest } = segment;
    return best ? { ...rest, speaker: best } : rest;
  });
}

export interface SpeakerLabelling {
  video: Video;
  /** The video's speech segments (source "speech"). */
  segments: readonly Segment[];
  diarizer?: Diarizer;
  /** Where the light index heard speech, for the diarizer. */
  speechRegions?: [number, number][];
  /** The number of speakers, when the user gave it. */
  speakers?: number;
  tempDir: string;
  signal?: AbortSignal;
}

/** The speech segments with their speakers; the diarizer runs only when the transcriber gave none. */
export async function labelSpeakers(input: SpeakerLabelling): Promise<{ segments: Segment[]; warnings: Warning[]; diarized: boolean }> {
  const { segments, diarizer } = input;
  if (segments.length === 0) return { segments: [], warnings: [], diarized: false };
  // A diarizing transcriber's labels stand when they are the whole video's (one request) or when nothing can do better;
  // labels given clip by clip cannot tell whether "A" of one clip is "A" of the next: the diarizer decides that.
  const labelled = segments.filter((segment) => segment.speaker);
  const clips = new Set(labelled.map((segment) => labelClip(segment.speaker as string)));
  if (labelled.length > 0 && (clips.size <= 1 || !diarizer)) return { segments: numberSpeakers(segments), warnings: [], diarized: false };
  if (!diarizer || !input.video.hasAudio) return { segments: [...segments], warnings: [], diarized: false };
  const scratch = await mkdtemp(join(input.tempDir, "speakers-"));
  try {
    const wavPath = join(scratch, "audio.wav");
    await extractAudio(input.video.path, wavPath, { signal: input.signal });
    const found = await diarizer.diarize(wavPath, {
      signal: input.signal,
      ...(input.speechRegions ? { speechRegions: input.speechRegions } : {}),
      ...(input.speakers ? { speakers: input.speakers } : {}),
    });
    return { segments: numberSpeakers(assignTurns(segments, found.turns)), warnings: found.warnings, diarized: true };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
