// Providers for any server that speaks the OpenAI HTTP API: OpenAI itself, vLLM, llama.cpp, Ollama, LM Studio, LocalAI.
export { createOpenAiEmbedder, type OpenAiEmbedderOptions } from "./openai-embedder.js";
export type { OpenAiConnectionOptions } from "./openai-endpoint.js";
export { createOpenAiLanguageModel, type OpenAiLanguageModelOptions } from "./openai-language-model.js";
export { createOpenAiTranscriber, type OpenAiTranscriberOptions } from "./openai-transcriber.js";
