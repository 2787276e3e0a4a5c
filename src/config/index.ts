// Configuration: which model runs each stage, from videorag.config.json and the environment.
export * from "./config-schema.js";
export * from "./load-config.js";
