// The library's topics: videos clustered by the words of their chapters (tf-idf, cosine, average-link agglomeration),
// each cluster labelled by the words its videos share most and listing its videos. For large libraries a single pass
// assigns each video to the nearest topic so far, which keeps the cost linear.

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
  /** Above this many videos, topics are found in one pass instead of by agglomeration. */
  agglomerateUpTo: number;
  /** Topics listed at most, the largest first. */
  maxTopics: number;
}

export const defaultTopicSettings: TopicSettings = { joinSimilarity: 0.12, termsPerVideo: 60, agglomerateUpTo: 400, maxTopics: 20 };

interface VideoVector {
  video: Video;
  weights: Map<string, number>;
  /** How the video writes each stem most often. */
  written: Map<string, string>;
}

export function libraryTopics(videos: readonly { video: Video; chapters: readonly Chapter[] }[], settings: TopicSettings = defaultTopicSettings): LibraryTopic[] {
  const counted = videos.map(({ video, chapters }) => {
    const text = chapters.map((chapter) => `${chapter.title}\n${chapter.text}`).join("\n");
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
  const groups = vectors.length <= settings.agglomerateUpTo ? agglomerate(vectors, settings.joinSimilarity) : onePass(vectors, settings.joinSimilarity);
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

/** Each video joins the topic whose centroid is nearest when near enough, else starts one. */
function onePass(vectors: VideoVector[], threshold: number): VideoVector[][] {
  const topics: { members: VideoVector[]; centroid: Map<string, number> }[] = [];
  for (const vector of vectors) {
    let best: (typeof topics)[number] | undefined;
    let bestValue = threshold;
    for (const topic of topics) {
      const value = cosine(vector.weights, topic.centroid);
      if (value >= bestValue) [best, bestValue] = [topic, value];
    }
    if (!best) {
      topics.push({ members: [vector], centroid: new Map(vector.weights) });
      continue;
    }
    best.members.push(vector);
    for (const [stem, weight] of vector.weights) best.centroid.set(stem, (best.centroid.get(stem) ?? 0) + weight);
  }
  return topics.map((topic) => topic.members);
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
