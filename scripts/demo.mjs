#!/usr/bin/env node
// `npm run demo`: from a fresh clone to a cited answer. Installs what is missing (Debian packages, npm packages, the
// build), generates a few minutes of sample video into ./demo-media, ingests it into ./.videorag-demo and asks it a question.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createSteps, installPackages, root } from "./system-setup.mjs";

// One line per step on the terminal; what package managers and builds print goes to demo.log, named if a step fails.
const steps = createSteps({ name: "demo", logFile: join(root, "demo.log"), numbered: true });

/** A step whose output is the point of the demo: shown as it comes. */
function shownStep(message, command, args) {
  console.log(steps.label(message));
  const result = spawnSync(command, args, { stdio: "inherit", cwd: root });
  if (result.status !== 0) {
    console.error(`demo: ${message} failed`);
    process.exit(result.status ?? 1);
  }
}

const notInstalled = installPackages(steps, [
  "ffmpeg", "tesseract-ocr", "tesseract-ocr-eng", "pocketsphinx", "pocketsphinx-en-us", "espeak-ng", "fonts-dejavu-core",
]);
if (notInstalled) {
  console.error(`demo: ${notInstalled}`);
  process.exit(4);
}

if (!["better-sqlite3", "onnxruntime-node", "sqlite-vec"].every((name) => existsSync(join(root, "node_modules", name)))) {
  steps.run("installing npm packages (better-sqlite3 may compile for a minute or two)", "npm", ["install", "--no-audit", "--no-fund"]);
}
// Always build: a dist/ left from an older checkout would run old code.
steps.run("building", "npm", ["run", "build"]);

process.stdout.write(`${steps.label("generating sample videos in demo-media/ (slides, narration, subtitles)")} … `);
const { makeSampleMedia } = await import("./make-sample-media.mjs");
const made = makeSampleMedia(join(root, "demo-media"));
console.log(`${made.length} videos`);

const library = join(root, ".videorag-demo");
const cli = join(root, "bin", "videorag.js");
const ingested = JSON.parse(steps.run("ingesting them (subtitles, speech, screen text)", process.execPath, [cli, "ingest", "--json", "--library", library, join(root, "demo-media")]));
console.log(`    ${ingested.videos} videos, ${ingested.clips} clips, ${(ingested.hours * 60).toFixed(1)} minutes of video`);

const question = "Why did they reject pgvector?";
shownStep(`asking: ${question}`, process.execPath, [cli, "ask", "--library", library, question]);

shownStep("searching on-screen text: opening hours", process.execPath, [cli, "search", "--library", library, "--limit", "3", "opening hours"]);
console.log(`\nTry your own: node bin/videorag.js ask --library ${library} "how long should the dough rise?"`);
console.log(`Or in a browser: node bin/videorag.js serve --library ${library}   (then open http://127.0.0.1:7860)`);
