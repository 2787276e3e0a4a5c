// Screen text end to end: a deck of slides in one layout (black words on white at one place), as talks, lectures and
// lyrics videos show them, ingested and searched. Their pictures differ only in their words, which the 64-bit frame
// hash cannot see; every slide must still be read, at its own time.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { liteConfig } from "./providers/registry.js";
import { openLibrary } from "./library.js";
import { needsShared, sharedPath } from "./test-support/shared.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-screen-text-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
const needsTesseract = spawnSync("tesseract", ["--version"]).status === 0 ? false : "tesseract is not installed (apt-get install tesseract-ocr)";
const needs = needsShared || needsTesseract || (existsSync(font) ? false : `no font at ${font} to draw slides with`);

const slides = [
  "Harbor museum opens at nine",
  "Lighthouse exhibition on the third floor",
  "Tickets for adults cost twelve euros",
  "Guided tours leave every hour",
  "The cafe serves fresh pastries",
];
const slideSeconds = 6;
const cjkFont = ["/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf", "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"].find(existsSync) ?? "ipag.ttf";
const packs = needsTesseract ? [] : spawnSync("tesseract", ["--list-langs"], { encoding: "utf8" }).stdout.split("\n");
const needsJapanese = needs || (existsSync(cjkFont) ? false : `no Japanese font (apt-get install fonts-ipafont-gothic)`) ||
  (packs.includes("jpn") ? false : "tesseract has no Japanese pack (apt-get install tesseract-ocr-jpn)");

describe("a deck of slides in one layout", { skip: needs }, () => {
  test("every slide is read and found at its own time, keyframes at each slide or none", async () => {
    const shown = slides
      .map((text, index) => `drawtext=fontfile=${font}:text='${text}':fontsize=48:fontcolor=black:x=80:y=200:enable='between(t,${index * slideSeconds},${(index + 1) * slideSeconds - 0.05})'`)
      .join(",");
    const duration = slides.length * slideSeconds;
    const encode = (name: string, keyframes: string[]) => {
      const path = join(scratch, name);
      const made = spawnSync("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", `color=c=white:s=1280x720:r=10:d=${duration}`, "-vf", shown,
        "-c:v", "libx264", "-pix_fmt", "yuv420p", ...keyframes, path], { encoding: "utf8" });
      assert.equal(made.status, 0, made.stderr);
      return path;
    };
    // A keyframe where each slide starts (what a scene-cut encoder gives), and one keyframe only (sampled between).
    const keyed = encode("keyed.mp4", ["-force_key_frames", slides.map((_, index) => index * slideSeconds).join(",")]);
    const sparse = encode("sparse.mp4", ["-g", "1000", "-sc_threshold", "0"]);
    const library = await openLibrary({ path: join(scratch, "library"), modelsDir: sharedPath("models") });
    try {
      const report = await library.ingest([keyed, sparse]);
      assert.equal(report.failed, 0, JSON.stringify(report.results));
      for (const title of ["keyed.mp4", "sparse.mp4"]) {
        const screen = (await library.transcript(title)).segments.filter((segment) => segment.source === "screen");
        slides.forEach((text, index) => {
          const word = text.split(" ")[1] as string;
          const found = screen.find((segment) => segment.text.toLowerCase().includes(word.toLowerCase()));
          assert.ok(found, `${title}: slide ${index + 1} ("${text}") read; screen text: ${screen.map((segment) => `${segment.startSecond}: ${segment.text}`).join(" | ")}`);
          assert.ok(found.startSecond >= index * slideSeconds - 0.5 && found.startSecond < (index + 1) * slideSeconds, `${title}: "${text}" from ${found.startSecond} s`);
        });
      }
      const [hit] = await library.search("guided tours every hour");
      assert.match(hit?.text ?? "", /Guided tours leave every hour/i, JSON.stringify(hit));
    } finally {
      await library.close();
    }
  });
});

describe("Japanese slides in a library that reads English and Japanese", { skip: needsJapanese }, () => {
  test("the slide is read with the Japanese pack first, its line whole, and a two-character word in it is found", async () => {
    const line = "エラーメッセージはローカルシステムの問題です";
    const path = join(scratch, "nihongo.mp4");
    const made = spawnSync("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=1280x720:r=2:d=8",
      "-vf", `drawtext=fontfile=${cjkFont}:text='${line}':fontsize=48:fontcolor=black:x=80:y=200`, "-c:v", "libx264", "-pix_fmt", "yuv420p", path], { encoding: "utf8" });
    assert.equal(made.status, 0, made.stderr);
    const config = liteConfig();
    // English first, as a user who mostly watches English adds a pack: the video's language is not known beforehand.
    config.models.ocr = { provider: "tesseract", languages: ["eng", "jpn"] };
    const library = await openLibrary({ path: join(scratch, "japanese"), config, modelsDir: sharedPath("models") });
    try {
      assert.equal((await library.ingest([path])).failed, 0);
      const screen = (await library.transcript("nihongo.mp4")).segments.filter((segment) => segment.source === "screen");
      assert.ok(screen.some((segment) => segment.text.replace(/\s/g, "").includes("ローカルシステム")), screen.map((segment) => segment.text).join(" | "));
      const [hit] = await library.search("問題");
      assert.equal(hit?.title, "nihongo.mp4");
    } finally {
      await library.close();
    }
  });
});
