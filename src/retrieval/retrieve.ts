// The retrieval modes over one library, each returning clips with provenance and the videos they rank:
// - naive: BM25 and dense text vectors, fused by reciprocal rank;
// - graph: keywords → entities → their chunks → clips;
// - visual: a scene description → frames (image-text vectors, or detections and tags) → clips;
// - hybrid (default): text (naive + graph) and visual candidates, their intersection first, then the rest of the union,
//   then an optional language-model relevance filter;
// - video: whole videos scored α·text + (1−α)·visual, and the best clips of the top videos.

import type {
  ClipMatch,
  Hit,
  HitProvenance,
  ImageTextEncoder,
  LanguageModel,
  RetrievalMode,
  Store,
  TextEmbedder,
  Warning,
} from "../spec/index.js";
import { VideoRagError, retrievalDefaults, retrievalModes, toVideoRagError } from "../spec/index.js";
import { bm25Clips, clipKey, denseClips, visualClips, type ScoredClip } from "./clip-retrievers.js";
import { reciprocalRankFusion } from "./fusion.js";
import { graphClips } from "./graph-retrieval.js";
import { momentWords, withEvidence } from "./hit-evidence.js";
import { describeMoments, mergeClipMatches } from "./moments.js";
import { analyzeQuery, questionLanguage, termKeyFor, tokenize } from "./query-analyzer.js";
import { entityKeywords, sceneDescription } from "./query-rewrite.js";
import { judgeRelevance } from "./relevance-filter.js";
import { retrieveVideos } from "./video-retrieval.js";

export interface RetrieveOptions {
  mode: RetrievalMode;
  /** Clips returned; default 20. */
  limit?: number;
  videoIds?: string[];
  /** Rewrites the question for the graph and the frames, and filters hybrid candidates. */
  llm?: LanguageModel;
  textEmbedder?: TextEmbedder;
  imageText?: ImageTextEncoder;
  /** `video` mode: weight of text against visual evidence; default `retrievalDefaults.alpha` (0.7). */
  alpha?: number;
  /** `hybrid` mode: ask the language model to drop irrelevant clips; default true when there is one. */
  filter?: boolean;
  /** Channels left out, for ablations: `hybrid` without the graph or without frames. */
  without?: readonly ("graph" | "visual")[];
  /** `hybrid` mode: the graph list's weight in the fusion, against 1 for BM25 and dense; default `hybridGraphWeight`. */
  graphWeight?: number;
  /** The question's language (ISO 639-1, "en" for English) where the caller identified it already; identified here otherwise. */
  language?: string;
  signal?: AbortSignal;
}

/** A clip with every retriever that found it. */
export interface RetrievedClip extends ClipMatch {
  provenance: HitProvenance[];
}

export interface Retrieval {
  mode: RetrievalMode;
  /** Best first. */
  clips: RetrievedClip[];
  /** Videos best first: the `video` mode's fused ranking, otherwise in the order their first clip appears. */
  videos: { videoId: string; score: number }[];
  /** The question's language (ISO 639-1, "en" also where it could not be told): its words were matched in it. */
  language: string;
  /** What the question was rewritten into, when a retriever needed it. */
  keywords?: string[];
  scene?: string;
  /** Time spent waiting for models (rewrites, query embeddings, the filter); the rest is the engine's own. */
  modelMs: number;
  warnings: Warning[];
}

/** Clips each retriever ranks before fusion: more than are returned, so the lists overlap. */
const minimumCandidates = 50;
/**
 * The graph's weight in hybrid fusion, a tie-breaker by default. On the 534 how-to dev questions with the lite
 * extractor (recall@1/5/10 of the source video), naive scores 0.140 / 0.324 / 0.448; hybrid with the graph weighted
 * 1: 0.107 / 0.300 / 0.438, 0.5: 0.118 / 0.303 / 0.438, 0.1: 0.135 / 0.330 / 0.444, 0.01: 0.140 / 0.324 / 0.448. The
 * lite graph's entities are noun phrases, and a chunk naming several of the question's words is mostly what BM25
 * already found; a graph read by a language model (`retrieval.graphWeight` in the configuration) deserves more.
 */
export const hybridGraphWeight = retrievalDefaults.graphWeight;
/** Clips the relevance filter judges at most, one model call each. */
const maxJudged = 10;
/** Videos whose clips answer in `video` mode. */
const answerVideos = 3;

/** Fuses ranked lists of clips by reciprocal rank, keeping each retriever's provenance. */
function fuseClips(lists: { retriever: string; items: ScoredClip[]; weight?: number }[]): RetrievedClip[] {
  const provenance = new Map<string, HitProvenance[]>();
  for (const list of lists) {
    for (const item of list.items) provenance.set(clipKey(item), [...(provenance.get(clipKey(item)) ?? []), item.provenance]);
  }
  return reciprocalRankFusion(lists, clipKey).map((entry) => {
    const { provenance: _, ...clip } = entry.item;
    const found = provenance.get(clipKey(clip)) ?? [];
    const order = new Map(entry.retrievers.map((retriever, index) => [retriever, index]));
    return { ...clip, score: entry.score, provenance: found.sort((a, b) => (order.get(a.retriever) ?? 0) - (order.get(b.retriever) ?? 0)) };
  });
}

function videoOrder(clips: RetrievedClip[]): { videoId: string; score: number }[] {
  const videos = new Map<string, number>();
  for (const clip of clips) if (!videos.has(clip.videoId)) videos.set(clip.videoId, clip.score);
  return [...videos].map(([videoId, score]) => ({ videoId, score }));
}

/** Clips the graph retriever gives a hybrid search (its own mode, `graph`, gives as many as the others). */
const hybridGraphClips = 15;

/** Clips for a question in one mode. Throws ARGUMENT_INVALID for an unknown mode. */
export async function retrieve(store: Store, question: string, options: RetrieveOptions): Promise<Retrieval> {
  const { mode, llm, textEmbedder, imageText, signal } = options;
  if (!(retrievalModes as readonly string[]).includes(mode)) {
    throw new VideoRagError("ARGUMENT_INVALID", `unknown retrieval mode "${String(mode)}"; use one of ${retrievalModes.join(", ")}`);
  }
  const limit = options.limit ?? 20;
  const candidates = Math.max(limit, minimumCandidates);
  // Identified once: every retriever, rewrite and later match of this question reads its words in this language.
  const language = options.language ?? (await questionLanguage(question));
  const scope = { limit: candidates, signal, language, ...(options.videoIds ? { videoIds: options.videoIds } : {}) };
  // Beside the text lists, the graph's first clips are what reaches the fused top: its 16th and later changed no dev or
  // human question's videos (recall@1/5/10) nor a human answer's ROUGE-L, and reading their clips was a third of a search.
  const graphScope = { ...scope, limit: Math.min(candidates, hybridGraphClips) };
  const without = new Set(options.without ?? []);
  const warnings: Warning[] = [];
  let modelMs = 0;
  const timed = async <T>(work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      modelMs += performance.now() - started;
    }
  };
  const result = (clips: RetrievedClip[], extra: Partial<Retrieval> = {}): Retrieval => ({
    mode,
    language,
    clips: clips.slice(0, limit),
    videos: videoOrder(clips),
    modelMs: Math.round(modelMs * 10) / 10,
    warnings,
    ...extra,
  });

  // Retrievers that do not wait on each other run at once: on a network store (Postgres) each reads on its own connection.
  const textLists = async (): Promise<{ retriever: string; items: ScoredClip[]; weight?: number }[]> => {
    const [bm25, dense] = await Promise.all([bm25Clips(store, question, scope), textEmbedder ? timed(() => denseClips(store, question, textEmbedder, scope)) : undefined]);
    return [{ retriever: "bm25", items: bm25 }, ...(dense ? [{ retriever: "dense", items: dense }] : [])];
  };
  /** A rewrite by the model, or the lite rewrite with a warning when the model fails (not when the user stopped). */
  const rewrite = async <T>(feature: string, work: (model?: LanguageModel) => Promise<T>): Promise<T> => {
    if (!llm) return work();
    try {
      return await timed(() => work(llm));
    } catch (error) {
      const failure = toVideoRagError(error);
      if (failure.code === "INTERRUPTED" || signal?.aborted) throw failure;
      warnings.push({ type: "fallback", feature, detail: `${llm.id} failed (${failure.code}); the question's own words were used` });
      return work();
    }
  };
  const keywords = async (): Promise<string[]> => rewrite("entity keywords", (model) => entityKeywords(question, model, { signal, language }));
  const scene = async (): Promise<string> => rewrite("scene description", (model) => sceneDescription(question, model, { signal, language }));

  if (mode === "naive") return result(fuseClips(await textLists()));
  if (mode === "graph") {
    const words = await keywords();
    return result(fuseClips([{ retriever: "graph", items: await graphClips(store, words, scope) }]), { keywords: words });
  }
  if (mode === "visual") {
    const description = await scene();
    const items = await timed(() => visualClips(store, description, imageText, scope));
    return result(fuseClips([{ retriever: "visual", items }]), { scene: description });
  }
  if (mode === "video") {
    const description = imageText ? await scene() : analyzeQuery(question, language).terms.map((term) => term.text).join(" ");
    const videos = await timed(() => retrieveVideos(store, question, { limit: candidates, alpha: options.alpha ?? retrievalDefaults.alpha, scene: description, imageText, signal, language, ...(options.videoIds ? { videoIds: options.videoIds } : {}) }));
    const top = videos.slice(0, answerVideos).map((video) => video.videoId);
    const rank = new Map(top.map((videoId, index) => [videoId, index]));
    const within = { ...scope, videoIds: top };
    const [bm25, visual] = top.length === 0 ? [[], []] : await Promise.all([bm25Clips(store, question, within), timed(() => visualClips(store, description, imageText, within))]);
    const clips = top.length === 0 ? [] : fuseClips([
      { retriever: "bm25", items: bm25 },
      { retriever: "visual", items: visual },
    ]);
    const videoScore = new Map(videos.map((video) => [video.videoId, video]));
    // The top video's clips first: the answer comes from the best video, and its clips are said to be found by it.
    const ordered = clips
      .sort((a, b) => (rank.get(a.videoId) ?? 0) - (rank.get(b.videoId) ?? 0) || b.score - a.score)
      .map((clip) => {
        const video = videoScore.get(clip.videoId);
        const found: HitProvenance = { retriever: "video", rank: (rank.get(clip.videoId) ?? 0) + 1, score: video?.score ?? 0, detail: `text ${video?.textScore.toFixed(2)}, visual ${video?.visualScore.toFixed(2)}` };
        return { ...clip, provenance: [found, ...clip.provenance] };
      });
    return { ...result(ordered), videos: videos.map((video) => ({ videoId: video.videoId, score: video.score })) };
  }

  // hybrid: the text lists, the graph's and the visual one at once.
  const [lists, graph, seen] = await Promise.all([
    textLists(),
    without.has("graph") ? undefined : keywords().then(async (words) => ({ words, items: await graphClips(store, words, graphScope) })),
    without.has("visual") ? undefined : scene().then(async (description) => ({ description, items: await timed(() => visualClips(store, description, imageText, scope)) })),
  ]);
  const words = graph?.words;
  if (graph) lists.push({ retriever: "graph", items: graph.items, weight: options.graphWeight ?? hybridGraphWeight });
  const description = seen?.description;
  const visual = seen?.items ?? [];
  const textKeys = new Set(lists.flatMap((list) => list.items.map(clipKey)));
  const visualKeys = new Set(visual.map(clipKey));
  // The graph corroborates: a clip the text retrievers found rises when the graph found it too, while clips only the
  // graph found follow them. Fused as an equal list, the lite graph's loose phrase matches displaced text hits.
  const textFound = new Set(lists.filter((list) => list.retriever !== "graph").flatMap((list) => list.items.map(clipKey)));
  const fused = fuseClips(visual.length > 0 ? [...lists, { retriever: "visual", items: visual }] : lists);
  const union = [...fused.filter((clip) => textFound.has(clipKey(clip)) || visualKeys.has(clipKey(clip))), ...fused.filter((clip) => !textFound.has(clipKey(clip)) && !visualKeys.has(clipKey(clip)))];
  const both = union.filter((clip) => textKeys.has(clipKey(clip)) && visualKeys.has(clipKey(clip)));
  let clips = both.length > 0 ? [...both, ...union.filter((clip) => !(textKeys.has(clipKey(clip)) && visualKeys.has(clipKey(clip))))] : union;
  if (llm && options.filter !== false && clips.length > 0) {
    const judged = clips.slice(0, Math.min(limit, maxJudged));
    const documents = await store.getClips(judged.map((clip) => ({ videoId: clip.videoId, clipIndex: clip.clipIndex })));
    const verdicts = await timed(() => judgeRelevance(llm, question, documents, { signal })).catch((error: unknown) => {
      const failure = toVideoRagError(error);
      if (failure.code === "INTERRUPTED" || signal?.aborted) throw failure;
      warnings.push({ type: "fallback", feature: "relevance filter", detail: `${llm.id} failed (${failure.code}); no clip was filtered` });
      return judged.map(() => true);
    });
    const kept = judged.filter((_, index) => verdicts[index] !== false);
    if (kept.length === 0) {
      warnings.push({ type: "degraded", feature: "relevance filter", detail: `${llm.id} judged none of ${judged.length} clips relevant; all kept` });
    } else {
      clips = [...kept, ...clips.slice(judged.length)];
    }
  }
  return result(clips, { ...(words ? { keywords: words } : {}), ...(description ? { scene: description } : {}) });
}

/**
 * Retrieved clips → moments as hits: touching clips merged, each naming every retriever and how it found them, with the
 * moment's words that match the question (or its rewritten keywords), matched in the question's language.
 */
export async function retrievalHits(store: Store, question: string, retrieval: Retrieval, limit: number): Promise<Hit[]> {
  const query = analyzeQuery([question, ...(retrieval.keywords ?? [])].join(" "), retrieval.language);
  const provenanceOf = new Map(retrieval.clips.map((clip) => [clipKey(clip), clip.provenance]));
  const moments = mergeClipMatches(retrieval.clips).slice(0, limit);
  if (retrieval.mode === "video") {
    const rank = new Map(retrieval.videos.map((video, index) => [video.videoId, index]));
    moments.sort((a, b) => (rank.get(a.videoId) ?? 0) - (rank.get(b.videoId) ?? 0) || b.score - a.score);
  }
  const provenances = moments.map((moment) => {
    const best = new Map<string, HitProvenance>();
    for (const clipIndex of moment.clipIndexes) {
      for (const found of provenanceOf.get(clipKey({ videoId: moment.videoId, clipIndex })) ?? []) {
        const previous = best.get(found.retriever);
        if (!previous || found.rank < previous.rank) best.set(found.retriever, found);
      }
    }
    return [...best.values()];
  });
  // All moments described together (one read of their videos and segments, one of their clips); each hit names its own
  // retrievers and the words of its clips they matched.
  const [described, documents] = await Promise.all([
    describeMoments(store, moments, query, (at) => (provenances[at] ?? []).map((found) => found.retriever).join("+") || "bm25"),
    store.getClips(moments.flatMap((moment) => moment.clipIndexes.map((clipIndex) => ({ videoId: moment.videoId, clipIndex })))),
  ]);
  const clipDocuments = new Map(documents.map((document) => [clipKey({ videoId: document.videoId, clipIndex: document.index }), document]));
  const termKey = termKeyFor(retrieval.language);
  const termKeys = new Set(query.terms.flatMap((term) => tokenize(term.text).map(termKey)));
  return described.flatMap((hit, at) => {
    const moment = moments[at];
    if (!hit || !moment) return [];
    const clips = moment.clipIndexes.flatMap((clipIndex) => clipDocuments.get(clipKey({ videoId: moment.videoId, clipIndex })) ?? []);
    const words = momentWords(clips, termKeys, retrieval.language);
    return [{ ...hit, provenance: (provenances[at] ?? []).map((found) => withEvidence(found, words)) }];
  });
}
