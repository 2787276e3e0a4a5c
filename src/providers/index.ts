// Model providers behind the interfaces of src/spec/providers.ts; the rest of the engine imports them from here.
export * from "./lite/index.js";
export * from "./onnx/index.js";
export * from "./openai-compatible/index.js";
export * from "./runtime/index.js";
export * from "./models/index.js";
export * from "./transformers/index.js";
export * from "./sherpa/index.js";
export { chooseProviders, liteConfig, programExists, type ChooseProvidersOptions, type ProviderChoice } from "./registry.js";
export { diagnose, type Diagnosis } from "./doctor.js";
