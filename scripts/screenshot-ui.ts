// Screenshots of the web UI for people to look at: a small library (friday.mp4 and popeye_vobsub.mkv from ../shared,
// and a meeting made here whose WebVTT subtitles name who speaks), the server on a free port, and full-page PNGs of the
// Library (with its topics), Ask (after an answer), Search and Video pages (one on an entity and a line of text, one on
// a chapter with a question answered about the video, and the meeting's: its speakers, one renamed in place, an answer
// citing who speaks, and a name being edited), and Ask on the meeting, at a laptop size and a phone size; then, on an
// incremental library (jfk.wav's speech left for question time), Ask with the preliminary answer shown while its clip is
// extracted and with the final one that replaced it. Needs `npm run build:web` first, ffmpeg, and Chromium at
// /usr/bin/chromium (or $CHROMIUM).
//
//   node --import tsx scripts/screenshot-ui.ts <outdir>

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { openLibrary } from "../src/library.js";
import { startServer } from "../src/server/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { runCli } from "../src/test-support/cli.js";
import { makeMeeting, meetingCues } from "../src/test-support/meeting.js";
import { needsShared, sharedPath } from "../src/test-support/shared.js";

const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const root = new URL("..", import.meta.url).pathname;
/** The meeting's voices, with one line more of Ravi's than the tests' meeting. */
const meetingLines = [...meetingCues.slice(0, 4), ["Ravi", 20, 23, "Most of them ingest on a laptop on the train."] as const, ["Sam", 24, 28, "Then SQLite it is, one file per library."] as const, ["Dana", 29, 34, "Agreed. The budget is approved and the meeting is closed."] as const];
const makeScreenshotMeeting = (folder: string): string => makeMeeting(folder, { cues: meetingLines, color: "0x34495e", size: "640x360" });

/** A Matroska film with English and German subtitle streams: its lines in German are marked as such. */
function makeTwoLanguageFilm(folder: string): string {
  const srt = (name: string, lines: string[]) => {
    const path = join(folder, name);
    writeFileSync(path, lines.map((line, index) => `${index + 1}\n00:00:0${index * 3},000 --> 00:00:0${index * 3 + 2},500\n${line}\n`).join("\n"));
    return path;
  };
  const english = srt("harbour.en.srt", ["The lighthouse keeper lights the lamp", "A storm is coming over the bay", "Ships wait in the harbour"]);
  const german = srt("harbour.de.srt", ["Der Leuchtturmwärter zündet die Lampe an", "Ein Sturm zieht über die Bucht", "Schiffe warten im Hafen"]);
  const film = join(folder, "harbour.mkv");
  execFileSync("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x1f4e79:s=640x360:r=10:d=10", "-i", english, "-i", german, "-map", "0", "-map", "1", "-map", "2",
    "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:s", "srt", "-metadata:s:s:0", "language=eng", "-metadata:s:s:1", "language=ger", film]);
  // Beside the film the files would be its sidecars: only the streams are to be read.
  rmSync(english);
  rmSync(german);
  return film;
}

const sizes = [
  { name: "laptop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
];

async function main(): Promise<void> {
  const outDir = process.argv[2];
  if (!outDir) throw new Error("usage: node --import tsx scripts/screenshot-ui.ts <outdir>");
  if (needsShared) throw new Error(needsShared);
  if (!existsSync(chromiumPath)) throw new Error(`no Chromium at ${chromiumPath} (set $CHROMIUM)`);
  if (!existsSync(join(root, "dist/web/index.html"))) throw new Error("the web UI is not built: run npm run build:web");
  mkdirSync(outDir, { recursive: true });

  const scratch = mkdtempSync(join(tmpdir(), "videorag-shots-"));
  const libraryPath = join(scratch, "library");
  // A second meeting, the stand-up, where Dana speaks too: with voice vectors kept for both, her speakers row proposes it.
  const standupFolder = join(scratch, "standup");
  mkdirSync(standupFolder);
  makeMeeting(standupFolder, { cues: meetingCues.slice(0, 3), color: "0x2c3e50", size: "640x360" });
  renameSync(join(standupFolder, "meeting.mp4"), join(standupFolder, "standup.mp4"));
  renameSync(join(standupFolder, "meeting.vtt"), join(standupFolder, "standup.vtt"));
  const media = [sharedPath("media/subtitled/friday.mp4"), sharedPath("media/subtitled/popeye_vobsub.mkv"), makeScreenshotMeeting(scratch), join(standupFolder, "standup.mp4"), makeTwoLanguageFilm(scratch)];
  const ingest = runCli(scratch, ["ingest", "--library", libraryPath, "--no-visual", ...media]);
  if (ingest.status !== 0) throw new Error(`ingest failed:\n${ingest.stderr}`);
  const store = openSqliteStore(join(libraryPath, "library.sqlite"));
  const titled = new Map((await store.listVideos()).map((video) => [video.title, video.id]));
  const voice = (label: string, vector: number[]) => ({ label, turns: [[1, 5]] as [number, number][], vector: Float32Array.from(vector, (value) => value / Math.hypot(...vector)) });
  await store.setSpeakerVoices(titled.get("meeting.mp4") ?? "", { key: "screenshots", voices: [voice("Dana", [1, 0.1, 0]), voice("Sam", [0, 1, 0]), voice("Ravi", [0, 0, 1])] });
  await store.setSpeakerVoices(titled.get("standup.mp4") ?? "", { key: "screenshots", voices: [voice("Dana", [0.95, 0.2, 0.05]), voice("Sam", [0.1, 0.2, 1])] });
  await store.close();

  const library = await openLibrary({ path: libraryPath });
  const server = await startServer({ library, port: 0 });
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--autoplay-policy=no-user-gesture-required"],
  });
  try {
    const popeye = (await library.list()).find((video) => video.title === "popeye_vobsub.mkv");
    const meeting = (await library.list()).find((video) => video.title === "meeting.mp4");
    const harbour = (await library.list()).find((video) => video.title === "harbour.mkv");
    for (const size of sizes) {
      const page = await browser.newPage({ viewport: { width: size.width, height: size.height }, deviceScaleFactor: 1 });
      page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
      const shot = async (name: string) => {
        // The pointer left where the last click was would draw a hover on whatever is there now.
        await page.mouse.move(0, 0);
        await settle(page);
        const file = resolve(outDir, `${name}-${size.name}.png`);
        await page.screenshot({ path: file, fullPage: true });
        console.log(file);
      };

      await page.goto(`${server.url}/#/`);
      await page.locator(".video-card .badge").first().waitFor();
      await page.locator(".topic").first().waitFor();
      await shot("library");

      await page.goto(`${server.url}/#/ask`);
      await page.getByLabel("Question").fill("what did he say about the crown jewels?");
      await page.getByLabel("Question").press("Enter");
      await page.locator(".citation-chip").first().click();
      await page.locator('.moment-player[data-state="ended"]').waitFor({ timeout: 60_000 });
      await shot("ask");

      await page.goto(`${server.url}/#/search?q=${encodeURIComponent("biggest buzzard")}`);
      await page.locator(".moment").first().waitFor();
      await page.locator(".moment-title").first().click();
      await page.locator('.moment-player[data-state="ended"]').waitFor({ timeout: 90_000 });
      await shot("search");

      await page.goto(`${server.url}/#/videos/${popeye?.id ?? ""}`);
      await page.locator(".entity-chips .chip", { hasText: "Popeye" }).first().click();
      await page.locator(".entity h3").waitFor();
      await page.locator(".transcript-line", { hasText: "biggest buzzard" }).click();
      await page.locator('.transcript-line[aria-current="true"]').waitFor();
      await page.waitForFunction("document.querySelector('video.main-player').currentTime > 57.5");
      await page.evaluate("document.querySelector('video.main-player').pause()");
      // A full-page picture of a scrolled page would draw the sticky player where the scroll left it.
      await page.evaluate("scrollTo(0, 0)");
      await shot("video");

      await page.goto(`${server.url}/#/videos/${popeye?.id ?? ""}`);
      await page.locator(".summary-sentences li").first().waitFor();
      await page.locator(".chapter-line").nth(1).click();
      await page.locator('.chapter-line[aria-current="true"]').nth(0).waitFor();
      await page.getByLabel("Ask about this video").fill("what happened to the ship?");
      await page.getByLabel("Ask about this video").press("Enter");
      await page.locator(".video-question .answer-footer").waitFor({ timeout: 30_000 });
      await page.waitForFunction("document.querySelector('video.main-player').currentTime > 55");
      await page.evaluate("document.querySelector('video.main-player').pause()");
      await page.evaluate("scrollTo(0, 0)");
      await shot("video-chapters");

      // The meeting: Sam renamed in place (the names are cleared first, so each size starts from the labels), then a
      // question whose citation names who speaks.
      for (const label of ["Sam", "Ravi"]) await library.renameSpeaker(meeting?.id ?? "", label, null);
      await page.goto(`${server.url}/#/videos/${meeting?.id ?? ""}`);
      await page.locator(".speakers .speaker-row").first().waitFor();
      await page.locator('.speakers .speaker-name[data-label="Sam"]').click();
      await page.getByLabel("Name for Sam").fill("Sam Okafor");
      await page.getByLabel("Name for Sam").press("Enter");
      await page.locator('.transcript .speaker-name[data-label="Sam"]', { hasText: "Sam Okafor" }).first().waitFor();
      await page.getByLabel("Ask about this video").fill("who suggested Postgres?");
      await page.getByLabel("Ask about this video").press("Enter");
      await page.locator(".video-question .answer-footer").waitFor({ timeout: 30_000 });
      await page.evaluate("scrollTo(0, 0)");
      await shot("video-speakers");

      // On the Ask page, the citation chip and the moment playing name who speaks.
      await page.goto(`${server.url}/#/ask`);
      await page.getByLabel("Question").fill("who suggested Postgres?");
      await page.getByLabel("Question").press("Enter");
      await page.locator(".citation-chip", { hasText: "Sam Okafor" }).first().click();
      await page.locator('.moment-player[data-state="ended"]').waitFor({ timeout: 60_000 });
      await shot("ask-speakers");

      // A name being edited in the text, not saved yet.
      await page.goto(`${server.url}/#/videos/${meeting?.id ?? ""}`);
      await page.locator('.transcript .speaker-name[data-label="Ravi"]').first().waitFor();
      await page.locator('.transcript .speaker-name[data-label="Ravi"]').first().click();
      await page.getByLabel("Name for Ravi").fill("Ravi Patel");
      await page.evaluate("scrollTo(0, 0)");
      await settle(page);
      const file = resolve(outDir, `video-speakers-rename-${size.name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(file);

      // A film with subtitle streams in two languages: the lines not in the video's language say theirs.
      await page.goto(`${server.url}/#/videos/${harbour?.id ?? ""}`);
      await page.locator(".transcript .transcript-line").first().waitFor();
      await shot("video-languages");
      await page.close();
    }
    await preliminaryShots(browser, scratch, outDir);
  } finally {
    await browser.close();
    await server.close();
    await library.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Ask on an incremental library, at each size: the preliminary answer while the question's clip is extracted, then the
 * final one. Each size gets its own library, since a question extracts its clip once.
 */
async function preliminaryShots(browser: Browser, scratch: string, outDir: string): Promise<void> {
  for (const size of sizes) {
    const libraryPath = join(scratch, `incremental-${size.name}`);
    const ingest = runCli(scratch, ["ingest", "--incremental", "--library", libraryPath, sharedPath("media/audio/jfk.wav"), sharedPath("media/subtitled/friday.mp4")]);
    if (ingest.status !== 0) throw new Error(`incremental ingest failed:\n${ingest.stderr}`);
    const library = await openLibrary({ path: libraryPath });
    const server = await startServer({ library, port: 0 });
    const page = await browser.newPage({ viewport: { width: size.width, height: size.height }, deviceScaleFactor: 1 });
    try {
      await page.goto(`${server.url}/#/ask`);
      await page.getByLabel("Question").fill("ask not what your country can do for you");
      await page.getByLabel("Question").press("Enter");
      await page.getByLabel("Preliminary answer").waitFor({ timeout: 30_000 });
      for (const [name, ready] of [
        ["ask-preliminary", page.getByLabel("Preliminary answer")],
        ["ask-final", page.locator(".answer-footer")],
      ] as const) {
        await ready.waitFor({ timeout: 60_000 });
        const file = resolve(outDir, `${name}-${size.name}.png`);
        await page.screenshot({ path: file, fullPage: true });
        console.log(file);
      }
    } finally {
      await page.close();
      await server.close();
      await library.close();
    }
  }
}

/** Waits for the pictures to load and the layout to rest. */
async function settle(page: Page): Promise<void> {
  await page.waitForFunction("[...document.images].every((image) => image.complete)", undefined, { timeout: 30_000 });
  await page.waitForTimeout(300);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
