// Chapters as dense vectors, when a text embedder is configured: each chapter's title, line and opening text embedded in
// a space of its own, so a question finds the chapter about it by meaning as chapter search finds it by words.

import { chapterSpace } from "../spec/index.js";
import type { CallOptions, Chapter, TextEmbedder, VectorRecord } from "../spec/index.js";

/** Characters of a chapter's text embedded after its title and line (embedders read a few hundred tokens). */
const embeddedTextChars = 1500;

/** The text a chapter's vector is made from. */
export function chapterText(chapter: Chapter): string {
  return [chapter.title, chapter.summary, chapter.text.slice(0, embeddedTextChars)].filter(Boolean).join("\n");
}

/** One vector per chapter, in the chapter space of the embedder. */
export async function chapterVectors(videoId: string, chapters: readonly Chapter[], embedder: TextEmbedder, options: CallOptions = {}): Promise<VectorRecord[]> {
  if (chapters.length === 0) return [];
  const vectors = await embedder.embed(chapters.map(chapterText), options);
  return chapters.flatMap((chapter, index) => {
    const vector = vectors[index];
    return vector ? [{ space: chapterSpace(embedder), owner: "clip" as const, videoId, clipIndex: chapter.index, vector }] : [];
  });
}
