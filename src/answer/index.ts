// Answers: evidence → text with validated citations; the extractive answer needs no model.
export * from "./citation-format.js";
export * from "./extractive-answer.js";
