// The same voice in several videos: speakers whose voice vectors (from a neural diarizer's embedding model) point the
// same way are proposed as one person, never merged: the user names them. Vectors are unit length, so the cosine
// similarity is their dot product.

/** A speaker's voice vector in one video. */
export interface VoiceVector {
  videoId: string;
  label: string;
  vector: Float32Array;
}

/** A speaker of another video whose voice is like this one's. */
export interface VoiceMatch {
  videoId: string;
  label: string;
  /** Cosine similarity of the two voice vectors, −1 … 1. */
  similarity: number;
}

/**
 * Cosine similarity from which two voices are proposed as one person. Speaker-verification models of the kind the
 * neural diarizer uses (ERes2Net, WeSpeaker ResNet) put one person's recordings around 0.7–0.9 and two people's below
 * 0.5; 0.6 sits between. It could not be measured here (no weights can be fetched on the machines this was built on).
 */
export const sameVoiceSimilarity = 0.6;

function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return -1;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    const x = a[index] as number;
    const y = b[index] as number;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA > 0 && normB > 0 ? dot / Math.sqrt(normA * normB) : -1;
}

/**
 * For each voice of `videoId` (by label), the voices of other videos at least `minSimilarity` alike, most alike first,
 * at most `limit` each.
 */
export function sameVoices(vectors: readonly VoiceVector[], videoId: string, options: { minSimilarity?: number; limit?: number } = {}): Map<string, VoiceMatch[]> {
  const minSimilarity = options.minSimilarity ?? sameVoiceSimilarity;
  const limit = options.limit ?? 3;
  const matches = new Map<string, VoiceMatch[]>();
  for (const voice of vectors.filter((entry) => entry.videoId === videoId)) {
    const alike = vectors
      .filter((other) => other.videoId !== videoId)
      .map((other) => ({ videoId: other.videoId, label: other.label, similarity: Math.round(cosine(voice.vector, other.vector) * 1000) / 1000 }))
      .filter((match) => match.similarity >= minSimilarity)
      .sort((a, b) => b.similarity - a.similarity || a.videoId.localeCompare(b.videoId) || a.label.localeCompare(b.label))
      .slice(0, limit);
    if (alike.length > 0) matches.set(voice.label, alike);
  }
  return matches;
}
