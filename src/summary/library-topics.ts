// The library's topics: videos clustered by the words of their chapters (tf-idf, cosine, average-link agglomeration),
// each cluster labelled by the words its videos share most and listing its videos. For large libraries spherical k-means
// keeps the cost linear in the videos.

import type { Chapter, Video } from "../spec/index.js";
import { isTopical } from "./build-chapters.js";
import { contentStems, cosine, termCounts } from "./utterances.js";

export interface LibraryTopic {
  /** The topic's words, as its videos most often write them, e.g. "bread, dough, flour". */
  label: string;
  terms: string[];
  /** Its videos, the most typical first. */
  videos: { videoId: string; title: string; similarity: number }[];
}

export interface TopicSettings {
  /** Two groups of videos join while their average similarity is at least this. */
  joinSimilarity: number;
  /** Terms a video's vector keeps (its heaviest). */
  termsPerVideo: number;
  /** Above this many videos, topics are found by k-means instead of by agglomeration. */
  agglomerateUpTo: number;
  /** Topics listed at most, the largest first. */
  maxTopics: number;
}

export const defaultTopicSettings: TopicSettings = { joinSimilarity: 0.12, termsPerVideo: 60, agglomerateUpTo: 400, maxTopics: 20 };

/** Characters of each chapter's text a video's topic vector reads. */
const textPerChapter = 3000;
/** Terms a k-means centroid keeps: the heaviest. */
const centroidTerms = 300;

interface VideoVector {
  video: Video;
  weights: Map<string, number>;
  /** How the video writes each stem most often. */
  written: Map<string, string>;
}

export function libraryTopics(videos: readonly { video: Video; chapters: readonly Chapter[] }[], settings: TopicSettings = defaultTopicSettings): LibraryTopic[] {
  const counted = videos.map(({ video, chapters }) => {
    // A chapter's title and its opening say what it is about; reading all of a 10,000-video library's text would not.
    const text = chapters.map((chapter) => `${chapter.title}\n${chapter.summary}\n${chapter.text.slice(0, textPerChapter)}`).join("\n");
    return { video, counts: termCounts(contentStems(text)), text };
  });
  const frequency = new Map<string, number>();
  for (const { counts } of counted) for (const stem of counts.keys()) frequency.set(stem, (frequency.get(stem) ?? 0) + 1);
  const total = counted.length;
  const vectors: VideoVector[] = counted
    .map(({ video, counts, text }) => {
      const weighted = [...counts]
        // A word in every video of a library of several tells them apart from nothing.
        .filter(([stem]) => total < 3 || (frequency.get(stem) ?? 0) < total)
        .map(([stem, count]): [string, number] => [stem, (1 + Math.log(count)) * Math.log(1 + total / (frequency.get(stem) ?? 1))])
        .sort((a, b) => b[1] - a[1])
        .slice(0, settings.termsPerVideo);
      return { video, weights: new Map(weighted), written: surfaceForms(text, new Set(weighted.map(([stem]) => stem))) };
    })
    .filter((vector) => vector.weights.size > 0);
  const groups =
    vectors.length <= settings.agglomerateUpTo
      ? agglomerate(vectors, settings.joinSimilarity)
      : kMeans(vectors, Math.min(settings.maxTopics * 2, Math.ceil(Math.sqrt(vectors.length / 2))));
  return groups
    .sort((a, b) => b.length - a.length)
    .slice(0, settings.maxTopics)
    .map((group) => describeTopic(group));
}

/** Average-link agglomerative clustering, O(n²) similarities once and O(n³) merges at worst: for a few hundred videos. */
function agglomerate(vectors: VideoVector[], threshold: number): VideoVector[][] {
  const groups = vectors.map((vector) => [vector]);
  const similarity = vectors.map((a) => vectors.map((b) => cosine(a.weights, b.weights)));
  const index = new Map(vectors.map((vector, position) => [vector, position]));
  const average = (a: VideoVector[], b: VideoVector[]): number => {
    let sum = 0;
    for (const x of a) for (const y of b) sum += similarity[index.get(x) as number]?.[index.get(y) as number] ?? 0;
    return sum / (a.length * b.length);
  };
  for (;;) {
    let best: [number, number] | undefined;
    let bestValue = threshold;
    for (let i = 0; i < groups.length; i++) {
      for (let j = i + 1; j < groups.length; j++) {
        const value = average(groups[i] as VideoVector[], groups[j] as VideoVector[]);
        if (value >= bestValue) [best, bestValue] = [[i, j], value];
      }
    }
    if (!best) return groups;
    const [i, j] = best;
    groups[i] = [...(groups[i] as VideoVector[]), ...(groups[j] as VideoVector[])];
    groups.splice(j, 1);
  }
}

/**
 * Spherical k-means for large libraries: k topics seeded by farthest-point (deterministic k-means++), a few rounds of
 * assigning each video to its nearest centroid, centroids pruned to their heaviest terms. Linear in the videos.
 */
function kMeans(vectors: VideoVector[], topicCount: number, rounds = 5): VideoVector[][] {
  const normalised = (weights: ReadonlyMap<string, number>): Map<string, number> => {
    const pruned = [...weights].sort((a, b) => b[1] - a[1]).slice(0, centroidTerms);
    const norm = Math.sqrt(pruned.reduce((sum, [, weight]) => sum + weight * weight, 0)) || 1;
    return new Map(pruned.map(([stem, weight]) => [stem, weight / norm]));
  };
  const seeds: Map<string, number>[] = [normalised((vectors[0] as VideoVector).weights)];
  const nearest = vectors.map((vector) => cosine(vector.weights, seeds[0] as Map<string, number>));
  while (seeds.length < topicCount) {
    let farthest = -1;
    let lowest = Number.POSITIVE_INFINITY;
    nearest.forEach((similarity, index) => {
      if (similarity < lowest) [farthest, lowest] = [index, similarity];
    });
    if (farthest < 0 || lowest >= 0.999) break;
    const seed = normalised((vectors[farthest] as VideoVector).weights);
    seeds.push(seed);
    vectors.forEach((vector, index) => (nearest[index] = Math.max(nearest[index] as number, cosine(vector.weights, seed))));
  }
  let centroids = seeds;
  let groups: VideoVector[][] = [];
  for (let round = 0; round < rounds; round++) {
    groups = centroids.map(() => []);
    for (const vector of vectors) {
      let best = 0;
      let bestValue = -1;
      centroids.forEach((centroid, index) => {
        const value = cosine(vector.weights, centroid);
        if (value > bestValue) [best, bestValue] = [index, value];
      });
      groups[best]?.push(vector);
    }
    centroids = groups.map((members, index) => {
      if (members.length === 0) return centroids[index] as Map<string, number>;
      const sum = new Map<string, number>();
      for (const member of members) for (const [stem, weight] of member.weights) sum.set(stem, (sum.get(stem) ?? 0) + weight);
      return normalised(sum);
    });
  }
  return groups.filter((members) => members.length > 0);
}

function describeTopic(group: VideoVector[]): LibraryTopic {
  const centroid = new Map<string, number>();
  for (const member of group) {
    const norm = Math.sqrt([...member.weights.values()].reduce((sum, weight) => sum + weight * weight, 0)) || 1;
    for (const [stem, weight] of member.weights) centroid.set(stem, (centroid.get(stem) ?? 0) + weight / norm);
  }
  // Words shared by more of the topic's videos first, then by weight.
  const shared = (stem: string): number => group.filter((member) => member.weights.has(stem)).length;
  const written = (stem: string): string => group.map((member) => member.written.get(stem)).find(Boolean) ?? stem;
  const stems = [...centroid]
    .filter(([stem]) => isTopical(written(stem)))
    .sort((a, b) => shared(b[0]) - shared(a[0]) || b[1] - a[1])
    .slice(0, 3)
    .map(([stem]) => stem);
  const terms = stems.map(written);
  const videos = group
    .map((member) => ({ videoId: member.video.id, title: member.video.title, similarity: Number(cosine(member.weights, centroid).toFixed(3)) }))
    .sort((a, b) => b.similarity - a.similarity);
  return { label: terms.join(", "), terms, videos };
}

/** The commonest written form of each wanted stem in a text. */
function surfaceForms(text: string, wanted: ReadonlySet<string>): Map<string, string> {
  const forms = new Map<string, Map<string, number>>();
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const stem = contentStems(word)[0];
    if (!stem || !wanted.has(stem)) continue;
    const seen = forms.get(stem) ?? new Map<string, number>();
    seen.set(word, (seen.get(word) ?? 0) + 1);
    forms.set(stem, seen);
  }
  return new Map([...forms].map(([stem, seen]) => [stem, [...seen].sort((a, b) => b[1] - a[1])[0]?.[0] ?? stem]));
}
