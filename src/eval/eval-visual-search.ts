// Precision and recall of visual search over (video, class) pairs: search each object class by name and compare the
// videos returned with a labelled set saying which classes truly appear in which video.

import { readFile } from "node:fs/promises";

/** Which classes truly appear in each video (by file name); ambiguous ones are left out of the counts. */
export interface ClassLabels {
  videos: Record<string, { present: string[]; ambiguous: string[] }>;
}

/** Searches for a class name; returns the file names of the videos found (order and repeats do not matter). */
export type VideoSearch = (className: string) => Promise<readonly string[]>;

export interface VisualSearchReport {
  /** True positives / everything returned that is scored; 1 when nothing scored was returned. */
  precision: number;
  /** True positives / every present pair; 1 when no pair is present. */
  recall: number;
  truePositives: number;
  /** Returned for a class the video does not show, as "video: class". */
  falsePositives: string[];
  /** Present but not returned, as "video: class". */
  falseNegatives: string[];
}

/** Reads a labelled set like test-data/surveillance-classes.json. */
export async function loadClassLabels(path: string): Promise<ClassLabels> {
  const parsed = JSON.parse(await readFile(path, "utf8")) as ClassLabels;
  if (!parsed.videos || typeof parsed.videos !== "object") throw new Error(`${path} has no "videos" object`);
  return parsed;
}

/**
 * Searches every class and counts (video, class) pairs over the labelled videos: returned and present is a true
 * positive, returned and absent a false positive, present and not returned a false negative; ambiguous pairs and videos
 * outside the labelled set are not counted.
 */
export async function evalVisualSearch(labels: ClassLabels, classes: readonly string[], search: VideoSearch): Promise<VisualSearchReport> {
  let truePositives = 0;
  const falsePositives: string[] = [];
  const falseNegatives: string[] = [];
  for (const className of classes) {
    const returned = new Set(await search(className));
    for (const [video, truth] of Object.entries(labels.videos)) {
      if (truth.ambiguous.includes(className)) continue;
      const present = truth.present.includes(className);
      if (returned.has(video) && present) truePositives++;
      else if (returned.has(video)) falsePositives.push(`${video}: ${className}`);
      else if (present) falseNegatives.push(`${video}: ${className}`);
    }
  }
  const ratio = (part: number, whole: number): number => (whole === 0 ? 1 : Math.round((part / whole) * 1000) / 1000);
  return {
    precision: ratio(truePositives, truePositives + falsePositives.length),
    recall: ratio(truePositives, truePositives + falseNegatives.length),
    truePositives,
    falsePositives,
    falseNegatives,
  };
}
