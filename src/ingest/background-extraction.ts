// What question-time extraction leaves for later, extracted in the background: the rest of a question's plan once its
// answer held or its time ran out. In lanes (one per core the library gives it): each lane extracts one clip at a time,
// or, where only one video's clips wait, the lanes' share of them in one call; two lanes are never on one video. Only
// while no question is extracting: a question that starts extracting abandons the clips running (their stages stay
// pending; nothing is half-written) and they go back to the front of the queue, so a question's own clips never share
// the cores with a leftover, and never with a lane hearing the same clip. Closing abandons them and drops the queue.

import { withChildProcessNiceness } from "../media/index.js";
import { toVideoRagError } from "../spec/index.js";
import type { ClipKey } from "./extract-clips.js";
import type { DeferredStage } from "./clip-stages.js";

export interface BackgroundExtraction {
  /** Queues clips to extract once no question is extracting (a clip queued already gains the stages, once). */
  add(clips: readonly ClipKey[], stages: readonly DeferredStage[]): void;
  /** Runs a question's extraction: the clips running are abandoned and queued again, and the rest wait until it ends. */
  foreground<T>(work: () => Promise<T>): Promise<T>;
  /** Runs a question's planning and steps: no clip starts until it ends (the clips running go on unless a step starts). */
  hold<T>(work: () => Promise<T>): Promise<T>;
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
  options: { lanes?: number } = {},
): BackgroundExtraction {
  const lanes = Math.max(1, Math.floor(options.lanes ?? 1));
  const queue: { clip: ClipKey; stages: DeferredStage[] }[] = [];
  const stop = new AbortController();
  let questions = 0;
  // Lanes waiting for the questions extracting to end.
  let waiting: (() => void)[] = [];
  const wakeAll = (): void => {
    const woken = waiting;
    waiting = [];
    for (const wake of woken) wake();
  };
  // The videos a lane is extracting a clip of: two lanes never write back one video's clips at once (its graph and
  // chapters are rebuilt from what is written).
  const working = new Set<string>();
  const running = new Set<Promise<void>>();
  // The work of each lane under way, stopped when a question starts extracting.
  const yielding = new Set<AbortController>();

  /**
   * The next clips for a lane: the first queued of a video no lane is on, and where no other video waits, more of its
   * video asking the same stages, one for each lane idle (one call runs them side by side).
   */
  const take = (): { clip: ClipKey; stages: DeferredStage[] }[] => {
    const first = queue.find((entry) => !working.has(entry.clip.videoId));
    if (!first) return [];
    const { videoId } = first.clip;
    const othersWait = queue.some((entry) => entry.clip.videoId !== videoId && !working.has(entry.clip.videoId));
    const width = othersWait ? 1 : Math.max(1, lanes - working.size);
    const same = (entry: { clip: ClipKey; stages: DeferredStage[] }): boolean =>
      entry.clip.videoId === videoId && entry.stages.length === first.stages.length && entry.stages.every((stage) => first.stages.includes(stage));
    const picked = queue.filter(same).slice(0, width);
    for (const entry of picked) queue.splice(queue.indexOf(entry), 1);
    return picked;
  };

  const lane = async (): Promise<void> => {
    while (!stop.signal.aborted) {
      while (questions > 0 && !stop.signal.aborted) await new Promise<void>((resolve) => waiting.push(resolve));
      const taken = take();
      // Nothing this lane may take: what is left is of a video another lane is on, and that lane takes it next.
      const [first] = taken;
      if (!first || stop.signal.aborted) break;
      const { videoId } = first.clip;
      working.add(videoId);
      const yieldTo = new AbortController();
      const signal = AbortSignal.any([stop.signal, yieldTo.signal]);
      yielding.add(yieldTo);
      try {
        await withChildProcessNiceness(backgroundNiceness, () => extract(taken.map((entry) => entry.clip), first.stages, signal));
      } catch (error) {
        if (yieldTo.signal.aborted && !stop.signal.aborted) {
          // A question started extracting: these clips go first once it ends (stages a question asked since kept).
          for (const entry of [...taken].reverse()) {
            const at = queue.findIndex((other) => other.clip.videoId === entry.clip.videoId && other.clip.clipIndex === entry.clip.clipIndex);
            const asked = at >= 0 ? queue.splice(at, 1).flatMap((queued) => queued.stages) : [];
            queue.unshift({ clip: entry.clip, stages: [...new Set([...entry.stages, ...asked])] });
          }
        } else if (!stop.signal.aborted) {
          // A clip's stage failures are kept on its stage states by the extractor; anything else is logged and the rest go on.
          const which = taken.map((entry) => entry.clip.clipIndex).join(", ");
          onError(`background extraction of clip ${which} of ${videoId}: ${toVideoRagError(error).message}`);
        }
      } finally {
        yielding.delete(yieldTo);
        working.delete(videoId);
      }
      // A clip of the video just done may be waiting for a lane that ended.
      startLanes();
    }
  };
  const startLanes = (): void => {
    while (running.size < lanes && !stop.signal.aborted && queue.some((entry) => !working.has(entry.clip.videoId))) {
      const started: Promise<void> = lane().finally(() => running.delete(started));
      running.add(started);
    }
  };

  const hold = async <T>(work: () => Promise<T>): Promise<T> => {
    questions += 1;
    try {
      return await work();
    } finally {
      questions -= 1;
      if (questions === 0) wakeAll();
    }
  };

  return {
    add(clips, stages) {
      if (stop.signal.aborted) return;
      for (const clip of clips) {
        const queued = queue.find((entry) => entry.clip.videoId === clip.videoId && entry.clip.clipIndex === clip.clipIndex);
        if (queued) queued.stages = [...new Set([...queued.stages, ...stages])];
        else queue.push({ clip: { ...clip }, stages: [...stages] });
      }
      startLanes();
    },
    foreground(work) {
      for (const lane of yielding) lane.abort();
      return hold(work);
    },
    hold,
    get queued() {
      return queue.length;
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
    async close() {
      stop.abort();
      queue.length = 0;
      wakeAll();
      await Promise.all([...running]);
    },
  };
}
