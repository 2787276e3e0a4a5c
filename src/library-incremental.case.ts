// Incremental extraction on a library every store runs: the light index at ingest, the heavy stages run at question
// time on the clips the planner picks and written back, nothing extracted twice, `extract` finishing the rest.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { QuestionExtractionEvent } from "./answer/index.js";
import type { OpenLibraryAt } from "./library.case.js";
import type { Library } from "./library.js";
import type { PreliminaryAnswer } from "./spec/index.js";
import { needsShared, sharedPath } from "./test-support/shared.js";

const media = (): string[] => [
  sharedPath("media/audio/jfk.wav"),
  sharedPath("media/surveillance/car-detection.mp4"),
  sharedPath("media/surveillance/bottle-detection.mp4"),
  sharedPath("media/surveillance/person-bicycle-car-detection.mp4"),
  sharedPath("media/subtitled/friday.mp4"),
];

export function incrementalLibraryCases(name: string, open: OpenLibraryAt): void {
  describe(`an incremental library of speech, street footage and a subtitled film (${name})`, { skip: needsShared }, () => {
    let library: Library;
    before(async () => {
      library = await open("mixed", { modelsDir: sharedPath("models") });
    });
    after(() => library.close());

    test("ingest commits the light index only: every video listed, no speech recognised, the heavy stages pending", async () => {
      const stages = new Set<string>();
      const report = await library.ingest(media(), { incremental: true, onProgress: (event) => event.type === "stage-start" && stages.add(event.stage) });
      assert.equal(report.failed, 0, JSON.stringify(report.results));
      assert.equal((await library.list()).length, 5);
      assert.ok(!stages.has("speech") && !stages.has("screen-text"), [...stages].join());
      const jfk = (await library.list()).find((video) => video.title === "jfk.wav");
      assert.ok(jfk);
      const status = await library.status();
      assert.equal(status.videos, 5);
      // Voice-activity detection heard speech only in jfk's one clip; the street footage's soundtracks have none to recognise.
      assert.equal(status.stages.speech?.pending, 1, JSON.stringify(status.stages));
      assert.match(report.results.find((result) => result.path.endsWith("jfk.wav"))?.notes.join(" ") ?? "", /speech activity: [\d.]+ s of speech in \d+ regions by onnx:silero-vad/);
      assert.ok((status.stages["screen-text"]?.pending ?? 0) >= 3);
      assert.ok(status.pendingClips >= 4, JSON.stringify(status));
      // friday's subtitles are in the light index: it is askable at once, and has no speech to recognise.
      const friday = await library.ask("who is in a bad humor?", { extract: false });
      assert.match(friday.text, /\[friday\.mp4 0:0\d–0:0\d(?: · Speaker \d)?\]/, "its speakers found from the audio, its subtitles naming no one");
      assert.ok(!status.byVideo.some((entry) => entry.videoId === jfk.id && entry.extractedClips > 0));
    });

    test("a question leaves the pending clips of a file an ingest is working through to that ingest", async () => {
      const jfk = (await library.list()).find((video) => video.title === "jfk.wav");
      const answer = await library.ask("ask not what your country can do for you", { busyPaths: [sharedPath("media/audio")] });
      assert.ok(!answer.extraction?.clips.some((clip) => clip.videoId === jfk?.id), JSON.stringify(answer.extraction));
      assert.equal((await library.status()).stages.speech?.pending, 1, "jfk's speech is still pending");
    });

    test('"ask not what your country can do for you" extracts the jfk clip at question time and cites it; asking again extracts nothing', async () => {
      const events: (QuestionExtractionEvent | { type: "preliminary"; answer: PreliminaryAnswer })[] = [];
      const first = await library.ask("ask not what your country can do for you", {
        onExtraction: (event) => events.push(event),
        onPreliminary: (answer) => events.push({ type: "preliminary", answer }),
      });
      assert.ok(first.extraction, "no extraction reported");
      // The answer from what was indexed came first, before any extraction event, and the final answer carries it.
      assert.equal(events[0]?.type, "preliminary", events.map((event) => event.type).join());
      assert.equal(events.filter((event) => event.type === "preliminary").length, 1);
      assert.ok(first.preliminary, "the final answer does not carry the preliminary one");
      assert.equal(first.preliminary.profile.profile, "lite");
      assert.ok(!first.preliminary.citations.some((citation) => citation.title === "jfk.wav"), "jfk's speech was not recognised yet");
      assert.ok(first.preliminary.timings.totalMs !== undefined && first.preliminary.timings.totalMs <= (first.timings.totalMs ?? 0), JSON.stringify([first.preliminary.timings, first.timings]));
      const jfk = (await library.list()).find((video) => video.title === "jfk.wav");
      assert.ok(first.extraction.clips.some((clip) => clip.videoId === jfk?.id && clip.stages.includes("speech")), JSON.stringify(first.extraction));
      assert.ok(events.some((event) => event.type === "plan"), "no plan event");
      assert.ok(events.some((event) => event.type === "extract-clip"), "no progress per clip");
      assert.equal(first.citations[0]?.title, "jfk.wav", first.text);
      assert.match(first.text, /country/i);
      assert.equal(first.profile.extractedClips, first.extraction.clips.length);
      assert.match(first.profile.summary, /clips extracted for this question/);
      const speech = (await library.status()).stages.speech;
      assert.equal(speech?.pending, 0, "jfk was the only clip with speech to recognise");

      let waited = false;
      const second = await library.ask("ask not what your country can do for you", { onPreliminary: () => (waited = true) });
      assert.equal(second.extraction?.clips.length ?? 0, 0, JSON.stringify(second.extraction));
      assert.ok(!waited && !second.preliminary, "nothing to extract: no preliminary answer");
      assert.equal(second.citations[0]?.title, "jfk.wav");
    });

    test("extract runs the rest of the deferred work, and the status says so", async () => {
      const report = await library.extract({ budgetClips: 1 });
      assert.equal(report.clips.filter((clip) => clip.stages.some((stage) => stage !== "embeddings" && stage !== "graph")).length, 1);
      const rest = await library.extract();
      assert.equal(rest.failed.length, 0, JSON.stringify(rest.failed));
      const status = await library.status();
      assert.equal(status.pendingClips, 0, JSON.stringify(status));
      assert.equal(status.extractedClips, status.clips);
      const bicycle = await library.search("bicycle", { limit: 3 });
      assert.equal(bicycle[0]?.title, "person-bicycle-car-detection.mp4");
    });
  });
}
