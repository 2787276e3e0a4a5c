// The vocabulary of videorag: types and errors only, no I/O.
export * from "./errors.js";
export * from "./vocabulary.js";
export type * from "./model.js";
export type * from "./providers.js";
export type * from "./store.js";
export type * from "./store-parts.js";
export type * from "./graph.js";
