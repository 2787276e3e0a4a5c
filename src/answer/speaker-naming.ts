// How answers name who speaks: the name a user gave, else the label. A video whose only voice is one a diarizer found
// and no one named shows none: "· Speaker 1" on every citation of a narrated video would say nothing. A question about
// speakers ("who said …", "what did Speaker 1 say") shows every voice.

import type { Segment, Store } from "../spec/index.js";

/** The name each moment's speaker label is shown by; undefined where it is not shown. */
export type SpeakerOf = (videoId: string, label: string) => string | undefined;

/** Reads what naming the speakers of these videos' segments needs (only the videos whose segments carry a speaker). */
export async function readSpeakerNaming(store: Store, read: Iterable<{ videoId: string; segments: readonly Segment[] }>, options: { everyVoice?: boolean } = {}): Promise<SpeakerOf> {
  const names = new Map<string, Record<string, string>>();
  const lone = new Set<string>();
  for (const { videoId, segments } of read) {
    if (names.has(videoId) || !segments.some((segment) => segment.speaker)) continue;
    const given = await store.speakerNames(videoId);
    names.set(videoId, given);
    if (options.everyVoice) continue;
    const voices = (await store.speakerVoices(videoId))?.voices ?? [];
    if (voices.length === 1 && given[(voices[0] as { label: string }).label] === undefined) lone.add(videoId);
  }
  return (videoId, label) => (lone.has(videoId) ? undefined : (names.get(videoId)?.[label] ?? label));
}
