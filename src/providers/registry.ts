// Picks the providers for each stage from the options and what is installed, and says what falls back or is off.

import { spawn } from "node:child_process";
import type { OcrEngine, Transcriber, Warning } from "../spec/index.js";
import { createPocketsphinxTranscriber, createTesseractOcr } from "./lite/index.js";

export interface ProviderChoice {
  ocr?: OcrEngine;
  transcriber?: Transcriber;
  warnings: Warning[];
  /** One line per stage naming what runs it, e.g. "speech: pocketsphinx (lite)". */
  summary: string[];
}

/** True when the program starts; its exit status does not matter (some print usage and exit 1). */
export function programExists(program: string, args: string[] = ["--version"]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(program, args, { stdio: "ignore" });
    child.on("error", () => resolve(false));
    child.on("close", () => resolve(true));
  });
}

export async function chooseLiteProviders(options: { ocr: boolean; speech: boolean }): Promise<ProviderChoice> {
  const choice: ProviderChoice = { warnings: [], summary: [] };
  if (!options.ocr) {
    choice.summary.push("screen text: off");
  } else if (await programExists("tesseract")) {
    choice.ocr = createTesseractOcr();
    choice.summary.push(`screen text: ${choice.ocr.id} (lite)`);
  } else {
    choice.warnings.push({ type: "fallback", feature: "ocr", detail: "tesseract is not installed (apt-get install tesseract-ocr tesseract-ocr-eng): screen text and bitmap subtitles are skipped" });
    choice.summary.push("screen text: off (tesseract missing)");
  }
  if (!options.speech) {
    choice.summary.push("speech: off");
  } else if (await programExists("pocketsphinx_continuous", ["-h"])) {
    choice.transcriber = createPocketsphinxTranscriber();
    choice.summary.push(`speech: ${choice.transcriber.id} (lite)`);
  } else {
    choice.warnings.push({ type: "fallback", feature: "speech", detail: "pocketsphinx is not installed (apt-get install pocketsphinx pocketsphinx-en-us): videos without subtitles get no transcript" });
    choice.summary.push("speech: off (pocketsphinx missing)");
  }
  return choice;
}
