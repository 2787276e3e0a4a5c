// Fixtures of the Store conformance suite: small videos, graphs, vectors and queries every part's cases build on, and
// `storeCase`, which opens a fresh store for a case and closes it after.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { ClipDocument, Store, VectorRecord, VideoContent, VideoGraph } from "../../spec/index.js";
/** Opens a fresh, empty store; called once per case. */
export type OpenStore = () => Store | Promise<Store>;

/** Builds a small video whose clip `i` holds `texts[i]` as transcript, 30 s per clip, one segment per clip. */
export function sampleVideo(
  id: string,
  texts: string[],
  extra: { screen?: string[]; fingerprint?: string; title?: string } = {},
): VideoContent {
  const clips: ClipDocument[] = texts.map((transcript, index) => ({
    videoId: id,
    index,
    startSecond: index * 30,
    endSecond: index * 30 + 30,
    transcript,
    screen: extra.screen?.[index] ?? "",
    visual: "",
  }));
  return {
    video: {
      id,
      path: `/videos/${id}.mp4`,
      title: extra.title ?? id,
      durationSeconds: texts.length * 30,
      kind: "media",
      sizeBytes: 1000,
      width: 640,
      height: 360,
      hasAudio: true,
      hasVideo: true,
      timesEstimated: false,
    },
    clips,
    segments: texts.map((text, index) => ({
      startSecond: index * 30 + 1,
      endSecond: index * 30 + 29,
      text,
      source: "subtitle" as const,
    })),
    frames: texts.map((_, index) => ({ timeSecond: index * 30, hash: "00ff00ff00ff00ff" })),
    fingerprint: extra.fingerprint ?? `sha-${id}`,
  };
}

/** One chunk of `withGraph`: entities as [name, type, description], relations as [source, target, description, strength]. */
export interface SampleChunk {
  entities: [name: string, type: string, description: string][];
  relations?: [source: string, target: string, description: string, strength: number][];
  /** First and last clip of the chunk; chunk `i` is clip `i` alone by default. */
  clips?: [number, number];
}

/** Adds a graph to a sample video: one chunk per entry, names keyed by lowercasing them. */
export function withGraph(content: VideoContent, chunks: SampleChunk[], extra: Partial<VideoGraph> = {}): VideoContent {
  const nameKey = (name: string): string => name.toLowerCase();
  return {
    ...content,
    graph: {
      extractor: "test@1",
      chunks: chunks.map((chunk, index) => {
        const [clipStart, clipEnd] = chunk.clips ?? [index, index];
        const text = content.clips.slice(clipStart, clipEnd + 1).map((clip) => clip.transcript).join(" ");
        return { index, clipStart, clipEnd, startSecond: clipStart * 30, endSecond: clipEnd * 30 + 30, text, tokenCount: 3 };
      }),
      extractions: chunks.map((chunk, chunkIndex) => ({
        chunkIndex,
        entities: chunk.entities.map(([name, type, description]) => ({ name, type, description, nameKey: nameKey(name) })),
        relations: (chunk.relations ?? []).map(([source, target, description, strength]) => ({
          source,
          target,
          description,
          strength,
          sourceKey: nameKey(source),
          targetKey: nameKey(target),
        })),
      })),
      ...extra,
    },
  };
}

/**
 * A library with text written without spaces: Thai in a video's clips, an entity and a chapter (beside Chinese and
 * Latin), a Chinese video and an English one; and searches that tell how such text is indexed. For the migrations
 * that index it again: every score after one must equal a library built now, in every lexical index.
 */
export function unspacedLibrary(): { videos: VideoContent[]; searches: string[] } {
  const thai = withGraph(sampleVideo("th", ["ฉันชอบกินข้าวผัดที่ร้านนี้", "ข้าวผัดกุ้งกับ东京 dough"]), [
    { entities: [["ร้านข้าวผัด", "place", "ร้านอาหารที่ขายข้าวผัดกุ้ง"]] },
    { entities: [["Tokyo", "place", "a city where the dough rises"]] },
  ]);
  const chapter = { index: 0, startSecond: 0, endSecond: 60, title: "ข้าวผัด", summary: "ร้านข้าวผัดกุ้ง", text: "ฉันชอบกินข้าวผัดที่ร้านนี้", madeBy: "lite" };
  return {
    videos: [{ ...thai, chapters: [chapter] }, sampleVideo("zh", ["我们明天去东京旅行", "kneading the dough"]), sampleVideo("en", ["the dough rises in Tokyo"])],
    searches: ["ข้าวผัด", "ข้าว", "ร้าน", "กุ้ง dough", "东京", "dough", "东京 dough", "tokyo"],
  };
}

/** Every score `store` gives `words` in each lexical index, as comparable lines (for `unspacedLibrary`). */
export async function lexicalScores(store: Store, words: string): Promise<string[]> {
  const search = query(words);
  const score = (match: { score: number }): string => match.score.toFixed(9);
  return [
    ...(await store.searchClips(search)).map((match) => `clip ${match.videoId}:${match.clipIndex} ${score(match)}`),
    ...(await store.searchVideos(search)).map((match) => `video ${match.videoId} ${score(match)}`),
    ...(await store.searchEntities(search)).map((match) => `entity ${match.name} ${score(match)}`),
    ...(await store.searchChapters(search)).map((match) => `chapter ${match.videoId}:${match.chapterIndex} ${score(match)}`),
  ];
}

export const textSpace = "text:test-3d";
export const imageSpace = "image:test-2d";

/** A clip vector in the 3-d text space (or another space). */
export const clipVector = (videoId: string, clipIndex: number, values: number[], space = textSpace): VectorRecord => ({
  space,
  owner: "clip",
  videoId,
  clipIndex,
  vector: new Float32Array(values),
});

/** A frame vector in the 2-d image space. */
export const frameVector = (videoId: string, clipIndex: number, timeSecond: number, values: number[]): VectorRecord => ({
  space: imageSpace,
  owner: "frame",
  videoId,
  clipIndex,
  timeSecond,
  vector: new Float32Array(values),
});

export const invalidArgument = (pattern: RegExp) => (error: unknown) => {
  const { code, message } = error as { code?: string; message?: string };
  assert.equal(code, "ARGUMENT_INVALID");
  assert.match(message ?? "", pattern);
  return true;
};

export const entitySpace = "entity:test-3d";

/** An entity name vector for `withGraph`'s `entityVectors`. */
export const nameVector = (name: string, values: number[]) => ({ nameKey: name.toLowerCase(), vector: new Float32Array(values) });

export const query = (text: string, extra: { videoIds?: string[]; limit?: number } = {}) => ({
  terms: text.split(" ").map((word) => ({ text: word, weight: 1 })),
  limit: extra.limit ?? 10,
  ...(extra.videoIds ? { videoIds: extra.videoIds } : {}),
});

/** A test that runs `body` on a fresh store and closes the store after, pass or fail. */
export function storeCase(open: OpenStore): (title: string, body: (store: Store) => void | Promise<void>) => void {
  return (title, body) => {
    test(title, async () => {
      const store = await open();
      try {
        await body(store);
      } finally {
        await store.close();
      }
    });
  };
}
