// The model runtime: wraps any provider so that batching, the output cache, concurrency limits, timeouts and retries
// with backoff happen here, once, and a provider only makes the call.

import { stat } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { VideoRagError, type ErrorCode } from "../../spec/index.js";
import type {
  BaseCapabilities,
  ChatMessage,
  ChatOptions,
  ChatResult,
  Detector,
  ImageTextEncoder,
  LanguageModel,
  OcrEngine,
  RgbImage,
  Tagger,
  TextEmbedder,
  Transcriber,
} from "../../spec/index.js";
import { cacheKey, hashFile } from "./cache-key.js";
import { generateJson } from "./generate-json.js";
import { createLimiter, type Limiter } from "./limiter.js";
import type { ModelCache } from "./model-cache.js";

export interface ModelRuntimeOptions {
  /** Where outputs are kept between calls and runs; without one every call reaches the model. */
  cache?: ModelCache;
  /** How many times a retryable failure is tried again; default 3. */
  retries?: number;
  /** The first backoff delay, doubled on each retry and jittered; default 500. */
  baseDelayMs?: number;
  /** The longest backoff delay, unless the server's Retry-After asks for longer; default 20000. */
  maxDelayMs?: number;
  /** How long one call may take before it fails with MODEL_TIMEOUT (and is retried); default 120000. */
  timeoutMs?: number;
  /** Progress and warnings for the CLI. Events carry model ids and counts, never keys or request bodies. */
  onEvent?: (event: RuntimeEvent) => void;
}

/** What the runtime reports as it works. */
export type RuntimeEvent =
  | { type: "retry"; model: string; attempt: number; delayMs: number; code: ErrorCode }
  | { type: "call"; model: string; items: number; ms: number }
  | { type: "cache-hit"; model: string; items: number };

/** Counts for one model id. `calls` and `items` count requests that reached the model, retries included. */
export interface ModelCallStats {
  calls: number;
  items: number;
  cacheHits: number;
  retries: number;
  /** Errors handed to the caller after retries (interruptions not counted). */
  failures: number;
}

/** Wraps providers in the shared batching, caching, limiting, timeout and retry behaviour. */
export interface ModelRuntime {
  wrapLanguageModel<M extends LanguageModel>(model: M): LanguageModel & { readonly capabilities: M["capabilities"] };
  wrapTextEmbedder(embedder: TextEmbedder): TextEmbedder;
  wrapImageTextEncoder(encoder: ImageTextEncoder): ImageTextEncoder;
  wrapDetector(detector: Detector): Detector;
  wrapTagger(tagger: Tagger): Tagger;
  wrapTranscriber(transcriber: Transcriber): Transcriber;
  wrapOcr(ocr: OcrEngine): OcrEngine;
  /** The same function as the module export; pass it a wrapped model to get caching and retries too. */
  generateJson: typeof generateJson;
  /** A snapshot of the counts, by model id. */
  stats(): Record<string, ModelCallStats>;
}

/** What the runtime needs to know of any provider. */
interface Limited {
  readonly id: string;
  readonly capabilities: { maxConcurrency: number };
}

/** One request in flight, holding a concurrency slot, under the caller's signal and its own timeout. */
interface Call {
  /** Runs work under the call's signal; rejects at once when it aborts, even if the provider ignores the signal. */
  run<T>(work: (signal: AbortSignal) => T | Promise<T>): Promise<T>;
  release(): void;
}

const interrupted = (modelId: string, cause: unknown): VideoRagError =>
  new VideoRagError("INTERRUPTED", `the call to ${modelId} was interrupted`, { subject: modelId, cause });

/** Seconds of audio in a 16 kHz mono 16-bit WAV, the format the Transcriber interface takes, from its size alone. */
async function audioSeconds(wavPath: string): Promise<number> {
  const info = await stat(wavPath).catch(() => undefined);
  return info ? Math.max(0, info.size - 44) / (16_000 * 2) : 0;
}

/** A caller that has already given up gets INTERRUPTED, even where the answer is cached: Ctrl-C stops at once. */
function throwIfCallerAborted(modelId: string, signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw interrupted(modelId, signal.reason);
}

const isInterrupted = (error: unknown): boolean => VideoRagError.isInstance(error) && error.code === "INTERRUPTED";

/** Settles with `work`, or rejects with the signal's reason as soon as it aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The pixels and size of an image: what its outputs depend on (not the time it was taken). */
const pixels = (image: RgbImage): unknown => ({ width: image.width, height: image.height, data: image.data });

/** Everything a chat answer depends on: the messages (images by their bytes) and the options other than the signal. */
function chatKeyInput(messages: ChatMessage[], options: ChatOptions = {}): unknown {
  const { signal: _signal, ...rest } = options;
  return { messages, options: rest };
}

/** Creates a runtime. Share one per process so concurrency limits hold across everything using a model. */
export function createModelRuntime(options: ModelRuntimeOptions = {}): ModelRuntime {
  const { cache, retries = 3, baseDelayMs = 500, maxDelayMs = 20_000, timeoutMs = 120_000, onEvent } = options;
  const limiters = new Map<string, Limiter>();
  const counters = new Map<string, ModelCallStats>();

  const emit = (event: RuntimeEvent): void => {
    try {
      onEvent?.(event);
    } catch {
      // A failing progress display must not fail the model call it reports on.
    }
  };

  const counter = (modelId: string): ModelCallStats => {
    let found = counters.get(modelId);
    if (!found) counters.set(modelId, (found = { calls: 0, items: 0, cacheHits: 0, retries: 0, failures: 0 }));
    return found;
  };

  const countHits = (modelId: string, items: number): void => {
    if (items === 0) return;
    counter(modelId).cacheHits += items;
    emit({ type: "cache-hit", model: modelId, items });
  };

  /** Waits for one of the model's slots, then starts the timeout: time spent queued does not count against it. */
  async function openCall(model: Limited, items: number, callerSignal: AbortSignal | undefined, callTimeoutMs = timeoutMs): Promise<Call> {
    let limiter = limiters.get(model.id);
    if (!limiter) limiters.set(model.id, (limiter = createLimiter(model.capabilities.maxConcurrency)));
    let releaseSlot: () => void;
    try {
      releaseSlot = await limiter.acquire(callerSignal);
    } catch (error) {
      throw interrupted(model.id, error);
    }
    // Not AbortSignal.timeout(): its timer is unref'd, so a call waiting on nothing else would let the process exit
    // instead of timing out; this one is cleared on release.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new DOMException(`timed out after ${callTimeoutMs} ms`, "TimeoutError")), callTimeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout.signal]) : timeout.signal;
    const stats = counter(model.id);
    stats.calls++;
    stats.items += items;
    const startedMs = performance.now();
    let released = false;
    return {
      run<T>(work: (signal: AbortSignal) => T | Promise<T>): Promise<T> {
        // Through a promise so a provider that throws synchronously is handled like one that rejects.
        return untilAborted(new Promise<T>((resolve) => resolve(work(signal))), signal).catch((error: unknown) => {
          if (callerSignal?.aborted) throw interrupted(model.id, error);
          if (timeout.signal.aborted) {
            throw new VideoRagError("MODEL_TIMEOUT", `${model.id} did not answer within ${callTimeoutMs} ms`, {
              subject: model.id,
              retryable: true,
              cause: error,
            });
          }
          throw error;
        });
      },
      release() {
        if (released) return;
        released = true;
        clearTimeout(timer);
        releaseSlot();
        emit({ type: "call", model: model.id, items, ms: Math.round(performance.now() - startedMs) });
      },
    };
  }

  /** Runs `attempt` until it succeeds, fails for good, or retries run out; the last error is the one thrown. */
  async function withRetries<T>(modelId: string, callerSignal: AbortSignal | undefined, attempt: () => Promise<T>): Promise<T> {
    for (let retry = 0; ; retry++) {
      try {
        return await attempt();
      } catch (error) {
        if (!VideoRagError.isInstance(error) || !error.retryable || retry >= retries) {
          if (!isInterrupted(error)) counter(modelId).failures++;
          throw error;
        }
        const backoffMs = Math.min(maxDelayMs, baseDelayMs * 2 ** retry) * (0.5 + Math.random() / 2);
        // Timers can fire up to a millisecond early (libuv's clock ticks in whole ms): one more keeps Retry-After a minimum.
        const retryAfterMs = error.retryAfterSeconds ? error.retryAfterSeconds * 1000 + 1 : 0;
        const delayMs = Math.ceil(Math.max(backoffMs, retryAfterMs));
        counter(modelId).retries++;
        emit({ type: "retry", model: modelId, attempt: retry + 1, delayMs, code: error.code });
        try {
          await sleep(delayMs, undefined, { signal: callerSignal });
        } catch (abort) {
          throw interrupted(modelId, abort);
        }
      }
    }
  }

  /** One request for `items` inputs, limited, timed and retried. */
  function callModel<T>(
    model: Limited,
    items: number,
    callerSignal: AbortSignal | undefined,
    work: (signal: AbortSignal) => Promise<T>,
    callTimeoutMs?: number,
  ): Promise<T> {
    return withRetries(model.id, callerSignal, async () => {
      const call = await openCall(model, items, callerSignal, callTimeoutMs);
      try {
        return await call.run(work);
      } finally {
        call.release();
      }
    });
  }

  /** A single-input call answered from the cache when it can be, stored in it otherwise. */
  async function cachedCall<T>(
    model: Limited,
    kind: string,
    keyInput: () => unknown,
    callerSignal: AbortSignal | undefined,
    work: (signal: AbortSignal) => Promise<T>,
    callTimeoutMs?: number,
  ): Promise<T> {
    throwIfCallerAborted(model.id, callerSignal);
    const key = cache ? cacheKey(model.id, kind, await keyInput()) : undefined;
    if (cache && key !== undefined) {
      const hit = cache.get(key);
      if (hit !== undefined) {
        countHits(model.id, 1);
        return hit as T;
      }
    }
    const value = await callModel(model, 1, callerSignal, work, callTimeoutMs);
    if (cache && key !== undefined) cache.set(key, value, { model: model.id, kind });
    return value;
  }

  /**
   * A batch call: cached inputs are answered from the cache, the rest are sent in chunks of `maxBatchSize` (an input
   * repeated in the request is sent once), and the outputs come back in input order.
   */
  async function batchedCall<I, O>(
    model: Limited & { readonly capabilities: BaseCapabilities },
    kind: string,
    inputs: I[],
    keyInput: (input: I) => unknown,
    callerSignal: AbortSignal | undefined,
    work: (chunk: I[], signal: AbortSignal) => Promise<O[]>,
  ): Promise<O[]> {
    throwIfCallerAborted(model.id, callerSignal);
    const results = new Array<O>(inputs.length);
    // Indexes of the inputs still to compute, grouped by cache key (by position when there is no cache).
    const misses = new Map<string, number[]>();
    inputs.forEach((input, index) => {
      const key = cache ? cacheKey(model.id, kind, keyInput(input)) : `#${index}`;
      const hit = cache?.get(key);
      if (hit !== undefined) results[index] = hit as O;
      else if (misses.has(key)) misses.get(key)?.push(index);
      else misses.set(key, [index]);
    });
    const missed = [...misses.entries()];
    countHits(model.id, inputs.length - missed.reduce((sum, [, indexes]) => sum + indexes.length, 0));

    const size = Math.max(1, Math.floor(model.capabilities.maxBatchSize) || 1);
    const chunks: (typeof missed)[] = [];
    for (let start = 0; start < missed.length; start += size) chunks.push(missed.slice(start, start + size));
    await Promise.all(
      chunks.map(async (chunk) => {
        const chunkInputs = chunk.map(([, indexes]) => inputs[indexes[0]!]!);
        const outputs = await callModel(model, chunkInputs.length, callerSignal, (signal) => work(chunkInputs, signal));
        if (outputs.length !== chunkInputs.length) {
          throw new VideoRagError(
            "MODEL_OUTPUT_INVALID",
            `${model.id} returned ${outputs.length} results for ${chunkInputs.length} inputs`,
            { subject: model.id },
          );
        }
        chunk.forEach(([key, indexes], position) => {
          const output = outputs[position]!;
          for (const index of indexes) results[index] = output;
          cache?.set(key, output, { model: model.id, kind });
        });
      }),
    );
    return results;
  }

  /**
   * Streams a chat answer. A cached answer comes as one delta; otherwise deltas come from the model while they are
   * accumulated, and the full text is cached once the stream completes. Only opening the stream, up to its first delta,
   * is retried: once text has reached the caller, a failure is final.
   */
  async function* streamChat(model: LanguageModel, messages: ChatMessage[], options: ChatOptions = {}): AsyncGenerator<string> {
    const callerSignal = options.signal;
    throwIfCallerAborted(model.id, callerSignal);
    const key = cache ? cacheKey(model.id, "chat", chatKeyInput(messages, options)) : undefined;
    if (cache && key !== undefined) {
      const hit = cache.get(key) as ChatResult | undefined;
      if (hit !== undefined) {
        countHits(model.id, 1);
        if (hit.text !== "") yield hit.text;
        return;
      }
    }
    const opened = await withRetries(model.id, callerSignal, async () => {
      const call = await openCall(model, 1, callerSignal);
      try {
        const iterator = await call.run((signal) => model.stream(messages, { ...options, signal })[Symbol.asyncIterator]());
        return { call, iterator, next: await call.run(() => iterator.next()) };
      } catch (error) {
        call.release();
        throw error;
      }
    });
    const { call, iterator } = opened;
    let next = opened.next;
    let text = "";
    try {
      while (!next.done) {
        text += next.value;
        yield next.value;
        next = await call.run(() => iterator.next());
      }
    } catch (error) {
      if (!isInterrupted(error)) counter(model.id).failures++;
      throw error;
    } finally {
      call.release();
      // The caller stopped early or the stream failed: let the provider close its request.
      if (!next.done) void Promise.resolve(iterator.return?.()).catch(() => undefined);
    }
    if (cache && key !== undefined) cache.set(key, { text } satisfies ChatResult, { model: model.id, kind: "chat" });
  }

  return {
    wrapLanguageModel(model) {
      return {
        id: model.id,
        capabilities: model.capabilities,
        chat: (messages, chatOptions) =>
          cachedCall(model, "chat", () => chatKeyInput(messages, chatOptions), chatOptions?.signal, (signal) =>
            model.chat(messages, { ...chatOptions, signal }),
          ),
        stream: (messages, chatOptions) => streamChat(model, messages, chatOptions),
      };
    },
    wrapTextEmbedder(embedder) {
      return {
        id: embedder.id,
        capabilities: embedder.capabilities,
        embed: (texts, callOptions) =>
          // A question is cached apart from the same words as a passage: models such as E5 embed the two differently.
          batchedCall(embedder, "embed", texts, (text) => (callOptions?.purpose === "query" ? `query: ${text}` : text), callOptions?.signal, (chunk, signal) =>
            embedder.embed(chunk, { ...callOptions, signal }),
          ),
      };
    },
    wrapImageTextEncoder(encoder) {
      return {
        id: encoder.id,
        capabilities: encoder.capabilities,
        embedImages: (images, callOptions) =>
          batchedCall(encoder, "embedImages", images, pixels, callOptions?.signal, (chunk, signal) =>
            encoder.embedImages(chunk, { ...callOptions, signal }),
          ),
        embedTexts: (texts, callOptions) =>
          batchedCall(encoder, "embedTexts", texts, (text) => text, callOptions?.signal, (chunk, signal) =>
            encoder.embedTexts(chunk, { ...callOptions, signal }),
          ),
      };
    },
    wrapDetector(detector) {
      return {
        id: detector.id,
        capabilities: detector.capabilities,
        detect: (images, detectOptions) =>
          batchedCall(
            detector,
            "detect",
            images,
            (image) => ({ image: pixels(image), minScore: detectOptions?.minScore }),
            detectOptions?.signal,
            (chunk, signal) => detector.detect(chunk, { ...detectOptions, signal }),
          ),
      };
    },
    wrapTagger(tagger) {
      return {
        id: tagger.id,
        capabilities: tagger.capabilities,
        tag: (images, tagOptions) =>
          batchedCall(
            tagger,
            "tag",
            images,
            (image) => ({ image: pixels(image), topK: tagOptions?.topK, minScore: tagOptions?.minScore }),
            tagOptions?.signal,
            (chunk, signal) => tagger.tag(chunk, { ...tagOptions, signal }),
          ),
      };
    },
    wrapTranscriber(transcriber) {
      return {
        id: transcriber.id,
        capabilities: transcriber.capabilities,
        // Keyed by the audio's bytes, so the same audio under another path (a re-extracted WAV) is still a hit, and by
        // the language asked for, which changes what a multilingual model writes (no language: the key of before).
        // A transcription takes time in proportion to the audio: the timeout grows by two seconds per second of it.
        transcribe: async (wavPath, transcribeOptions) =>
          cachedCall(
            transcriber,
            "transcribe",
            async () => ({ wavSha256: await hashFile(wavPath), ...(transcribeOptions?.language ? { language: transcribeOptions.language } : {}) }),
            transcribeOptions?.signal,
            (signal) => transcriber.transcribe(wavPath, { ...transcribeOptions, signal }),
            timeoutMs + 2000 * (await audioSeconds(wavPath)),
          ),
      };
    },
    wrapOcr(ocr) {
      return {
        id: ocr.id,
        capabilities: ocr.capabilities,
        recognize: (image, recognizeOptions) =>
          cachedCall(ocr, "recognize", () => ({ image: image.data, mode: recognizeOptions?.mode, ...(recognizeOptions?.language ? { language: recognizeOptions.language } : {}) }), recognizeOptions?.signal, (signal) =>
            ocr.recognize(image, { ...recognizeOptions, signal }),
          ),
      };
    },
    generateJson,
    stats: () => Object.fromEntries([...counters].map(([modelId, stats]) => [modelId, { ...stats }])),
  };
}
