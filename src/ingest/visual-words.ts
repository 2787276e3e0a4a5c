// Detections and tags per frame → searchable words with their times, and a template caption per clip when no
// vision-language model describes it.

import type { Segment } from "../spec/index.js";
import type { ClipSpan } from "./clip-documents.js";

/** What the detector and tagger saw in one sampled frame. */
export interface FrameLabels {
  timeSecond: number;
  /** Objects with how many were found and the best score. */
  objects: { label: string; count: number; score: number }[];
  tags: { label: string; score: number }[];
}

/** A tag weaker than this is not indexed: MobileNet's long tail is mostly wrong. */
export const minTagScore = 0.3;

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
 * One "visual" segment per label per run of frames it appears in: "bicycle bike" from 12 s to 18 s. A run ends when the
 * label is missing from a sampled frame.
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
  for (const frame of frames) {
    const labels = new Set([...frame.objects.map((object) => object.label), ...frame.tags.filter((tag) => tag.score >= minTagScore).map((tag) => tag.label)]);
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
 * A caption made from what the light models found: the objects by how often they were seen, the strongest tags and the
 * first line of screen text. Empty when there is nothing to say.
 */
export function templateCaption(frames: FrameLabels[], screenText: string): string {
  const seen = new Map<string, { frames: number; most: number }>();
  const tags = new Map<string, number>();
  for (const frame of frames) {
    for (const object of frame.objects) {
      const entry = seen.get(object.label) ?? { frames: 0, most: 0 };
      entry.frames++;
      entry.most = Math.max(entry.most, object.count);
      seen.set(object.label, entry);
    }
    for (const tag of frame.tags) if (tag.score >= minTagScore) tags.set(tag.label, Math.max(tags.get(tag.label) ?? 0, tag.score));
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
