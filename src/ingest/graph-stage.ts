// The graph stage of media ingest: the clips' descriptions grouped into chunks, entities and relations read from each
// (by the language model, or the lite extractor), saved as a resumable stage and merged into the library's graph when
// the video commits.

import { buildVideoGraph } from "../graph/index.js";
import type { ClipDocument, LanguageModel, TextEmbedder, VideoGraph } from "../spec/index.js";
import type { MediaStage } from "./types.js";
import { decodeVector, encodeVector } from "./visual-stage.js";

/** How the graph is read from a video's clips. */
export interface GraphSettings {
  /** Extracts entities and relations; the lite extractor when absent. */
  model?: LanguageModel;
  /** Embeds entity names so differently written names of one thing merge. */
  embedder?: TextEmbedder;
  chunkTokens: number;
  glean: boolean;
  mergeDistance: number;
}

type RunStage = <T>(stage: MediaStage, settings: unknown, work: () => Promise<T>) => Promise<T>;

/** The stage's saved output: vectors as base64, so the record is plain JSON. */
interface SavedGraph extends Omit<VideoGraph, "entityVectors"> {
  entityVectors?: { nameKey: string; vector: string }[];
  modelCalls: number;
  /** Chunks read by the lite extractor: all of them without a model, those whose model output was invalid with one. */
  liteChunks: number;
}

/** A video's graph with the model calls it took (0 when resumed or lite). */
export type StagedGraph = VideoGraph & { modelCalls: number; liteChunks: number; modelExtractor: boolean };

export async function runGraphStage(
  settings: GraphSettings,
  documents: ClipDocument[],
  runStage: RunStage,
  options: { signal?: AbortSignal; onProgress?: (fraction: number) => void; language?: string } = {},
): Promise<StagedGraph> {
  const { model, embedder } = settings;
  const key = {
    version: 1,
    extractor: model?.id ?? null,
    glean: model ? settings.glean : null,
    embedder: embedder?.id ?? null,
    chunkTokens: settings.chunkTokens,
    language: options.language ?? null,
    clips: documents.map((document) => [document.transcript, document.screen, document.visual]),
  };
  const saved = await runStage<SavedGraph>("graph", key, async () => {
    const { graph, modelCalls, liteChunks } = await buildVideoGraph(documents, {
      model,
      embedder,
      glean: settings.glean,
      maxTokens: settings.chunkTokens,
      signal: options.signal,
      language: options.language,
      onProgress: (done, total) => options.onProgress?.(total > 0 ? done / total : 1),
    });
    return {
      ...graph,
      entityVectors: graph.entityVectors?.map((entry) => ({ nameKey: entry.nameKey, vector: encodeVector(entry.vector) })),
      modelCalls,
      liteChunks,
    };
  });
  return {
    ...saved,
    entityVectors: saved.entityVectors?.map((entry) => ({ nameKey: entry.nameKey, vector: decodeVector(entry.vector) })),
    mergeDistance: settings.mergeDistance,
    modelExtractor: model !== undefined,
  };
}

/** One line for the ingest summary: what the graph stage found, and by which extractor. */
export function graphNote(graph: StagedGraph): string {
  const entities = new Set(graph.extractions.flatMap((extraction) => extraction.entities.map((entity) => entity.nameKey))).size;
  const relations = graph.extractions.reduce((sum, extraction) => sum + extraction.relations.length, 0);
  const calls = graph.modelCalls > 0 ? `, ${graph.modelCalls} model calls` : "";
  const fallback = graph.modelExtractor && graph.liteChunks > 0 ? `; ${graph.liteChunks} chunks by the lite extractor, the model's output was not valid JSON` : "";
  return `graph: ${graph.chunks.length} chunks, ${entities} entities, ${relations} relations by ${graph.extractor}${calls}${fallback}`;
}
