// A video's speakers as the faces list them: each voice's label and name, how long it speaks and what it says first,
// and the speakers of other videos whose voice is like it (proposals, from the voice vectors a diarizer kept).

import { sameVoices, type VoiceMatch } from "./retrieval/index.js";
import type { Store, Video } from "./spec/index.js";

/** One voice of a video: its label, the name a user gave it, how long it speaks and what it says first. */
export interface VideoSpeaker {
  label: string;
  name?: string;
  talkSeconds: number;
  firstSecond: number;
  firstWords: string;
  /**
   * Speakers of other videos with a voice like this one's, most alike first: proposals that they are one person (only
   * where the diarizer gives voice vectors, as the neural one does).
   */
  sameVoice?: { videoId: string; title: string; label: string; name?: string; similarity: number }[];
}

export async function videoSpeakers(store: Store, video: Video): Promise<VideoSpeaker[]> {
  const names = await store.speakerNames(video.id);
  const found = new Map<string, VideoSpeaker>();
  for (const segment of await store.getSegments(video.id, 0, Number.POSITIVE_INFINITY)) {
    if (!segment.speaker) continue;
    const known = found.get(segment.speaker);
    if (known) {
      known.talkSeconds += segment.endSecond - segment.startSecond;
      continue;
    }
    const name = names[segment.speaker];
    found.set(segment.speaker, {
      label: segment.speaker,
      ...(name ? { name } : {}),
      talkSeconds: segment.endSecond - segment.startSecond,
      firstSecond: segment.startSecond,
      firstWords: segment.text.split(/\s+/).slice(0, 12).join(" "),
    });
  }
  const alike = found.size > 0 ? sameVoices(await store.voiceVectors(), video.id) : new Map<string, VoiceMatch[]>();
  const others = new Map<string, { title: string; names: Record<string, string> }>();
  for (const videoId of new Set([...alike.values()].flat().map((match) => match.videoId))) {
    const other = await store.getVideo(videoId);
    if (other) others.set(videoId, { title: other.title, names: await store.speakerNames(videoId) });
  }
  return [...found.values()].map((speaker) => {
    const sameVoice = (alike.get(speaker.label) ?? []).flatMap((match) => {
      const other = others.get(match.videoId);
      const name = other?.names[match.label];
      return other ? [{ videoId: match.videoId, title: other.title, label: match.label, ...(name ? { name } : {}), similarity: match.similarity }] : [];
    });
    return { ...speaker, talkSeconds: Math.round(speaker.talkSeconds * 10) / 10, ...(sameVoice.length > 0 ? { sameVoice } : {}) };
  });
}
