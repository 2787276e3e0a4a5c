// The order `videorag extract` serves open deferred work in.

import type { Store } from "../spec/index.js";

/**
 * Clips with open deferred work in the order background extraction serves them: those questions asked for first, then
 * their neighbours (an answer often runs on into the next clip), then by speech and picture change, then in order.
 */
export async function extractionOrder(store: Store, open: { videoId: string; clipIndex: number }[]): Promise<{ videoId: string; clipIndex: number }[]> {
  const clips = new Map<string, { videoId: string; clipIndex: number }>();
  for (const state of open) clips.set(`${state.videoId}#${state.clipIndex}`, { videoId: state.videoId, clipIndex: state.clipIndex });
  const priority = new Map<string, number[]>();
  for (const videoId of new Set([...clips.values()].map((clip) => clip.videoId))) {
    const signals = await store.clipSignals(videoId);
    const asked = signals.filter((signal) => (signal.asked ?? 0) > 0).map((signal) => signal.clipIndex);
    for (const signal of signals) {
      const distance = asked.length > 0 ? Math.min(...asked.map((index) => Math.abs(index - signal.clipIndex))) : Number.POSITIVE_INFINITY;
      priority.set(`${videoId}#${signal.clipIndex}`, [-(signal.asked ?? 0), distance, -((signal.speechSeconds ?? 0) + 3 * signal.screenChanges)]);
    }
  }
  const order = (id: string): number[] => priority.get(id) ?? [0, Number.POSITIVE_INFINITY, 0];
  return [...clips.entries()]
    .sort(([a], [b]) => {
      const left = order(a);
      const right = order(b);
      for (let index = 0; index < left.length; index++) {
        const difference = (left[index] ?? 0) - (right[index] ?? 0);
        if (difference !== 0 && !Number.isNaN(difference)) return difference;
      }
      return 0;
    })
    .map(([, clip]) => clip);
}
