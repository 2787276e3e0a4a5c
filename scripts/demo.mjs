#!/usr/bin/env node
// `npm run demo`: from a fresh clone to a cited answer. Installs what is missing (Debian packages, npm packages, the
// build), generates a few minutes of sample video into ./demo-media, ingests it into ./.videorag-demo and asks it a question.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
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

function step(message) {
  console.log(`\n== ${message}`);
}

function sh(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: "inherit", cwd: root, ...options });
  if (result.status !== 0) {
    console.error(`demo: ${command} ${args.join(" ")} failed`);
    process.exit(result.status ?? 1);
  }
}

const missing = Object.entries(aptPackages).filter(([program]) => !has(program));
const fontMissing = !existsSync("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf");
if (missing.length > 0 || fontMissing) {
  const packages = [...missing.map(([, names]) => names), fontMissing ? "fonts-dejavu-core" : ""].join(" ").split(/\s+/).filter(Boolean);
  step(`installing Debian packages: ${packages.join(" ")}`);
  const asRoot = process.getuid?.() === 0;
  if (!asRoot && !has("sudo")) {
    console.error(`demo: please install: apt-get install ${packages.join(" ")}`);
    process.exit(4);
  }
  const prefix = asRoot ? [] : ["sudo"];
  const run = (args) => sh(prefix[0] ?? args[0], prefix.length ? args : args.slice(1), { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  run(["apt-get", "update", "-qq"]);
  run(["apt-get", "install", "-y", "-qq", ...packages]);
}

if (!["better-sqlite3", "onnxruntime-node", "sqlite-vec"].every((name) => existsSync(join(root, "node_modules", name)))) {
  step("installing npm packages (better-sqlite3 may compile for a minute or two)");
  sh("npm", ["install", "--no-audit", "--no-fund"]);
}
// Always build: a dist/ left from an older checkout would run old code.
step("building");
sh("npm", ["run", "build"]);

step("generating sample videos in demo-media/ (slides, narration, subtitles)");
const { makeSampleMedia } = await import("./make-sample-media.mjs");
const made = makeSampleMedia(join(root, "demo-media"));
for (const video of made) console.log(`  ${video.path}`);

const library = join(root, ".videorag-demo");
const cli = join(root, "bin", "videorag.js");
step("ingesting (subtitles, speech, screen text)");
sh(process.execPath, [cli, "ingest", "--library", library, join(root, "demo-media")]);

const question = "Why did they reject pgvector?";
step(`asking: ${question}`);
sh(process.execPath, [cli, "ask", "--library", library, question]);

step("searching on-screen text: opening hours");
sh(process.execPath, [cli, "search", "--library", library, "--limit", "3", "opening hours"]);
console.log(`\nTry your own: node bin/videorag.js ask --library ${library} "how long should the dough rise?"`);
console.log(`Or in a browser: node bin/videorag.js serve --library ${library}   (then open http://127.0.0.1:7860)`);
