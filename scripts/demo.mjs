#!/usr/bin/env node
// `npm run demo`: from a fresh clone to a cited answer. Installs what is missing (Debian packages, npm packages, the
// build), generates a few minutes of sample video into ./demo-media, ingests it into ./.videorag-demo and asks it a question.
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const aptPackages = {
  ffmpeg: "ffmpeg",
  tesseract: "tesseract-ocr tesseract-ocr-eng",
  pocketsphinx_continuous: "pocketsphinx pocketsphinx-en-us",
  "espeak-ng": "espeak-ng",
};

function has(program) {
  return !spawnSync(program, ["--version"], { stdio: "ignore" }).error;
}

// One line per step on the terminal; what package managers and builds print goes to demo.log, named if a step fails.
const logFile = join(root, "demo.log");
writeFileSync(logFile, "");
let stepNumber = 0;

/** Runs a step with its output in demo.log; prints one line, and on failure the log's last lines and where it is. */
function quietStep(message, command, args, options = {}) {
  const started = Date.now();
  process.stdout.write(`[${++stepNumber}] ${message} … `);
  appendFileSync(logFile, `\n== ${message}: ${command} ${args.join(" ")}\n`);
  const result = spawnSync(command, args, { cwd: root, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, ...options });
  appendFileSync(logFile, `${result.stdout ?? ""}${result.stderr ?? ""}`);
  if (result.status !== 0) {
    console.log("failed");
    const tail = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim().split("\n").slice(-15).join("\n");
    if (tail) console.error(tail);
    console.error(`demo: ${message} failed${result.error ? ` (${result.error.message})` : ""}; the whole output is in ${logFile}`);
    process.exit(result.status ?? 1);
  }
  console.log(`done (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  return result.stdout ?? "";
}

/** A step whose output is the point of the demo: shown as it comes. */
function shownStep(message, command, args) {
  console.log(`[${++stepNumber}] ${message}`);
  const result = spawnSync(command, args, { stdio: "inherit", cwd: root });
  if (result.status !== 0) {
    console.error(`demo: ${message} failed`);
    process.exit(result.status ?? 1);
  }
}

const missing = Object.entries(aptPackages).filter(([program]) => !has(program));
const fontMissing = !existsSync("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf");
if (missing.length > 0 || fontMissing) {
  const packages = [...missing.map(([, names]) => names), fontMissing ? "fonts-dejavu-core" : ""].join(" ").split(/\s+/).filter(Boolean);
  const asRoot = process.getuid?.() === 0;
  if (!asRoot && !has("sudo")) {
    console.error(`demo: please install: apt-get install ${packages.join(" ")}`);
    process.exit(4);
  }
  const prefix = asRoot ? [] : ["sudo"];
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const apt = (message, args) => quietStep(message, prefix[0] ?? args[0], prefix.length ? args : args.slice(1), { env });
  apt("updating the Debian package lists", ["apt-get", "update", "-qq"]);
  apt(`installing ${packages.join(" ")}`, ["apt-get", "install", "-y", "-qq", ...packages]);
}

if (!["better-sqlite3", "onnxruntime-node", "sqlite-vec"].every((name) => existsSync(join(root, "node_modules", name)))) {
  quietStep("installing npm packages (better-sqlite3 may compile for a minute or two)", "npm", ["install", "--no-audit", "--no-fund"]);
}
// Always build: a dist/ left from an older checkout would run old code.
quietStep("building", "npm", ["run", "build"]);

process.stdout.write(`[${++stepNumber}] generating sample videos in demo-media/ (slides, narration, subtitles) … `);
const { makeSampleMedia } = await import("./make-sample-media.mjs");
const made = makeSampleMedia(join(root, "demo-media"));
console.log(`${made.length} videos`);

const library = join(root, ".videorag-demo");
const cli = join(root, "bin", "videorag.js");
const ingested = JSON.parse(quietStep("ingesting them (subtitles, speech, screen text)", process.execPath, [cli, "ingest", "--json", "--library", library, join(root, "demo-media")]));
console.log(`    ${ingested.videos} videos, ${ingested.clips} clips, ${(ingested.hours * 60).toFixed(1)} minutes of video`);

const question = "Why did they reject pgvector?";
shownStep(`asking: ${question}`, process.execPath, [cli, "ask", "--library", library, question]);

shownStep("searching on-screen text: opening hours", process.execPath, [cli, "search", "--library", library, "--limit", "3", "opening hours"]);
console.log(`\nTry your own: node bin/videorag.js ask --library ${library} "how long should the dough rise?"`);
console.log(`Or in a browser: node bin/videorag.js serve --library ${library}   (then open http://127.0.0.1:7860)`);
