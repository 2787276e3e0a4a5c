// Sentence embeddings through POST /embeddings, returned in input order and L2-normalised.

import { z } from "zod";
import type { TextEmbedder } from "../../spec/providers.js";
import { openAiEndpoint, providerId, type OpenAiConnectionOptions } from "./openai-endpoint.js";

export interface OpenAiEmbedderOptions extends OpenAiConnectionOptions {
  /** Length of the vectors the model returns; a reply of another length is an error, not a silent mismatch. */
  dimensions: number;
  /** Most texts one request may carry; the runtime layer splits larger calls. Default 64. */
  maxBatchSize?: number;
}

const embeddingReply = z.object({
  data: z.array(z.object({ index: z.number().int(), embedding: z.array(z.number()) })),
});

/** Creates a TextEmbedder on an OpenAI-compatible server. */
export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): TextEmbedder {
  const endpoint = openAiEndpoint(options, "/embeddings");
  const { dimensions } = options;

  return {
    id: providerId(options),
    capabilities: { maxBatchSize: options.maxBatchSize ?? 64, maxConcurrency: options.maxConcurrency ?? 4, dimensions },

    async embed(texts, callOptions = {}) {
      // The API rejects an empty input list; there is nothing to ask anyway.
      if (texts.length === 0) return [];
      const reply = endpoint.parse(embeddingReply, await endpoint.post({ model: options.model, input: texts }, callOptions.signal));
      // The API numbers each vector with its input's index and does not promise to keep the order.
      const items = [...reply.data].sort((a, b) => a.index - b.index);
      if (items.length !== texts.length || items.some((item, position) => item.index !== position)) {
        throw endpoint.invalid(`expected ${texts.length} vectors indexed 0..${texts.length - 1}, got ${items.length}`);
      }
      return items.map(({ embedding }) => {
        if (embedding.length !== dimensions) {
          throw endpoint.invalid(`expected vectors of ${dimensions} dimensions, got ${embedding.length}; check the configured dimensions`);
        }
        return normalise(embedding);
      });
    },
  };
}

function normalise(values: number[]): Float32Array {
  const vector = Float32Array.from(values);
  const norm = Math.hypot(...values);
  // A zero vector stays zero rather than becoming NaNs.
  if (norm > 0) for (let index = 0; index < vector.length; index += 1) vector[index] = (vector[index] as number) / norm;
  return vector;
}
