// Detections and tags per frame → searchable words with their times, and a template caption per clip when no
// vision-language model describes it. Only evidence that holds up is kept: a box must clear its class's score and be
// big enough for the detector to tell what it is, and an object or tag must be seen again in a neighbouring frame.

import type { Detection, Segment, Tag } from "../spec/index.js";
import type { ClipSpan } from "./clip-documents.js";

/** What the detector and tagger saw in one sampled frame. */
export interface FrameLabels {
  timeSecond: number;
  /** Objects whose boxes pass their class's score and size in this frame: how many, and the best score. */
  objects: { label: string; count: number; score: number }[];
  /**
   * Classes seen only weakly in this frame (at least `objectEvidence.supportScore`, below their threshold): they confirm
   * that an object seen in a neighbouring frame is still there, and count for nothing on their own.
   */
  weakObjects?: string[];
  tags: { label: string; score: number }[];
}

/*
 * How much detector evidence an object needs. Calibrated for YOLOX-nano (the detector in ../shared/models) by reading
 * its scores on a frame every 2 s of the five videos in ../shared/media/surveillance (street, parking lot, indoor and
 * table-top footage) against what the frames show. Those are the videos the precision test
 * (src/library-visual-precision.test.ts) scores, so that test shows these values fit them, not that they generalise;
 * a held-out labelled set is what would. What the scores showed:
 * - Objects seen clearly score 0.75–0.93 (people, parked and passing cars, bottles). Background the detector fires on
 *   mostly stays under 0.5 (a window as "tv" 0.2–0.46, a table's foot as "skateboard" to 0.44, a passing car as "bus" or
 *   "truck" 0.45–0.47), so 0.5 is the default, up from the 0.35 that used to be the only threshold.
 * - Some classes over-fire above it: "airplane" 0.45–0.65 in most frames on painted parking lines (a box a third of
 *   the picture), "frisbee" 0.54 on a round table top. They get their own higher thresholds.
 * - "bicycle" is under-scored: a bicycle ridden across the frame (thin, 0.7 % of the picture) peaks at 0.38–0.44 and
 *   is mostly below 0.15, so it keeps the old 0.35.
 * - "kite", "bird" and "sports ball" fired in most frames on specks of 10–16 pixels at the detector's input (a road
 *   marking, a dot on the grass): the size rule drops them whatever their score.
 * - Single confident frames remain ("cell phone" 0.93 and "suitcase" 0.55 on cars seen from straight above): the
 *   persistence rule drops them, since they are not seen again 2 s later.
 */
export const objectEvidence = {
  /** A box counts in a frame at this score, unless its class has its own threshold. */
  minScore: 0.5,
  /**
   * A box this strong confirms, in a neighbouring frame, an object that passed there: scores flicker from frame to
   * frame, and a low second threshold is how trackers carry an object through them (ByteTrack associates boxes down
   * to 0.1). Also the lowest score asked of the detector.
   */
  supportScore: 0.1,
  /** Boxes smaller than this many pixels at the detector's input (16 × 16: two cells of YOLOX's finest grid) are not classified reliably. */
  minInputPixels: 16 * 16,
} as const;

/** Classes whose calibrated threshold differs from `objectEvidence.minScore` (see above). */
const classMinScores: Readonly<Record<string, number>> = { airplane: 0.75, frisbee: 0.65, bicycle: 0.35 };

/** The score a box of this class needs to count in a frame. */
export function objectMinScore(label: string): number {
  return classMinScores[label] ?? objectEvidence.minScore;
}

/**
 * A tag needs this probability in a frame and in a neighbouring one. MobileNet's probabilities mean little on
 * footage unlike ImageNet's photos: on the surveillance videos it said "geyser" 0.71 over empty asphalt, "wing" 0.70
 * over a parking lot, "unicycle" 0.78 over pedestrians and "folding chair" 0.90 over a car seen from above, and of
 * its tags at 0.5 or more only "water bottle" (where the detector had found the bottles already) and "suit" were
 * plausible. So a tag is indexed only when the classifier is near certain, twice in a row; on that footage none is.
 */
export const minTagScore = 0.9;

/** Words a user would search for that the COCO names do not contain. */
const synonyms: Record<string, string> = {
  person: "people",
  bicycle: "bike",
  motorcycle: "motorbike",
  tv: "television",
  "cell phone": "phone mobile",
  "dining table": "table",
  couch: "sofa",
  car: "vehicle",
  truck: "vehicle",
  bus: "vehicle",
};

/** Some COCO label files join multi-word names ("cellphone"); people search for the words. */
const compoundLabels: Record<string, string> = {
  trafficlight: "traffic light",
  firehydrant: "fire hydrant",
  stopsign: "stop sign",
  parkingmeter: "parking meter",
  sportsball: "sports ball",
  baseballbat: "baseball bat",
  baseballglove: "baseball glove",
  tennisracket: "tennis racket",
  wineglass: "wine glass",
  hotdog: "hot dog",
  pottedplant: "potted plant",
  diningtable: "dining table",
  cellphone: "cell phone",
  teddybear: "teddy bear",
  hairdrier: "hair drier",
};

/** A label as people write it. */
export function readableLabel(label: string): string {
  return compoundLabels[label] ?? label;
}

function plural(label: string, count: number): string {
  if (count <= 1) return `${/^[aeiou]/.test(label) ? "an" : "a"} ${label}`;
  if (label === "person") return `${count} people`;
  return `${count} ${label.endsWith("s") ? label : `${label}s`}`;
}

/** The words indexed for a label: the label and its common synonyms. */
export function labelWords(label: string): string {
  const extra = synonyms[label];
  return extra ? `${label} (${extra})` : label;
}

/**
 * One frame's labels from the detector's boxes and the tagger's tags: a box counts when it is big enough and clears its
 * class's score; a big enough box that only clears `objectEvidence.supportScore` makes its class a weak object.
 * `detectorInputSize` is the side of the detector's square input, which the frame was scaled to fit: it sets how many
 * pixels the detector saw of a box.
 */
export function frameLabels(
  timeSecond: number,
  detections: readonly Detection[],
  tags: readonly Tag[],
  frame: { width: number; height: number },
  detectorInputSize: number,
): FrameLabels {
  // A box is a share of the frame; the detector saw that share of the frame scaled to fit its input.
  const scale = detectorInputSize / Math.max(frame.width, frame.height, 1);
  const inputPixels = frame.width * frame.height * scale * scale;
  const strong = new Map<string, { count: number; score: number }>();
  const weak = new Set<string>();
  for (const detection of detections) {
    if (detection.box.width * detection.box.height * inputPixels < objectEvidence.minInputPixels) continue;
    const label = readableLabel(detection.label);
    if (detection.score >= objectMinScore(label)) {
      const entry = strong.get(label) ?? { count: 0, score: 0 };
      entry.count++;
      entry.score = Math.max(entry.score, detection.score);
      strong.set(label, entry);
    } else if (detection.score >= objectEvidence.supportScore) {
      weak.add(label);
    }
  }
  const round = (score: number): number => Math.round(score * 1000) / 1000;
  return {
    timeSecond,
    objects: [...strong].map(([label, entry]) => ({ label, count: entry.count, score: round(entry.score) })),
    weakObjects: [...weak].filter((label) => !strong.has(label)),
    tags: tags.map((tag) => ({ label: tag.label, score: round(tag.score) })),
  };
}

/**
 * The frames (in time order) with only what is seen again in a neighbouring frame: an object stays when the frame
 * before or after shows its class too, strongly or weakly; a tag stays when it reaches `minTagScore` there as well.
 * Something seen in one sampled frame alone is dropped, and so is every label of a lone frame.
 */
export function persistentFrames(frames: readonly FrameLabels[]): FrameLabels[] {
  const seen = frames.map((frame) => new Set([...frame.objects.map((object) => object.label), ...(frame.weakObjects ?? [])]));
  const strongTags = frames.map((frame) => new Set(frame.tags.filter((tag) => tag.score >= minTagScore).map((tag) => tag.label)));
  const confirmed = (sets: Set<string>[], index: number, label: string): boolean =>
    Boolean(sets[index - 1]?.has(label) || sets[index + 1]?.has(label));
  return frames.map((frame, index) => ({
    timeSecond: frame.timeSecond,
    objects: frame.objects.filter((object) => confirmed(seen, index, object.label)),
    tags: frame.tags.filter((tag) => tag.score >= minTagScore && confirmed(strongTags, index, tag.label)),
  }));
}

/**
 * One "visual" segment per label per run of frames it appears in: "bicycle bike" from 12 s to 18 s. Only what
 * persists counts (`persistentFrames`); a run ends when the label is missing from a sampled frame.
 */
export function visualSegments(frames: FrameLabels[], everySeconds: number, durationSeconds: number): Segment[] {
  const segments: Segment[] = [];
  const open = new Map<string, { startSecond: number; lastSecond: number }>();
  const close = (label: string, run: { startSecond: number; lastSecond: number }): void => {
    segments.push({
      startSecond: run.startSecond,
      endSecond: Math.min(durationSeconds, run.lastSecond + everySeconds),
      text: labelWords(label),
      source: "visual",
    });
  };
  for (const frame of persistentFrames(frames)) {
    const labels = new Set([...frame.objects.map((object) => object.label), ...frame.tags.map((tag) => tag.label)]);
    for (const [label, run] of open) {
      if (!labels.has(label)) {
        close(label, run);
        open.delete(label);
      }
    }
    for (const label of labels) {
      const run = open.get(label);
      if (run) run.lastSecond = frame.timeSecond;
      else open.set(label, { startSecond: frame.timeSecond, lastSecond: frame.timeSecond });
    }
  }
  for (const [label, run] of open) close(label, run);
  return segments.sort((a, b) => a.startSecond - b.startSecond || a.text.localeCompare(b.text));
}

/**
 * A caption made from what held up (`persistentFrames`): the objects by how often they were seen, the strongest tags
 * and the first line of screen text. Empty when there is nothing to say.
 */
export function templateCaption(frames: FrameLabels[], screenText: string): string {
  const seen = new Map<string, { frames: number; most: number }>();
  const tags = new Map<string, number>();
  for (const frame of persistentFrames(frames)) {
    for (const object of frame.objects) {
      const entry = seen.get(object.label) ?? { frames: 0, most: 0 };
      entry.frames++;
      entry.most = Math.max(entry.most, object.count);
      seen.set(object.label, entry);
    }
    for (const tag of frame.tags) tags.set(tag.label, Math.max(tags.get(tag.label) ?? 0, tag.score));
  }
  const parts: string[] = [];
  const objects = [...seen].sort((a, b) => b[1].frames - a[1].frames || a[0].localeCompare(b[0]));
  if (objects.length > 0) parts.push(`Seen: ${objects.map(([label, entry]) => plural(label, entry.most)).join(", ")}.`);
  const strongTags = [...tags].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([label]) => label);
  if (strongTags.length > 0) parts.push(`Looks like: ${strongTags.join(", ")}.`);
  const firstLine = screenText.split("\n").find((line) => line.trim())?.trim();
  if (firstLine) parts.push(`On screen: "${firstLine.length > 120 ? `${firstLine.slice(0, 119)}…` : firstLine}".`);
  return parts.join(" ");
}

/** The frames inside a clip. */
export function framesInClip<T extends { timeSecond: number }>(frames: T[], clip: ClipSpan): T[] {
  return frames.filter((frame) => frame.timeSecond >= clip.startSecond && frame.timeSecond < clip.endSecond);
}

/** Up to `count` items spread evenly over the list, first and last included. */
export function spreadEvenly<T>(items: T[], count: number): T[] {
  if (items.length <= count) return items;
  if (count <= 1) return items.slice(0, count);
  return Array.from({ length: count }, (_, index) => items[Math.round((index * (items.length - 1)) / (count - 1))] as T);
}
