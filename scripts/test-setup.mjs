#!/usr/bin/env node
// First step of `npm test`: installs what the whole suite needs from the system where it is missing, one line per step,
// apt-get's and make's output in test-setup.log. Where it cannot (no root or sudo, not Debian) it says so once and
// exits 0: the tests that need what is missing skip and say why.
import { join } from "node:path";
import { createSteps, installPackages, installPgvector, root } from "./system-setup.mjs";

const packages = [
  // Media: decoding, on-screen text (English; German and Japanese for the tests of language packs), speech,
  // generated narration and the fonts of generated slides (a small Japanese one among them).
  "ffmpeg", "tesseract-ocr", "tesseract-ocr-eng", "tesseract-ocr-deu", "tesseract-ocr-jpn", "pocketsphinx", "pocketsphinx-en-us", "espeak-ng",
  "fonts-dejavu-core", "fonts-ipafont-gothic",
  // The web UI is tested in a real browser (Playwright cannot download its own here).
  "chromium",
  // The Postgres store and the job queue are tested against real servers the tests start (never Debian's default
  // cluster); the server headers, make and gcc build pgvector.
  "postgresql-15", "postgresql-server-dev-15", "redis-server", "make", "gcc",
];

const steps = createSteps({ name: "test setup", logFile: join(root, "test-setup.log") });
const notInstalled = [installPackages(steps, packages), installPgvector(steps)].filter(Boolean);
for (const reason of notInstalled) console.log(`! ${reason}`);
if (notInstalled.length > 0) console.log("  The tests that need what is missing skip and say why.");
