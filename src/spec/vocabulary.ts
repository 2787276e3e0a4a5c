// Names the whole engine shares, stated once: the retrieval modes with their defaults, and the vector spaces vectors
// are filed under (one per model and modality, so vectors of different models never mix). Values, but no I/O, and nothing
// of Node's: the web UI's types read them too.

/** The retrieval modes, in the order help texts list them. */
export const retrievalModes = ["naive", "graph", "visual", "hybrid", "video"] as const;

/** Text (BM25 + dense), the knowledge graph, frames, both combined, or whole videos. */
export type RetrievalMode = (typeof retrievalModes)[number];

/** Retrieval's defaults; the configuration's `retrieval` section starts from these. */
export const retrievalDefaults = {
  mode: "hybrid" as RetrievalMode,
  /** Weight of text against visual evidence when whole videos are scored (`video` mode). */
  alpha: 0.7,
  /** The graph list's weight in hybrid fusion, against 1 for BM25 and dense: a tie-breaker, measured with the lite graph. */
  graphWeight: 0.01,
};

/** Dense text vectors of clip documents. */
export const textSpace = (embedder: { id: string }): string => `text:${embedder.id}`;
/** Image-text vectors of frames and clips (the mean of their frames). */
export const imageSpace = (encoder: { id: string }): string => `image:${encoder.id}`;
/** Dense text vectors of chapters; a vector's `clipIndex` is its chapter's index. */
export const chapterSpace = (embedder: { id: string }): string => `chapter:${embedder.id}`;
/** Name vectors of graph entities, for merging names by meaning. */
export const entitySpace = (embedder: { id: string }): string => `entity:${embedder.id}`;
