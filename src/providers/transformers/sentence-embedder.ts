// Sentence vectors from a sentence-transformers model run by transformers.js (mean pooling over tokens, then L2 norm),
// for dense text retrieval beside BM25.

import type { EmbedOptions, TextEmbedder } from "../../spec/providers.js";
import { lazy, loadPretrained, modelSource, throwIfAborted, unitRows, type TransformersProviderOptions } from "./load-pretrained.js";

export interface SentenceEmbedderOptions extends TransformersProviderOptions {
  /** Length of the model's vectors. Default 384, as for all-MiniLM-L6-v2. */
  dimensions?: number;
}

// MiniLM-L6 embeds ~32 sentences of transcript (under 128 tokens each) in a few hundred ms on one core.
const maxBatchSize = 32;

/** Creates a TextEmbedder over a sentence-transformers model; nothing is read until the first call. */
export function createSentenceEmbedder(options: SentenceEmbedderOptions = {}): TextEmbedder {
  const source = modelSource(options, "Xenova/all-MiniLM-L6-v2");
  const dimensions = options.dimensions ?? 384;
  // E5 models (intfloat's, and Xenova's ONNX copies, multilingual-e5 among them) were trained on prefixed texts and
  // rank worse without them.
  const prefixed = /(^|[/-])e5-/i.test(source.model);
  const extractor = lazy(() =>
    loadPretrained(source, (transformers, pretrained) => transformers.pipeline("feature-extraction", source.model, pretrained)),
  );
  return {
    id: `transformers:${source.model}`,
    capabilities: { maxBatchSize, maxConcurrency: 1, dimensions },
    async embed(texts: string[], callOptions: EmbedOptions = {}): Promise<Float32Array[]> {
      throwIfAborted(callOptions.signal, "text embedding");
      if (texts.length === 0) return [];
      const extract = await extractor();
      throwIfAborted(callOptions.signal, "text embedding");
      const inputs = prefixed ? texts.map((text) => `${callOptions.purpose ?? "passage"}: ${text}`) : texts;
      const output = await extract(inputs, { pooling: "mean", normalize: true });
      return unitRows(output, dimensions, source.model);
    },
  };
}
