// Model providers behind the interfaces of src/spec/providers.ts; the rest of the engine imports them from here.
export * from "./lite/index.js";
