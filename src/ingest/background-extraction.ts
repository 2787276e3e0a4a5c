// What question-time extraction leaves for later, extracted in the background: the rest of a question's plan once its
// answer held. One clip at a time, and only while no question is extracting, so a question's own clips never wait for
// a leftover. Closing abandons the clip running (its stages stay pending; nothing is half-written) and the queue.

import { withChildProcessNiceness } from "../media/index.js";
import { toVideoRagError } from "../spec/index.js";
import type { ClipKey } from "./extract-clips.js";
import type { DeferredStage } from "./clip-stages.js";

export interface BackgroundExtraction {
  /** Queues clips to extract once no question is extracting (a clip queued already gains the stages, once). */
  add(clips: readonly ClipKey[], stages: readonly DeferredStage[]): void;
  /** Runs a question's extraction: the background waits until it ends. */
  foreground<T>(work: () => Promise<T>): Promise<T>;
  /** Clips queued and not yet extracted. */
  readonly queued: number;
  /** Resolves once the queue is empty. */
  idle(): Promise<void>;
  /** Stops: the clip running is abandoned, the queue dropped. */
  close(): Promise<void>;
}

/**
 * The niceness of the programs background extraction starts (ffmpeg, pocketsphinx, tesseract): the gate below holds it
 * back for questions on this library object only, the scheduler for every other (a server's other question threads,
 * another process on the library).
 */
export const backgroundNiceness = 10;

export function createBackgroundExtraction(
  extract: (clips: ClipKey[], stages: DeferredStage[], signal: AbortSignal) => Promise<unknown>,
  onError: (message: string) => void = () => undefined,
): BackgroundExtraction {
  const queue: { clip: ClipKey; stages: DeferredStage[] }[] = [];
  const stop = new AbortController();
  let questions = 0;
  let wake: (() => void) | undefined;
  let running: Promise<void> | undefined;

  const loop = async (): Promise<void> => {
    while (queue.length > 0 && !stop.signal.aborted) {
      while (questions > 0 && !stop.signal.aborted) await new Promise<void>((resolve) => (wake = resolve));
      const next = queue.shift();
      if (!next || stop.signal.aborted) break;
      try {
        await withChildProcessNiceness(backgroundNiceness, () => extract([next.clip], next.stages, stop.signal));
      } catch (error) {
        // A clip's stage failures are kept on its stage states by the extractor; anything else is logged and the rest go on.
        if (!stop.signal.aborted) onError(`background extraction of clip ${next.clip.clipIndex} of ${next.clip.videoId}: ${toVideoRagError(error).message}`);
      }
    }
    running = undefined;
  };

  return {
    add(clips, stages) {
      if (stop.signal.aborted) return;
      for (const clip of clips) {
        const queued = queue.find((entry) => entry.clip.videoId === clip.videoId && entry.clip.clipIndex === clip.clipIndex);
        if (queued) queued.stages = [...new Set([...queued.stages, ...stages])];
        else queue.push({ clip: { ...clip }, stages: [...stages] });
      }
      running ??= loop();
    },
    async foreground(work) {
      questions += 1;
      try {
        return await work();
      } finally {
        questions -= 1;
        if (questions === 0) wake?.();
      }
    },
    get queued() {
      return queue.length;
    },
    async idle() {
      while (running) await running;
    },
    async close() {
      stop.abort();
      queue.length = 0;
      wake?.();
      await running;
    },
  };
}
