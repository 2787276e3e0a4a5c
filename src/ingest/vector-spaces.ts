// The names of the vector spaces ingest writes: one per model and modality, so vectors of different models never mix.

import type { ImageTextEncoder, TextEmbedder } from "../spec/index.js";

/** Dense text vectors of clip documents. */
export const textSpace = (embedder: Pick<TextEmbedder, "id">): string => `text:${embedder.id}`;
/** Image-text vectors of frames and clips (the mean of their frames). */
export const imageSpace = (encoder: Pick<ImageTextEncoder, "id">): string => `image:${encoder.id}`;
