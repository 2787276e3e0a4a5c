// The whole video, not just a moment, through the library API and the CLI: chapters of a generated three-topic talk land
// at its topic changes, summaries cite every part of a video, questions are answered by kind (overview, procedure,
// enumeration) and scoped to the videos given or named.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { openLibrary, type Library } from "./library.js";
import type { Video } from "./spec/index.js";
import { runCli } from "./test-support/cli.js";
import { needsShared, sharedPath } from "./test-support/shared.js";
// @ts-expect-error the sample generator is plain JavaScript, shared with the demo
import { makeSampleMedia, makeSlideVideo } from "../scripts/make-sample-media.mjs";

const missingTools = ["ffmpeg", "espeak-ng", "tesseract"].filter((tool) => spawnSync(tool, ["--version"]).error);
const needsTools = missingTools.length > 0 ? `${missingTools.join(", ")} not installed (apt-get install ffmpeg espeak-ng tesseract-ocr)` : false;

/** Three topics, each a slide and six sentences; "buzzard" is said five times across them. */
const talk = {
  name: "three-topics",
  subtitles: true,
  slides: [
    {
      title: "Baking bread at home",
      lines: ["Flour, water, yeast"],
      say: [
        "Bread at home starts with flour, water, salt and yeast.",
        "Knead the dough until it feels smooth and elastic.",
        "A buzzard watched from the fence while the dough was rising.",
        "Let the dough rise in a warm kitchen for an hour.",
        "Shape the loaf and bake the bread in a hot oven.",
        "The crust of the bread turns golden brown in the oven.",
      ],
    },
    {
      title: "Repairing a bicycle",
      lines: ["Tyres, chain, brakes"],
      say: [
        "To repair a flat bicycle tyre, first remove the wheel.",
        "Find the puncture in the inner tube and patch the tube.",
        "A buzzard circled above the garage during the repair.",
        "Oil the bicycle chain so the gears shift smoothly.",
        "Adjust the brake pads until they grip the wheel rim.",
        "Later a second buzzard landed on the bicycle seat.",
        "Pump the tyre and check the pressure before you ride the bicycle.",
      ],
    },
    {
      title: "The solar system",
      lines: ["Planets and moons"],
      say: [
        "The solar system has eight planets that orbit the sun.",
        "Jupiter is the largest planet and has dozens of moons.",
        "One farmer said a buzzard flies higher than a plane, which is not true.",
        "Mars is a cold desert planet with a thin atmosphere.",
        "Saturn is famous for its bright rings of ice and rock.",
        "The last buzzard of the evening flew off before the planets rose.",
      ],
    },
  ],
};

describe("chapters, summaries and questions by kind", { skip: needsTools || needsShared }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "videorag-summaries-test-"));
  const libraryPath = join(scratch, "library");
  let library: Library;
  let made: { path: string; seconds: number; slideStarts: number[] };
  let video: Video;
  let popeye: Video;

  before(async () => {
    made = makeSlideVideo(scratch, talk);
    library = await openLibrary({ path: libraryPath, speech: false, visual: false });
    const report = await library.ingest([made.path, sharedPath("media/subtitled/popeye_vobsub.mkv")]);
    assert.equal(report.failed, 0, JSON.stringify(report.results.map((result) => result.error)));
    video = await library.find("three-topics.mp4");
    popeye = await library.find("popeye_vobsub.mkv");
  });
  after(async () => {
    await library?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test("the chapters of a three-topic talk start within 10 s of its topic changes, titled by their slides", async () => {
    const { chapters } = await library.chapters(video.id);
    assert.equal(chapters.length, 3, JSON.stringify(chapters.map((chapter) => [chapter.startSecond, chapter.title])));
    for (const [index, start] of made.slideStarts.entries()) {
      assert.ok(Math.abs((chapters[index]?.startSecond ?? Infinity) - start) <= 10, `chapter ${index} at ${chapters[index]?.startSecond}, topic at ${start}`);
    }
    assert.deepEqual(chapters.map((chapter) => chapter.title), ["Baking bread at home", "Repairing a bicycle", "The solar system"]);
    assert.ok(chapters.every((chapter) => chapter.summary.length > 0 && chapter.madeBy === "lite"));
    assert.equal(chapters.at(-1)?.endSecond, video.durationSeconds);
  });

  test("chapters --vtt is WebVTT with one cue per chapter, in order", () => {
    const result = runCli(scratch, ["chapters", "--library", libraryPath, "--vtt", "three-topics.mp4"]);
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.split("\n");
    assert.equal(lines[0], "WEBVTT");
    const cues = lines.filter((line) => line.includes("-->"));
    assert.equal(cues.length, 3);
    const seconds = (stamp: string): number => stamp.split(":").reduce((sum, part) => sum * 60 + Number(part), 0);
    let last = -1;
    for (const cue of cues) {
      const match = /^(\d\d:\d\d:\d\d\.\d\d\d) --> (\d\d:\d\d:\d\d\.\d\d\d)$/.exec(cue);
      assert.ok(match, cue);
      const [start, end] = [seconds(match[1] as string), seconds(match[2] as string)];
      assert.ok(start >= last && end > start, cue);
      last = end;
    }
    assert.ok(result.stdout.includes("Repairing a bicycle"));
  });

  test("summarize cites every chapter of the talk and the beginning, middle and end of popeye_vobsub.mkv", async () => {
    const summary = await library.summarize(video.id);
    const cited = new Set(summary.sentences.map((sentence) => sentence.chapterIndex));
    assert.deepEqual([...cited].sort(), [0, 1, 2], summary.text);
    assert.ok(summary.sentences.every((sentence) => sentence.citations.length > 0 && summary.text.includes(sentence.text)));

    // The cartoon's first half minute holds only sound cues ("[squawk]"), which a summary does not quote: its beginning,
    // middle and end are the thirds of the stretch that has words.
    const cartoon = await library.summarize(popeye.id, { length: "long" });
    const worded = (await library.transcript(popeye.id)).segments.filter((segment) => /\p{L}/u.test(segment.text.replace(/\[[^\]]*\]/g, "")));
    const [from, to] = [worded[0]?.startSecond ?? 0, worded.at(-1)?.endSecond ?? popeye.durationSeconds];
    assert.ok(from > 20 && to > 60, `words from ${from} to ${to}`);
    const thirds = new Set(cartoon.sentences.flatMap((sentence) => sentence.citations.map((citation) => Math.min(2, Math.floor((((citation.startSecond + citation.endSecond) / 2 - from) / (to - from)) * 3)))));
    assert.deepEqual([...thirds].sort(), [0, 1, 2], cartoon.text);
    assert.doesNotMatch(cartoon.text, /\[squawk\]/);
  });

  test("ask --video cites only that video; an unknown one is VIDEO_NOT_FOUND (exit 2)", async () => {
    const answer = await library.ask("what did he see?", { videos: [popeye.id] });
    assert.ok(answer.citations.length > 0, answer.text);
    assert.ok(answer.citations.every((citation) => citation.videoId === popeye.id));
    const scoped = await library.ask("what is the bread about?", { videos: [popeye.id] });
    assert.ok(scoped.citations.every((citation) => citation.videoId === popeye.id), scoped.text);
    await assert.rejects(library.ask("anything", { videos: ["no-such-video"] }), { code: "VIDEO_NOT_FOUND" });
    const cli = runCli(scratch, ["ask", "--library", libraryPath, "--video", "no-such-video", "what is it about?"]);
    assert.equal(cli.status, 2, cli.stderr);
    assert.match(cli.stderr, /no video "no-such-video"/);
  });

  test("a video named in the question scopes it: 'summarize the three topics video' answers from its summary", async () => {
    const answer = await library.ask("summarize the three topics video");
    assert.equal(answer.intent, "overview");
    assert.deepEqual(answer.scope?.map((entry) => entry.videoId), [video.id]);
    assert.equal(answer.profile.strategy, "summaries");
    const chapters = (await library.chapters(video.id)).chapters;
    const parts = new Set(answer.citations.map((citation) => chapters.findIndex((chapter) => citation.startSecond >= chapter.startSecond && citation.startSecond < chapter.endSecond)));
    assert.deepEqual([...parts].sort(), [0, 1, 2], answer.text);
  });

  test("'what topics does this library cover?' names every video", async () => {
    const answer = await library.ask("what topics does this library cover?");
    assert.equal(answer.intent, "overview");
    for (const title of ["three-topics.mp4", "popeye_vobsub.mkv"]) assert.ok(answer.text.includes(title), answer.text);
    assert.deepEqual(new Set(answer.citations.map((citation) => citation.videoId)), new Set([video.id, popeye.id]));
  });

  test("'every time he says buzzard' returns all five moments of the talk, counted", async () => {
    const answer = await library.ask("every time he says buzzard", { videos: [video.id] });
    assert.equal(answer.intent, "enumeration");
    assert.equal(answer.count, 5, answer.text);
    assert.equal(answer.citations.length, 5);
    assert.equal(new Set(answer.citations.map((citation) => citation.startSecond)).size, 5);
    assert.ok(answer.citations.every((citation) => /buzzard/i.test(citation.quote)));
    assert.match(answer.text, /comes up 5 times/);
  });

  test("'how do I repair a flat bicycle tyre' is answered as ordered steps from that part of the talk", async () => {
    const answer = await library.ask("how do I repair a flat bicycle tyre?");
    assert.equal(answer.intent, "procedure");
    assert.equal(answer.profile.strategy, "steps");
    assert.match(answer.text, /^To repair a flat bicycle tyre: First, /);
    const starts = answer.citations.map((citation) => citation.startSecond);
    assert.deepEqual(starts, [...starts].sort((a, b) => a - b), "steps are in the video's order");
    assert.ok(answer.text.toLowerCase().includes("puncture"), answer.text);
  });

  test("a video with no text has nothing to summarize, and no chapters", async () => {
    const silent = join(scratch, "blank.mp4");
    const made = spawnSync("ffmpeg", ["-y", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=gray:s=320x240:r=10:d=4", "-pix_fmt", "yuv420p", silent]);
    assert.equal(made.status, 0, String(made.stderr));
    const report = await library.ingest([silent]);
    assert.equal(report.failed, 0);
    const summary = await library.summarize("blank.mp4");
    assert.match(summary.text, /nothing to summarize/);
    assert.deepEqual(summary.sentences, []);
    assert.deepEqual((await library.chapters("blank.mp4")).chapters, []);
    const cli = runCli(scratch, ["summarize", "--library", libraryPath, "blank.mp4"]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /nothing to summarize/);
  });

  test("in an incremental library, chapters follow the text that extraction writes back, and the stage is done", async () => {
    // The talk without its subtitles and with speech off: its only text is on screen, read by the deferred OCR stage.
    const folder = join(scratch, "incremental-media");
    mkdirSync(folder, { recursive: true });
    copyFileSync(made.path, join(folder, "slides-only.mp4"));
    const incremental = await openLibrary({ path: join(scratch, "incremental"), speech: false, visual: false });
    try {
      await incremental.ingest([folder], { incremental: true });
      const before = (await incremental.chapters("slides-only.mp4")).chapters;
      assert.ok((await incremental.status()).stages["screen-text"]?.pending, "screen text is left for later");
      await incremental.extract();
      const { chapters } = await incremental.chapters("slides-only.mp4");
      assert.ok(chapters.length > before.length, `${before.length} chapters before extraction, ${chapters.length} after`);
      assert.ok(chapters.some((chapter) => chapter.title === "Repairing a bicycle"), JSON.stringify(chapters.map((chapter) => chapter.title)));
      const stages = (await incremental.status()).stages;
      assert.equal(stages.chapters?.pending, 0, JSON.stringify(stages));
      assert.ok((stages.chapters?.done ?? 0) > 0);
    } finally {
      await incremental.close();
    }
  });

  test("chapters go with the video when it is removed", async () => {
    await library.remove(popeye.id);
    assert.deepEqual(await library.chapters(video.id).then((found) => found.chapters.length), 3);
    await assert.rejects(library.chapters(popeye.id), { code: "VIDEO_NOT_FOUND" });
    const matches = await library.ask("every time he says buzzard");
    assert.ok(matches.citations.every((citation) => citation.videoId === video.id));
  });
});

describe("the demo library", { skip: needsTools }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "videorag-demo-library-test-"));
  let library: Library;
  before(async () => {
    makeSampleMedia(join(scratch, "media"));
    library = await openLibrary({ path: join(scratch, "library"), speech: false, visual: false });
    const report = await library.ingest([join(scratch, "media")]);
    assert.equal(report.failed, 0, JSON.stringify(report.results.map((result) => result.error)));
  });
  after(async () => {
    await library?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test("'what topics does this library cover?' names its three videos", async () => {
    const answer = await library.ask("what topics does this library cover?");
    for (const title of ["sqlite-talk.mp4", "bread-baking.mp4", "harbor-museum.mp4"]) assert.ok(answer.text.includes(title), answer.text);
    assert.match(answer.text, /^The library's 3 videos cover \d topics?:/);
  });

  test("the demo's answer says 'Why not pgvector?' once, not as screen text and again in the line that reads it", async () => {
    const answer = await library.ask("Why did they reject pgvector?");
    assert.match(answer.text, /We rejected pgvector because it needs a running Postgres server/);
    assert.ok((answer.text.match(/why not pgvector/gi) ?? []).length <= 1, answer.text);
    const lines = answer.text.split("\n").map((line) => line.replace(/\[[^\]]*\]/g, "").toLowerCase().replace(/[^a-z ]/g, " ").replace(/\s+/g, " ").trim());
    assert.equal(new Set(lines).size, lines.length, answer.text);
  });

  test("'summarize the bread baking video' is answered from its summary, from its start to its end", async () => {
    const answer = await library.ask("summarize the bread baking video");
    const video = await library.find("bread-baking.mp4");
    assert.deepEqual(answer.scope?.map((entry) => entry.videoId), [video.id]);
    assert.ok(answer.citations.every((citation) => citation.videoId === video.id));
    const starts = answer.citations.map((citation) => citation.startSecond);
    assert.ok(Math.min(...starts) < 5 && Math.max(...starts) > video.durationSeconds / 2, answer.text);
  });
});
