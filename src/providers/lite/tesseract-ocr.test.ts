// Tesseract OCR provider: reads generated slides and real bitmap subtitles, and stays silent on natural frames.

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { VideoRagError } from "../../spec/errors.js";
import { needsShared, sharedPath } from "../../test-support/shared.js";
import { createTesseractOcr, parseTesseractTsv } from "./tesseract-ocr.js";

const needsTesseract = spawnSync("tesseract", ["--version"]).error ? "tesseract is not installed" : false;
const fontFile = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
const needsFont = needsTesseract || (existsSync(fontFile) ? false : `no font at ${fontFile} to draw a test slide with`);

/** Runs ffmpeg and returns the PNG it writes to stdout. */
function ffmpegPng(args: string[]): Buffer {
  return execFileSync("ffmpeg", ["-loglevel", "error", ...args, "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "-"], {
    maxBuffer: 64 * 1024 * 1024,
  });
}

function drawText(text: string, fontSize: number, x: number, y: number, colour = "black"): string {
  return `drawtext=fontfile=${fontFile}:text='${text}':fontsize=${fontSize}:fontcolor=${colour}:x=${x}:y=${y}`;
}

test("parseTesseractTsv keeps confident text lines and drops frame noise", () => {
  const header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext";
  const word = (block: number, line: number, confidence: number, text: string) =>
    `5\t1\t${block}\t1\t${line}\t1\t0\t0\t10\t10\t${confidence}\t${text}`;
  const tsv = [
    header,
    "1\t1\t0\t0\t0\t0\t0\t0\t1280\t720\t-1\t",
    word(1, 1, 96.1, "Quarterly"),
    word(1, 1, 95.3, "Revenue"),
    word(2, 1, 84, "|"),
    word(3, 1, 41, "~"),
    word(3, 1, 48, "ee"),
    word(4, 1, 62, "Sa"),
    word(5, 1, 30, "Tadedese"),
    word(6, 1, 70, "=)(“"),
    word(7, 1, 93, "Step"),
    word(7, 1, 92, "3"),
    word(7, 1, 91, "-"),
    word(8, 1, 90, "OK"),
  ].join("\n");
  assert.deepEqual(parseTesseractTsv(tsv), [
    { text: "Quarterly Revenue", confidence: 95.7 },
    { text: "Step 3", confidence: 92.5 },
    { text: "OK", confidence: 90 },
  ]);
});

test("Chinese and Japanese words of a line are joined without spaces; Korean and Latin words keep theirs", () => {
  const header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext";
  const line = (block: number, words: string[]) => words.map((text) => `5\t1\t${block}\t1\t1\t1\t0\t0\t10\t10\t90\t${text}`);
  const tsv = [header, ...line(1, ["第", "个", "参", "数", "类型"]), ...line(2, ["東京", "の", "天気"]), ...line(3, ["서울", "날씨"]), ...line(4, ["加", "速", "GtkTreeView", "部", "行"])].join("\n");
  assert.deepEqual(parseTesseractTsv(tsv).map((found) => found.text), ["第个参数类型", "東京の天気", "서울 날씨", "加速 GtkTreeView 部行"]);
});

test("reads the words of a generated 1280x720 slide", { skip: needsFont }, async () => {
  const slide = ffmpegPng([
    "-f", "lavfi", "-i", "color=white:s=1280x720",
    "-vf",
    [
      drawText("Quarterly Revenue Growth", 60, 100, 100),
      drawText("Kubernetes deployment pipeline", 40, 100, 300),
      drawText("Step 3 configure the database", 36, 600, 550),
    ].join(","),
  ]);
  const lines = await createTesseractOcr().recognize({ data: slide, mimeType: "image/png" });
  assert.deepEqual(
    lines.map((line) => line.text),
    ["Quarterly Revenue Growth", "Kubernetes deployment pipeline", "Step 3 configure the database"],
  );
  for (const line of lines) assert.ok(line.confidence > 80, `${line.text}: ${line.confidence}`);
});

const needsGerman = needsFont || (needsTesseract ? false : execFileSync("tesseract", ["--list-langs"]).toString("utf8").split("\n").includes("deu") ? false : "tesseract has no German pack (apt-get install tesseract-ocr-deu)");

test("a German slide is read with the German pack: configured, or because the text is known to be German", { skip: needsGerman }, async () => {
  const slide = ffmpegPng(["-f", "lavfi", "-i", "color=white:s=1280x720", "-vf", [drawText("Größenänderung der Häuser", 60, 100, 200), drawText("Schlüssel übergeben", 48, 100, 400)].join(",")]);
  const image = { data: slide, mimeType: "image/png" as const };
  const expected = ["Größenänderung der Häuser", "Schlüssel übergeben"];
  const german = createTesseractOcr({ language: "deu+eng" });
  assert.equal(german.id, "tesseract:deu+eng");
  assert.deepEqual((await german.recognize(image)).map((line) => line.text), expected);
  // English alone misreads the umlauts and the ß.
  const english = createTesseractOcr({ language: "eng", installed: ["eng", "deu"] });
  assert.notDeepEqual((await english.recognize(image)).map((line) => line.text), expected);
  // English configured, German installed: text known to be German (a subtitle stream's tag) is read with German first.
  assert.deepEqual((await english.recognize(image, { language: "de" })).map((line) => line.text), expected);
});

test("reads light text on a dark slide, columns merged into reading order", { skip: needsFont }, async () => {
  const slide = ffmpegPng([
    "-f", "lavfi", "-i", "color=0x1e2a44:s=1280x720",
    "-vf",
    [
      drawText("Gradient Descent", 56, 80, 60, "white"),
      drawText("learning rate controls step size", 30, 80, 200, "white"),
      drawText("Adam optimizer", 30, 800, 200, "yellow"),
    ].join(","),
  ]);
  const text = (await createTesseractOcr().recognize({ data: slide, mimeType: "image/png" }, { mode: "screen" }))
    .map((line) => line.text)
    .join("\n");
  for (const expected of ["Gradient Descent", "learning rate controls step size", "Adam optimizer"]) {
    assert.ok(text.includes(expected), `${expected} missing from ${JSON.stringify(text)}`);
  }
});

test("a natural frame without text yields no lines", { skip: needsShared || needsTesseract }, async () => {
  const ocr = createTesseractOcr();
  for (const second of [10, 25]) {
    const frame = ffmpegPng(["-ss", String(second), "-i", sharedPath("media/surveillance/bottle-detection.mp4")]);
    assert.deepEqual(await ocr.recognize({ data: frame, mimeType: "image/png", timeSecond: second }), [], `at ${second} s`);
  }
  // Pedestrians from above: psm 11 read a dozen noise words per frame here ("|", "=", "ae", "Tadedese").
  const crowd = ffmpegPng(["-ss", "17", "-i", sharedPath("media/surveillance/vtest.avi")]);
  assert.deepEqual(await ocr.recognize({ data: crowd, mimeType: "image/png" }), []);
});

test("subtitle mode reads a rendered Blu-ray (PGS) subtitle", { skip: needsShared || needsTesseract }, async () => {
  // The cue "Nonono! Don't drop me now!" runs 43.868-44.968 s; overlaying on black keeps only the subtitle.
  const image = ffmpegPng([
    "-ss", "43",
    "-i", sharedPath("media/subtitled/popeye_pgs.mkv"),
    "-filter_complex", "[0:v]drawbox=c=black:t=fill[bg];[bg][0:s]overlay,crop=iw:ih/3:0:ih*2/3",
    "-ss", "1.3",
  ]);
  const lines = await createTesseractOcr().recognize({ data: image, mimeType: "image/png" }, { mode: "subtitle" });
  assert.deepEqual(
    lines.map((line) => line.text),
    ["Nonono! Don't drop me now!"],
  );
});

test("a missing tesseract program is TOOL_MISSING with the install command", async () => {
  const ocr = createTesseractOcr({ binary: "/nonexistent/tesseract" });
  await assert.rejects(ocr.recognize({ data: Buffer.from("not an image"), mimeType: "image/png" }), (error) => {
    assert.ok(VideoRagError.isInstance(error));
    assert.equal(error.code, "TOOL_MISSING");
    assert.match(error.message, /apt-get install tesseract-ocr tesseract-ocr-eng/);
    return true;
  });
});

test("bytes tesseract cannot decode are TOOL_FAILED", { skip: needsTesseract }, async () => {
  await assert.rejects(
    createTesseractOcr().recognize({ data: Buffer.from("not an image"), mimeType: "image/png" }),
    (error) => VideoRagError.isInstance(error) && error.code === "TOOL_FAILED",
  );
});

test("an aborted signal stops the work with INTERRUPTED", { skip: needsFont }, async () => {
  const slide = ffmpegPng(["-f", "lavfi", "-i", "color=white:s=1280x720", "-vf", drawText("Cancelled", 60, 100, 100)]);
  const controller = new AbortController();
  const pending = createTesseractOcr().recognize({ data: slide, mimeType: "image/png" }, { signal: controller.signal });
  controller.abort();
  await assert.rejects(pending, (error) => VideoRagError.isInstance(error) && error.code === "INTERRUPTED");
});
