// Where to cut a long recording so that no word is split: in the middle of the quietest 200 ms near each boundary,
// found on the 10 ms energy profile of `readFrameEnergies`. Each transcriber decides how long its pieces are and how
// far to look; this module only holds the units and finds the quiet moment.

/** The sample rate `extractAudio` writes and the local transcribers expect. */
export const speechSampleRate = 16_000;
/** Energy frames per second: 10 ms is fine enough to find a gap between words, coarse enough to profile an hour quickly. */
export const energyFramesPerSecond = 100;
/** Samples in one 10 ms energy frame at `speechSampleRate`. */
export const energyFrameSamples = speechSampleRate / energyFramesPerSecond;
/** Frames in the quiet stretch a cut looks for: 200 ms is about the shortest pause between phrases. */
export const quietWindowFrames = 20;

/** A stretch of a recording, from `startSample` up to but not including `endSample`. */
export interface AudioSpan {
  startSample: number;
  endSample: number;
}

/**
 * The frame in the middle of the quietest `quietWindowFrames` that lie within frames [fromFrame, toFrame), the earliest
 * of equally quiet ones. A range too short to hold a window gives the middle of the window starting at `fromFrame`.
 */
export function quietestCut(energies: Float64Array, fromFrame: number, toFrame: number): number {
  const endFrame = Math.min(toFrame, energies.length);
  let bestStart = fromFrame;
  let bestEnergy = Infinity;
  for (let start = fromFrame; start + quietWindowFrames <= endFrame; start += 1) {
    let energy = 0;
    for (let frame = start; frame < start + quietWindowFrames; frame += 1) energy += energies[frame] as number;
    if (energy < bestEnergy) {
      bestEnergy = energy;
      bestStart = start;
    }
  }
  return bestStart + quietWindowFrames / 2;
}

/** Speech regions in seconds, sorted, merged where they overlap and clipped to audio of `durationSeconds`. */
export function speechRegionsWithin(regions: readonly (readonly [number, number])[], durationSeconds: number): [number, number][] {
  const sorted = regions
    .map(([start, end]): [number, number] => [Math.max(0, start), Math.min(durationSeconds, end)])
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const region of sorted) {
    const last = merged.at(-1);
    if (last && region[0] <= last[1]) last[1] = Math.max(last[1], region[1]);
    else merged.push([region[0], region[1]]);
  }
  return merged;
}
