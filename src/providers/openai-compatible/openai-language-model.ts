// Chat through POST /chat/completions, whole or streamed, with images as data URLs for models that accept them.

import { z } from "zod";
import { VideoRagError } from "../../spec/errors.js";
import type { ChatMessage, ChatOptions, LanguageModel, VisionLanguageModel } from "../../spec/providers.js";
import { openAiEndpoint, providerId, type OpenAiConnectionOptions } from "./openai-endpoint.js";

export interface OpenAiLanguageModelOptions extends OpenAiConnectionOptions {
  /** True for a vision model: messages may then carry images. Default false. */
  acceptsImages?: boolean;
  /** Most images one request may carry. Default 10 when images are accepted, else 0. */
  maxImages?: number;
  /** The model's context window in tokens, when known. */
  contextTokens?: number;
}

const chatChoice = z.object({ message: z.object({ content: z.string().nullable() }), finish_reason: z.string().nullish() });
const chatReply = z.object({
  // At least one choice; the tuple form lets the type say so.
  choices: z.tuple([chatChoice]).rest(chatChoice),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullish(),
});

// The last chunk may carry only usage and no choices (`stream_options.include_usage`).
const chatChunk = z.object({
  choices: z.array(z.object({ delta: z.object({ content: z.string().nullish() }).nullish() })).optional(),
});

/** Creates a chat model on an OpenAI-compatible server; a VisionLanguageModel when `acceptsImages` is true. */
export function createOpenAiLanguageModel(options: OpenAiLanguageModelOptions & { acceptsImages: true }): VisionLanguageModel;
export function createOpenAiLanguageModel(options: OpenAiLanguageModelOptions): LanguageModel;
export function createOpenAiLanguageModel(options: OpenAiLanguageModelOptions): LanguageModel {
  const endpoint = openAiEndpoint(options, "/chat/completions");
  const acceptsImages = options.acceptsImages ?? false;
  const maxImages = options.maxImages ?? (acceptsImages ? 10 : 0);
  const id = providerId(options);

  const requestBody = (messages: ChatMessage[], chatOptions: ChatOptions) => {
    const imageCount = messages
      .flatMap((message) => (typeof message.content === "string" ? [] : message.content))
      .filter((part) => part.type === "image").length;
    if (imageCount > maxImages) {
      const message = `${id} takes at most ${maxImages} image(s) a request, got ${imageCount}`;
      throw new VideoRagError("INPUT_UNSUPPORTED", message, { subject: id });
    }
    // JSON.stringify drops the options left undefined.
    return {
      model: options.model,
      messages: messages.map(toOpenAiMessage),
      temperature: chatOptions.temperature,
      max_tokens: chatOptions.maxTokens,
      response_format: chatOptions.json ? { type: "json_object" } : undefined,
    };
  };

  return {
    id,
    capabilities: {
      maxBatchSize: 1,
      maxConcurrency: options.maxConcurrency ?? 4,
      acceptsImages,
      maxImages,
      jsonOutput: true,
      ...(options.contextTokens !== undefined && { contextTokens: options.contextTokens }),
    },

    async chat(messages, chatOptions = {}) {
      const body = requestBody(messages, chatOptions);
      const reply = endpoint.parse(chatReply, await endpoint.post(body, chatOptions.signal));
      const [choice] = reply.choices;
      return {
        text: choice.message.content ?? "",
        ...(choice.finish_reason && { finishReason: choice.finish_reason }),
        ...(reply.usage && { usage: { promptTokens: reply.usage.prompt_tokens, completionTokens: reply.usage.completion_tokens } }),
      };
    },

    async *stream(messages, chatOptions = {}) {
      const body = requestBody(messages, chatOptions);
      for await (const event of endpoint.stream(body, chatOptions.signal)) {
        const content = endpoint.parse(chatChunk, event).choices?.[0]?.delta?.content;
        if (content) yield content;
      }
    },
  };
}

function toOpenAiMessage(message: ChatMessage) {
  if (typeof message.content === "string") return { role: message.role, content: message.content };
  return {
    role: message.role,
    content: message.content.map((part) =>
      part.type === "text"
        ? { type: "text", text: part.text }
        : { type: "image_url", image_url: { url: `data:${part.image.mimeType};base64,${part.image.data.toString("base64")}` } },
    ),
  };
}
