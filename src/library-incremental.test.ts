// Incremental extraction end to end on real media: the light index at ingest (no speech recognition), the heavy stages
// run at question time on the clips the planner picks and written back, nothing extracted twice, and `extract` converging
// to what a full ingest of the same files holds.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { incrementalLibraryCases } from "./library-incremental.case.js";
import { openLibrary, type Library } from "./library.js";
import type { Segment } from "./spec/index.js";
import { openSqliteStore } from "./store/index.js";
import { needsShared, sharedPath } from "./test-support/shared.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-incremental-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

incrementalLibraryCases("sqlite", (name, options) => openLibrary({ ...options, path: join(scratch, name) }));

describe("slides read at question time", { skip: needsShared }, () => {
  test("a written question extracts the screen text of the slide between two keyframes and cites it", async () => {
    // Three white slides of 12 s: the encoder's periodic keyframe (every 10 s) falls 2 s before each slide change, so the
    // middle slide is seen only in the frames sampled between keyframes when its clip's screen text is read.
    const font = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
    const slide = (text: string, from: number) =>
      `drawtext=fontfile=${font}:text='${text}':fontsize=40:fontcolor=black:x=60:y=150:enable='between(t,${from},${from + 12})'`;
    const video = join(scratch, "slides.mp4");
    const made = spawnSync("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=640x360:r=25:d=36",
      "-vf", [slide("Harbor Museum opening hours", 0), slide("Lighthouse exhibition third floor", 12), slide("Tickets adults twelve euros", 24)].join(","),
      "-c:v", "libx264", "-pix_fmt", "yuv420p", video], { encoding: "utf8" });
    assert.equal(made.status, 0, made.stderr);
    const library = await openLibrary({ path: join(scratch, "slides"), modelsDir: sharedPath("models") });
    try {
      await library.ingest([video], { incremental: true });
      assert.equal((await library.status()).stages["screen-text"]?.pending, 1, "one 36-second clip, its screen text unread");
      const answer = await library.ask("what is written about the lighthouse exhibition?");
      assert.ok(answer.extraction?.clips.some((clip) => clip.stages.includes("screen-text")), JSON.stringify(answer.extraction));
      const citation = answer.citations[0];
      assert.equal(citation?.title, "slides.mp4", answer.text);
      assert.match(answer.text, /Lighthouse exhibition/i);
      assert.ok((citation?.startSecond ?? 0) >= 11 && (citation?.startSecond ?? 0) < 16, `cited from ${citation?.startSecond} s`);
    } finally {
      await library.close();
    }
  });
});

describe("the answer as soon as it holds the question", { skip: needsShared }, () => {
  test("the best clips heard first: once the answer holds, the rest of the plan and the heard clips' pictures are extracted in the background", async () => {
    // JFK's line eleven times over a picture: four 30-second clips of speech, each of which answers the question.
    const video = join(scratch, "jfk-many.mp4");
    const made = spawnSync("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=320x240:r=5", "-stream_loop", "10", "-i", sharedPath("media/audio/jfk.wav"),
      "-shortest", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", video], { encoding: "utf8" });
    assert.equal(made.status, 0, made.stderr);
    const library = await openLibrary({ path: join(scratch, "early"), modelsDir: sharedPath("models") });
    try {
      await library.ingest([video], { incremental: true });
      const stages = (await library.status()).stages;
      const pending = stages.speech?.pending ?? 0;
      assert.ok(pending >= 4, `${pending} clips of speech`);
      const pictures = stages["screen-text"]?.pending ?? 0;
      assert.ok(pictures >= pending, JSON.stringify(stages));
      // A question of no clear kind ("ask" would make it one of speech) plans speech and pictures: the speech comes first.
      const answer = await library.ask("what your country can do for you");
      assert.equal(answer.citations[0]?.title, "jfk-many.mp4", answer.text);
      assert.deepEqual(answer.extraction?.clips.map((clip) => clip.stages.filter((stage) => stage !== "embeddings" && stage !== "graph" && stage !== "chapters" && stage !== "speakers")), [["speech"], ["speech"]],
        "the first step's two clips heard, their pictures not read, held the answer");
      assert.equal(answer.extraction?.leftForLater, pictures, `every clip has its pictures left: ${JSON.stringify(answer.extraction)}`);
      assert.ok(!answer.warnings.some((warning) => warning.feature === "extraction"), "not a budget running out");
      await library.settled();
      const after = (await library.status()).stages;
      assert.equal(after.speech?.pending, 0, "the rest of the plan was heard in the background");
      assert.equal(after["screen-text"]?.pending, 0, "and every clip's screen text read");
    } finally {
      await library.close();
    }
  });
});

describe("a step's clips of two videos", { skip: needsShared }, () => {
  test("are heard side by side, not one video after the other", async () => {
    const library = await openLibrary({ path: join(scratch, "two-videos"), modelsDir: sharedPath("models") });
    try {
      await library.ingest([sharedPath("media/audio/jfk.wav"), sharedPath("media/speech/grid/bbaf2n.mpg")], { incremental: true });
      assert.equal((await library.status()).stages.speech?.pending, 2, "one clip of speech in each");
      const order: string[] = [];
      const answer = await library.ask("what did they say about the country?", {
        onExtraction: (event) => {
          if (event.type === "extract-stage" && event.stage === "speech") order.push(`hear ${event.videoId}`);
          if (event.type === "extract-batch") order.push(`written ${event.videoId}`);
        },
      });
      assert.equal(answer.extraction?.clips.length, 2, JSON.stringify(answer.extraction));
      assert.deepEqual(order.slice(0, 2).map((entry) => entry.split(" ")[0]), ["hear", "hear"], `both heard before either is written back: ${order.join(", ")}`);
      assert.equal(answer.citations[0]?.title, "jfk.wav", answer.text);
    } finally {
      await library.close();
    }
  });
});

describe("a process without a stage's model leaves that work pending for one that has it", { skip: needsShared }, () => {
  const path = join(scratch, "switches");
  test("--no-speech neither runs nor forgets the speech left to recognise", async () => {
    const light = await openLibrary({ path, modelsDir: sharedPath("models") });
    await light.ingest([sharedPath("media/audio/jfk.wav")], { incremental: true });
    assert.equal((await light.status()).stages.speech?.pending, 1);
    await light.close();

    const speechless = await openLibrary({ path, modelsDir: sharedPath("models"), speech: false });
    const answer = await speechless.ask("ask not what your country can do for you");
    assert.equal(answer.extraction?.clips.length ?? 0, 0, JSON.stringify(answer.extraction));
    assert.equal((await speechless.extract()).clips.filter((clip) => clip.stages.includes("speech")).length, 0);
    assert.equal((await speechless.status()).stages.speech?.pending, 1, "still pending, not marked done with nothing");
    await speechless.close();

    const again = await openLibrary({ path, modelsDir: sharedPath("models") });
    try {
      assert.equal((await again.status()).stages.speech?.pending, 1);
      const answered = await again.ask("ask not what your country can do for you");
      assert.equal(answered.citations[0]?.title, "jfk.wav");
      assert.equal((await again.status()).stages.speech?.done, 1);
    } finally {
      await again.close();
    }
  });
});

describe("extract --all converges to a full ingest", { skip: needsShared }, () => {
  const files = () => [sharedPath("media/speech/grid/bbaf2n.mpg"), sharedPath("media/surveillance/person-bicycle-car-detection.mp4")];
  let full: Library;
  let incremental: Library;
  before(async () => {
    full = await openLibrary({ path: join(scratch, "full"), modelsDir: sharedPath("models") });
    incremental = await openLibrary({ path: join(scratch, "incremental"), modelsDir: sharedPath("models") });
    const fullReport = await full.ingest(files());
    assert.equal(fullReport.failed, 0, JSON.stringify(fullReport.results));
    const lightReport = await incremental.ingest(files(), { incremental: true });
    assert.equal(lightReport.failed, 0, JSON.stringify(lightReport.results));
    await incremental.extract();
  });
  after(async () => {
    await full.close();
    await incremental.close();
  });

  /** Every segment of every video, read from the library's file. */
  const segmentsOf = async (library: Library): Promise<string[]> => {
    const store = openSqliteStore(join(library.path, "library.sqlite"));
    try {
      const lines: string[] = [];
      for (const video of (await library.list()).sort((a, b) => a.id.localeCompare(b.id))) {
        const segments = await store.getSegments(video.id, 0, Number.POSITIVE_INFINITY);
        lines.push(
          `${video.id} ${video.clipCount} clips`,
          ...segments.map((segment: Segment) => `${segment.startSecond}-${segment.endSecond} ${segment.source}: ${segment.text}`).sort(),
        );
      }
      return lines;
    } finally {
      await store.close();
    }
  };

  test("the same videos, clips, segments, and nothing left pending", async () => {
    const expected = await segmentsOf(full);
    assert.ok(expected.some((line) => / speech: /.test(line)) && expected.some((line) => / visual: /.test(line)), expected.join("\n"));
    assert.deepEqual(await segmentsOf(incremental), expected);
    assert.equal((await incremental.status()).pendingClips, 0);
    assert.equal((await full.status()).pendingClips, 0);
  });

  test("the same top hits for the same queries", async () => {
    // What pocketsphinx heard in the GRID clip (its words vary with the recogniser), and what the detector saw.
    const heard = (await segmentsOf(full)).find((line) => / speech: /.test(line))?.split(" speech: ")[1] ?? "";
    assert.ok(heard, "the full ingest recognised no speech");
    for (const query of [heard, "bicycle", "person", "car"]) {
      const expected = (await full.search(query, { limit: 3 })).map((hit) => `${hit.title} ${hit.startSecond}-${hit.endSecond} ${hit.text}`);
      const actual = (await incremental.search(query, { limit: 3 })).map((hit) => `${hit.title} ${hit.startSecond}-${hit.endSecond} ${hit.text}`);
      assert.ok(expected.length > 0, `no hit for ${query}`);
      assert.deepEqual(actual, expected, query);
    }
  });
});
