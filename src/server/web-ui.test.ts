// The web UI in a real browser: Debian's Chromium, driven by playwright-core, against a running server on real media.
// A question's answer streams in and its citation chip plays the cited moment in the page (an H.264 MP4 as it is, and
// an HEVC MKV with bitmap subtitles transcoded by the server); a video's page lists its chapters and marks them on the
// timeline, each seeking the player, and answers a question about that video alone; an upload through the page's file
// input shows its progress, lands in the library and is found by a search; a server with a token asks for it, then
// lets the page in; a meeting's page names who speaks in its text and renames a speaker in place; on an incremental
// library the preliminary answer shows, dimmed, until the final one replaces it.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { chromium, type Page } from "playwright-core";
import { openLibrary } from "../library.js";
import { formatTimestamp } from "../text/citation-format.js";
import { runCli } from "../test-support/cli.js";
import { makeMeeting, meetingCues } from "../test-support/meeting.js";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { startServer } from "./index.js";

const chromiumPath = "/usr/bin/chromium";
const webIndex = new URL("../../dist/web/index.html", import.meta.url).pathname;
const skip: string | false = !existsSync(chromiumPath)
  ? `no Chromium at ${chromiumPath} (Debian: apt-get install chromium)`
  : needsShared || (existsSync(webIndex) ? false : "the web UI is not built: run npm run build:web");
if (skip) console.log(`# web UI tests skipped: ${skip}`);

const scratch = mkdtempSync(join(tmpdir(), "videorag-web-ui-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const subtitledLibrary = join(scratch, "subtitled");
const meetingLibrary = join(scratch, "meeting");
const incrementalLibrary = join(scratch, "incremental");

before(() => {
  if (skip) return;
  const media = [sharedPath("media/subtitled/friday.mp4"), sharedPath("media/subtitled/popeye_vobsub.mkv")];
  const ingest = runCli(scratch, ["ingest", "--library", subtitledLibrary, "--no-visual", ...media]);
  assert.equal(ingest.status, 0, ingest.stderr);
  // A meeting: a grey picture, and subtitles that name who speaks.
  const meeting = makeMeeting(scratch);
  const meetingIngest = runCli(scratch, ["ingest", "--library", meetingLibrary, "--no-visual", meeting]);
  assert.equal(meetingIngest.status, 0, meetingIngest.stderr);
  // Speech left for question time: its words are not indexed until a question needs them.
  const incremental = runCli(scratch, ["ingest", "--incremental", "--library", incrementalLibrary, sharedPath("media/audio/jfk.wav"), sharedPath("media/subtitled/friday.mp4")]);
  assert.equal(incremental.status, 0, incremental.stderr);
});

/** A server on the library and a browser page on it; both closed after `run`, which also fails on any page error. */
async function withPage(libraryPath: string, run: (page: Page, url: string) => Promise<void>, options: { token?: string } = {}): Promise<void> {
  const library = await openLibrary({ path: libraryPath });
  const server = await startServer({ library, port: 0, ...options });
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--autoplay-policy=no-user-gesture-required"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await run(page, server.url);
    assert.deepEqual(pageErrors, [], "the page threw");
  } finally {
    await browser.close();
    await server.close();
    await library.close();
  }
}

/** What the page's player element says about itself. */
interface PlayerState {
  currentTime: number;
  paused: boolean;
  readyState: number;
  decodedFrames: number;
  videoWidth: number;
  /** The stretches of media played, [start, end] seconds. */
  played: [number, number][];
}

interface PlayerElement {
  currentTime: number;
  paused: boolean;
  readyState: number;
  videoWidth: number;
  played: { length: number; start(index: number): number; end(index: number): number };
  getVideoPlaybackQuality(): { totalVideoFrames: number };
}

/** Asks in the page, clicks the citation chip of `title` whose quote has `quoted`, and returns the moment and the player once it stops. */
async function askAndPlay(page: Page, url: string, question: string, cited: { title: string; quoted: string }, timeoutMs: number) {
  await page.goto(`${url}/#/ask`);
  const streamed = page.waitForResponse((response) => response.url().endsWith("/api/ask"));
  await page.getByLabel("Question").fill(question);
  await page.getByLabel("Question").press("Enter");
  assert.match((await streamed).headers()["content-type"] ?? "", /text\/event-stream/, "the answer comes as server-sent events");

  const chip = page.locator(`.answer-text .citation-chip[aria-label^="Play ${cited.title} "][title*="${cited.quoted}"]`).first();
  await chip.waitFor({ timeout: 30_000 });
  const startSecond = Number(await chip.getAttribute("data-start-second"));
  const endSecond = Number(await chip.getAttribute("data-end-second"));
  assert.ok(endSecond > startSecond, `${startSecond}–${endSecond}`);
  await chip.click();

  await page.locator('.moment-player[data-state="ended"]').waitFor({ timeout: timeoutMs });
  const player = await page.locator(".moment-player video").evaluate(
    (video: PlayerElement): PlayerState => ({
      currentTime: video.currentTime,
      paused: video.paused,
      readyState: video.readyState,
      decodedFrames: video.getVideoPlaybackQuality().totalVideoFrames,
      videoWidth: video.videoWidth,
      played: Array.from({ length: video.played.length }, (_, index): [number, number] => [video.played.start(index), video.played.end(index)]),
    }),
  );
  return { startSecond, endSecond, player };
}

function assertPlayedMoment({ startSecond, endSecond, player }: { startSecond: number; endSecond: number; player: PlayerState }): void {
  const moment = `${startSecond}–${endSecond}, player ${JSON.stringify(player)}`;
  assert.ok(player.currentTime >= startSecond - 0.5 && player.currentTime <= endSecond + 0.5, `stopped inside the cited moment: ${moment}`);
  assert.ok(player.currentTime >= endSecond - 0.5, `played to the moment's end: ${moment}`);
  assert.equal(player.paused, true, `paused at the moment's end: ${moment}`);
  assert.ok(player.played.length > 0, `played: ${moment}`);
  for (const [from, to] of player.played) {
    assert.ok(from >= startSecond - 0.5 && to <= endSecond + 0.5, `played only the cited moment: ${moment}`);
  }
  assert.ok(player.decodedFrames > 0 || player.readyState >= 2, `decoded frames: ${moment}`);
  assert.ok(player.videoWidth > 0, `has a picture: ${moment}`);
}

test("ask: the answer streams in, and its citation chip plays the cited moment of friday.mp4 in the page", { skip, timeout: 60_000 }, async () => {
  await withPage(subtitledLibrary, async (page, url) => {
    // friday.vtt 00:04.300 --> 00:06.000 "Somebody must've stolen the crown jewels"
    const played = await askAndPlay(page, url, "who stole the crown jewels?", { title: "friday.mp4", quoted: "crown jewels" }, 30_000);
    assert.match(await page.locator(".answer-text").innerText(), /crown jewels/);
    assert.ok(played.startSecond >= 4 && played.startSecond < 5, `cites 0:04, got ${played.startSecond}`);
    assertPlayedMoment(played);

    // The evidence says which retrievers found the moment, as `ask --explain` does.
    const evidence = page.locator(".evidence .moment").first();
    assert.match(await evidence.innerText(), /Somebody must've stolen the crown jewels/);
    assert.match(await evidence.locator(".provenance").innerText(), /bm25 rank 1/);
    assert.match(await page.locator(".answer-footer").innerText(), /lite/);
  });
});

test("ask: a citation of an HEVC MKV with VobSub subtitles plays in the page, transcoded by the server", { skip, timeout: 150_000 }, async () => {
  await withPage(subtitledLibrary, async (page, url) => {
    // popeye_p3.eng.srt 00:57.012 --> 00:59.012 "That's the biggest buzzard I ever saw"; the MKV carries it as bitmaps read by OCR.
    const played = await askAndPlay(page, url, "what was the biggest buzzard he ever saw?", { title: "popeye_vobsub.mkv", quoted: "buzzard" }, 120_000);
    assert.ok(played.startSecond >= 55 && played.startSecond < 59, `cites 0:57, got ${played.startSecond}`);
    assertPlayedMoment(played);
  });
});

/** The main player's position once it has settled near `second` (a seek lands on a frame; playing moves it on). */
async function playerNear(page: Page, second: number, what: string): Promise<number> {
  const near = `Math.abs(document.querySelector("video.main-player").currentTime - ${second}) < 1.5`;
  await page.waitForFunction(near, undefined, { timeout: 60_000 }).catch(() => undefined);
  const currentTime = await page.locator("video.main-player").evaluate((video: { currentTime: number }) => video.currentTime);
  assert.ok(Math.abs(currentTime - second) < 1.5, `${what}: the player is at ${currentTime}, not near ${second}`);
  return currentTime;
}

test("video page: chapters listed and marked on the timeline seek the player; a question about the video cites only it", { skip, timeout: 150_000 }, async () => {
  await withPage(subtitledLibrary, async (page, url) => {
    const library = await openLibrary({ path: subtitledLibrary });
    const videos = await library.list();
    const popeye = videos.find((video) => video.title === "popeye_vobsub.mkv");
    assert.ok(popeye && videos.some((video) => video.title === "friday.mp4"));
    const { chapters } = await library.chapters(popeye.id);
    await library.close();
    // At least two: the shipwreck, and the buzzard sighted after it (where the second starts is the library's to say).
    assert.ok(chapters.length >= 2, JSON.stringify(chapters));

    await page.goto(`${url}/#/videos/${popeye.id}`);
    const lines = page.locator(".chapter-line");
    await lines.nth(chapters.length - 1).waitFor();
    assert.equal(await lines.count(), chapters.length);
    assert.equal(await lines.nth(1).locator(".time").innerText(), formatTimestamp(chapters[1]?.startSecond ?? -1));
    assert.equal(await lines.nth(1).locator(".chapter-title").innerText(), chapters[1]?.title);
    assert.equal(await lines.nth(1).locator(".chapter-summary").innerText(), chapters[1]?.summary);
    assert.equal(await page.locator(".chapter-marks .chapter-mark").count(), chapters.length, "a mark per chapter on the timeline");

    const second = chapters[1]?.startSecond ?? 0;
    await lines.nth(1).click();
    await playerNear(page, second, "after a click on chapter 2");
    await page.locator('.chapter-line[aria-current="true"]', { hasText: chapters[1]?.title ?? "" }).waitFor();
    await page.locator('.chapter-mark[aria-current="true"]').waitFor();
    assert.equal(await page.locator(".chapter-mark").nth(1).getAttribute("aria-current"), "true", "the timeline marks the chapter playing");

    // The timeline's first mark goes back to the start.
    await page.locator(".chapter-mark").first().click();
    await playerNear(page, 0, "after a click on the first mark");

    // The chapters track loads (with the page's credentials) and has a cue per chapter.
    const cues = await page.locator("video.main-player").evaluate(async (video: { textTracks: ArrayLike<{ kind: string; mode: string; cues: { length: number } | null }> }) => {
      const track = Array.from(video.textTracks).find((candidate) => candidate.kind === "chapters");
      if (!track) return -1;
      track.mode = "hidden";
      for (let attempt = 0; attempt < 100 && !track.cues?.length; attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
      return track.cues?.length ?? 0;
    });
    assert.equal(cues, chapters.length);

    // A summary sentence's time seeks the player too.
    const summaryChip = page.locator(".summary-sentences .citation-chip").last();
    await summaryChip.waitFor();
    await summaryChip.click();
    await playerNear(page, Number(await summaryChip.getAttribute("data-start-second")), "after a click on the summary's last citation");

    // Asked on this page, the answer comes from this video only.
    const asked = page.waitForRequest((request) => request.url().endsWith("/api/ask"));
    await page.getByLabel("Ask about this video").fill("what happened to the ship?");
    await page.getByLabel("Ask about this video").press("Enter");
    assert.deepEqual((JSON.parse((await asked).postData() ?? "{}") as { videoIds?: string[] }).videoIds, [popeye.id]);
    await page.locator(".video-question .answer-footer").waitFor({ timeout: 30_000 });
    const chips = page.locator(".video-question .citation-chip");
    assert.ok((await chips.count()) >= 1, await page.locator(".video-question").innerText());
    assert.deepEqual([...new Set(await chips.evaluateAll((found) => found.map((chip) => chip.getAttribute("data-video-id"))))], [popeye.id]);
    assert.doesNotMatch(await page.locator(".video-question .answer-text").innerText(), /friday\.mp4/);
    assert.match(await page.locator(".video-question .answer-text").innerText(), /ship/);
    const cited = chips.last();
    await cited.click();
    await playerNear(page, Number(await cited.getAttribute("data-start-second")), "after a click on the answer's citation");
    assert.equal(await page.locator(".moment-player").count(), 0, "the citation plays in the page's own player");
  });
});

test("library: an upload through the page shows its progress, appears in the list, and a search finds it", { skip, timeout: 90_000 }, async () => {
  await withPage(join(scratch, "uploaded"), async (page, url) => {
    await page.goto(`${url}/#/`);
    await page.getByText("No videos yet").waitFor();

    // The sidecar goes with the video: the server keeps an upload's files in one folder.
    await page.getByLabel(/Upload videos/).setInputFiles([sharedPath("media/subtitled/friday.mp4"), sharedPath("media/subtitled/friday.vtt")]);
    const job = page.locator(".jobs .job").first();
    await job.locator("progress").first().waitFor();
    assert.match(await job.locator(".job-names").innerText(), /friday\.mp4/);

    await page.locator('.job[data-status="done"]').waitFor({ timeout: 60_000 });
    assert.match(await job.locator(".job-status").innerText(), /done: 1 video added/);
    const card = page.locator(".video-card", { hasText: "friday.mp4" });
    await card.waitFor();
    await card.locator(".badge", { hasText: "subtitles" }).waitFor();
    assert.match(await card.locator(".video-meta").innerText(), /0:06/);

    await page.getByRole("link", { name: "Search" }).click();
    await page.getByLabel(/Words, names/).fill("crown jewels");
    await page.getByLabel(/Words, names/).press("Enter");
    const hit = page.locator(".moment").first();
    await hit.waitFor();
    assert.match(await hit.locator(".moment-title").innerText(), /friday\.mp4/);
    assert.deepEqual(await hit.locator("mark").allInnerTexts(), ["crown", "jewels"]);
  });
});

test("a server with a token: the page asks for it, refuses a wrong one, and loads the library once given the right one", { skip, timeout: 60_000 }, async () => {
  await withPage(
    subtitledLibrary,
    async (page, url) => {
      await page.goto(`${url}/#/`);
      const token = page.getByLabel("Access token");
      await token.fill("not the token");
      await token.press("Enter");
      await page.getByRole("alert").filter({ hasText: "that token is not the server's" }).waitFor();

      await token.fill("open sesame");
      await token.press("Enter");
      await page.locator(".video-card", { hasText: "friday.mp4" }).waitFor();
      assert.equal(await token.count(), 0, "the form is gone");
      // The pictures come with the login cookie too.
      const thumbnail = page.locator(".video-card", { hasText: "friday.mp4" }).locator("img.thumbnail");
      await page.waitForFunction((image: { complete: boolean; naturalWidth: number }) => image.complete && image.naturalWidth > 0, await thumbnail.elementHandle());
    },
    { token: "open sesame" },
  );
});

test("video page: the text names who speaks, a colour each; a speaker renamed in place is renamed in the text, without a reload", { skip, timeout: 60_000 }, async () => {
  await withPage(meetingLibrary, async (page, url) => {
    const library = await openLibrary({ path: meetingLibrary });
    const meeting = await library.find("meeting.mp4");
    await library.close();
    const requests: string[] = [];
    page.on("request", (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));

    await page.goto(`${url}/#/videos/${meeting.id}`);
    await page.evaluate("window.notReloaded = true");
    const turns = page.locator(".transcript .speaker-turn .speaker-name");
    await turns.nth(meetingCues.length - 1).waitFor();
    // Every line here is a change of voice, so each is headed by its speaker.
    assert.deepEqual(await turns.allInnerTexts(), meetingCues.map(([who]) => who));
    // A colour each, the same in the text and in the panel.
    const colourOf = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((element) => (globalThis as unknown as { getComputedStyle(element: unknown): { color: string } }).getComputedStyle(element).color);
    const colours = await Promise.all(["Dana", "Sam", "Ravi"].map((label) => colourOf(`.transcript .speaker-name[data-label="${label}"]`)));
    assert.equal(new Set(colours).size, 3, `three colours: ${colours.join(", ")}`);
    assert.equal(await colourOf('.speakers .speaker-name[data-label="Sam"]'), colours[1]);

    // The panel: each speaker with talk time and first words, in order of first appearance.
    const rows = page.locator(".speakers .speaker-row");
    assert.equal(await rows.count(), 3);
    assert.deepEqual(await rows.locator(".speaker-name").allInnerTexts(), ["Dana", "Sam", "Ravi"]);
    assert.equal(await rows.nth(0).locator(".speaker-talk .time").innerText(), "0:12");
    assert.match(await rows.nth(1).locator(".speaker-first").innerText(), /^0:06\s+I think we should move the search index/);

    // Escape cancels: nothing is sent, the name stays.
    await turns.nth(0).click();
    await page.getByLabel("Name for Dana").fill("Nobody");
    await page.getByLabel("Name for Dana").press("Escape");
    assert.equal(await page.getByLabel("Name for Dana").count(), 0);
    assert.equal(await turns.nth(0).innerText(), "Dana");

    // Enter saves: one PUT, and every line of Sam's is headed by the new name; the others keep theirs.
    await rows.nth(1).locator(".speaker-name").click();
    const input = page.getByLabel("Name for Sam");
    await input.fill("Sam Okafor");
    const saved = page.waitForResponse((response) => response.request().method() === "PUT");
    await input.press("Enter");
    const response = await saved;
    assert.equal(new URL(response.url()).pathname, `/api/videos/${meeting.id}/speakers/Sam`);
    assert.equal(response.status(), 200);
    await page.locator('.transcript .speaker-turn .speaker-name[data-label="Sam"]', { hasText: "Sam Okafor" }).nth(1).waitFor();
    assert.deepEqual(await turns.allInnerTexts(), meetingCues.map(([who]) => (who === "Sam" ? "Sam Okafor" : who)));
    assert.equal(await rows.nth(1).locator(".speaker-label").innerText(), "Sam", "the label is kept beside the name");
    assert.equal(await page.evaluate("window.notReloaded"), true, "the page was not reloaded");
    assert.equal(requests.filter((request) => request === `GET /api/videos/${meeting.id}/transcript`).length, 1, "the text was not read again");
    assert.deepEqual(requests.filter((request) => request.startsWith("PUT ")), [`PUT /api/videos/${meeting.id}/speakers/Sam`]);

    // A name the server refuses (another speaker's label) leaves the input open with its message.
    await turns.nth(3).click();
    await page.getByLabel("Name for Ravi").fill("Dana");
    await page.getByLabel("Name for Ravi").press("Enter");
    await page.locator(".speaker-rename .error", { hasText: "label of another speaker" }).waitFor();
    await page.getByLabel("Name for Ravi").press("Escape");
    assert.equal(await turns.nth(3).innerText(), "Ravi");

    // An answer on this page cites the moment with the speaker's new name.
    await page.getByLabel("Ask about this video").fill("who suggested Postgres?");
    await page.getByLabel("Ask about this video").press("Enter");
    const chip = page.locator(".video-question .answer-text .citation-chip").first();
    await chip.waitFor({ timeout: 30_000 });
    assert.match(await chip.innerText(), /meeting\.mp4\s+0:06–0:10\s+· Sam Okafor/);
    assert.equal(await chip.getAttribute("data-speaker"), "Sam Okafor");
  });
});

test("ask on an incremental library: the preliminary answer shows while clips are extracted, then the final one replaces it", { skip, timeout: 90_000 }, async () => {
  await withPage(incrementalLibrary, async (page, url) => {
    await page.goto(`${url}/#/ask`);
    await page.getByLabel("Question").fill("ask not what your country can do for you");
    await page.getByLabel("Question").press("Enter");
    const preliminary = page.getByLabel("Preliminary answer");
    await preliminary.waitFor({ timeout: 30_000 });
    assert.match(await preliminary.innerText(), /from what is indexed now/);
    assert.notEqual(await preliminary.evaluate((element) => (globalThis as unknown as { getComputedStyle(element: unknown): { opacity: string } }).getComputedStyle(element).opacity), "1", "shown dimmed");
    // The final answer takes its place, citing the speech recognised for the question.
    await page.locator('.answer-text .citation-chip[aria-label^="Play jfk.wav "]').first().waitFor({ timeout: 60_000 });
    assert.equal(await preliminary.count(), 0);
    await page.locator(".answer-footer").waitFor();
    assert.match(await page.locator(".answer-footer").innerText(), /first answer \d+ ms, final \d+ ms/);
  });
});
