// Who said what, through the library API and the CLI, on a meeting whose subtitles name their speakers (WebVTT voices):
// speakers listed with talk time, answers filtered by speaker and citing them, "who said", renaming without re-ingest.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { openLibrary, type Library } from "./library.js";
import { openSqliteStore } from "./store/index.js";
import { runCli } from "./test-support/cli.js";
import { makeMeeting, meetingCues, needsFfmpeg } from "./test-support/meeting.js";
import { needsShared, sharedPath } from "./test-support/shared.js";

const cues = meetingCues;

describe("speakers from a meeting's WebVTT voices", { skip: needsFfmpeg }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "videorag-speakers-test-"));
  const libraryPath = join(scratch, "library");
  let library: Library;
  before(async () => {
    const video = makeMeeting(scratch);
    library = await openLibrary({ path: libraryPath, ocr: false, visual: false });
    const report = await library.ingest([video]);
    assert.equal(report.failed, 0, JSON.stringify(report.results));
  });
  after(async () => {
    await library?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test("the speakers come from the file, in order of first appearance, with their talk time and first words", async () => {
    const { speakers } = await library.speakers("meeting.mp4");
    assert.deepEqual(speakers.map((speaker) => [speaker.label, speaker.talkSeconds]), [["Dana", 12], ["Sam", 8], ["Ravi", 4]]);
    assert.match(speakers[0]?.firstWords ?? "", /^Welcome everyone/);
    const transcript = await library.transcript("meeting.mp4");
    assert.deepEqual(transcript.segments.map((segment) => segment.speaker), cues.map(([who]) => who));
  });

  test("'what did Dana say about the budget?' quotes only Dana, and each citation names her", async () => {
    const answer = await library.ask("what did Dana say about the budget?");
    assert.ok(answer.citations.length > 0, answer.text);
    assert.ok(answer.citations.every((citation) => citation.speaker === "Dana"), answer.text);
    assert.match(answer.text, /\[meeting\.mp4 0:\d\d–0:\d\d · Dana\]/);
  });

  test("'who suggested Postgres?' answers with the speaker and the moment", async () => {
    const answer = await library.ask("who suggested Postgres?");
    assert.match(answer.text, /^Sam: “I think we should move the search index to Postgres\.” \[meeting\.mp4 0:06–0:10 · Sam\]/);
  });

  test("renaming a speaker changes citations, search and the speakers list, without ingesting again", async () => {
    const renamed = await library.renameSpeaker("meeting.mp4", "Sam", "Sam Okafor");
    assert.equal(renamed.find((speaker) => speaker.label === "Sam")?.name, "Sam Okafor");
    const answer = await library.ask("who suggested Postgres?");
    assert.match(answer.text, /^Sam Okafor: /);
    assert.equal(answer.citations[0]?.speaker, "Sam Okafor");
    const hits = await library.search("Postgres", { speaker: "Sam Okafor" });
    assert.ok(hits.length > 0);
    const byRavi = await library.search("offline", { speaker: "Ravi" });
    assert.ok(byRavi.length > 0);
    assert.deepEqual(await library.search("offline", { speaker: "Nobody" }), []);
    // Dana speaks inside the moment that holds "Postgres", but never says it.
    assert.deepEqual(await library.search("Postgres", { speaker: "Dana" }), []);
  });

  test("the CLI lists and renames speakers; search --speaker keeps to theirs", () => {
    const listed = runCli(scratch, ["speakers", "--library", libraryPath, "meeting.mp4", "--rename", "Dana=Dana Lee", "--json"]);
    assert.equal(listed.status, 0, listed.stderr);
    const json = JSON.parse(listed.stdout) as { speakers: { label: string; name?: string }[] };
    assert.equal(json.speakers[0]?.name, "Dana Lee");
    const bad = runCli(scratch, ["speakers", "--library", libraryPath, "meeting.mp4", "--rename", "Nobody=X"]);
    assert.equal(bad.status, 2, bad.stderr);
    const search = runCli(scratch, ["search", "--library", libraryPath, "budget", "--speaker", "Dana Lee", "--json"]);
    assert.equal(search.status, 0, search.stderr);
    assert.ok((JSON.parse(search.stdout) as { hits: unknown[] }).hits.length > 0);
  });
});

describe("speakers found by the lite diarizer in recognised speech", { skip: needsFfmpeg || needsShared }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "videorag-diarized-test-"));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  const reader = (name: string): string => sharedPath(`media/audio/librivox/sense_and_sensibility_01_austen_64kb-${name}.wav`);
  /** A LibriVox reader (0–12.4 s), JFK (12.4–23.4 s), the reader again (from 23.4 s), under a still picture. */
  const makeTalk = (file: string): string => {
    const talk = join(scratch, file);
    const parts = [reader("0870"), reader("0890"), sharedPath("media/audio/jfk.wav"), reader("0920")];
    const made = spawnSync("ffmpeg", [
      "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=160x120:r=5",
      ...parts.flatMap((part) => ["-i", part]),
      "-filter_complex", `${parts.map((_, index) => `[${index + 1}:a]aresample=16000,aformat=channel_layouts=mono[a${index}]`).join(";")};${parts.map((_, index) => `[a${index}]`).join("")}concat=n=${parts.length}:v=0:a=1[out]`,
      "-map", "0:v", "-map", "[out]", "-shortest", "-pix_fmt", "yuv420p", "-c:a", "aac", talk,
    ]);
    assert.equal(made.status, 0, String(made.stderr));
    return talk;
  };
  /** The reader's, JFK's, the reader's: each stretch of lines has one speaker, the reader's the same both times. */
  const assertTurns = (segments: { startSecond: number; speaker?: string }[]): void => {
    const said = (from: number, to: number): (string | undefined)[] => segments.filter((segment) => segment.startSecond >= from && segment.startSecond < to).map((segment) => segment.speaker);
    const shown = JSON.stringify(segments.map((segment) => [segment.startSecond, segment.speaker]));
    assert.ok(said(0, 12).length > 0 && said(0, 12).every((speaker) => speaker === "Speaker 1"), shown);
    assert.ok(said(12.5, 23).length > 0 && said(12.5, 23).every((speaker) => speaker === "Speaker 2"), shown);
    assert.ok(said(23.4, 30).length > 0 && said(23.4, 30).every((speaker) => speaker === "Speaker 1"), shown);
  };

  test("a LibriVox reader, JFK, the reader again: two speakers, the reader back at the end; one voice alone is one", async () => {
    const talk = makeTalk("talk.mp4");
    const alone = join(scratch, "jfk.mp4");
    assert.equal(spawnSync("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=160x120:r=5", "-i", sharedPath("media/audio/jfk.wav"), "-shortest", "-pix_fmt", "yuv420p", "-c:a", "aac", alone]).status, 0);
    const library = await openLibrary({ path: join(scratch, "library"), ocr: false, visual: false });
    try {
      const report = await library.ingest([talk, alone]);
      assert.equal(report.failed, 0, JSON.stringify(report.results));
      assert.ok(report.providers?.some((line) => /^speakers: lite-diarizer/.test(line)), report.providers?.join("; "));
      const { speakers } = await library.speakers("talk.mp4");
      assert.deepEqual(speakers.map((speaker) => speaker.label), ["Speaker 1", "Speaker 2"], JSON.stringify(speakers));
      assertTurns((await library.transcript("talk.mp4")).segments.filter((segment) => segment.source === "speech"));
      assert.deepEqual((await library.speakers("jfk.mp4")).speakers.map((speaker) => speaker.label), ["Speaker 1"]);
      assert.equal((await library.status()).stages.speakers?.pending ?? 0, 0);
    } finally {
      await library.close();
    }
  });

  test("subtitles that name no one get their speakers from the audio, with no speech recognised", async () => {
    const talk = makeTalk("subtitled.mp4");
    const lines: [number, number, string][] = [
      [0.5, 6, "the family of dashwood had long been settled in sussex"],
      [6, 12, "their estate was large and their residence was at norland park"],
      [13, 22.5, "and so my fellow americans ask not what your country can do for you"],
      [24, 29, "the late owner of this estate was a single man"],
    ];
    const clock = (second: number): string => `00:00:${second.toFixed(3).padStart(6, "0")}`;
    writeFileSync(join(scratch, "subtitled.vtt"), ["WEBVTT", "", ...lines.flatMap(([start, end, text]) => [`${clock(start)} --> ${clock(end)}`, text, ""])].join("\n"));
    const library = await openLibrary({ path: join(scratch, "subtitled-library"), ocr: false, visual: false });
    try {
      const report = await library.ingest([talk]);
      assert.equal(report.failed, 0, JSON.stringify(report.results));
      const notes = report.results[0]?.notes ?? [];
      assert.ok(notes.some((note) => /^speakers: 2 in the subtitles, found by lite-diarizer/.test(note)), notes.join("; "));
      const segments = (await library.transcript("subtitled.mp4")).segments;
      assert.ok(segments.every((segment) => segment.source === "subtitle"), "the subtitles are the text; nothing was recognised");
      assertTurns(segments);
      const answer = await library.ask("who said ask not what your country can do for you?");
      assert.match(answer.text, /^Speaker 2: “/, answer.text);
    } finally {
      await library.close();
    }
  });

  test("an incremental library: a question about a speaker finds who speaks in the speech it recognises, once", async () => {
    const talk = makeTalk("later.mp4");
    const library = await openLibrary({ path: join(scratch, "incremental-library"), ocr: false, visual: false });
    try {
      const report = await library.ingest([talk], { incremental: true });
      assert.equal(report.failed, 0, JSON.stringify(report.results));
      assert.deepEqual((await library.speakers("later.mp4")).speakers, [], "no speech recognised yet, so no one speaks yet");
      // What the lite transcriber hears of JFK's words here changes with its settings (2026-11-27: "what your country
      // can do for you" in 15 s chunks, "when you can do for you" in 30 s ones), so the question asks for all he said.
      const answer = await library.ask("what did the second speaker say?");
      assert.ok((answer.extraction?.clips.length ?? 0) > 0, "speech was recognised for the question");
      const labels = (await library.speakers("later.mp4")).speakers.map((speaker) => speaker.label);
      assert.ok(labels.includes("Speaker 2"), `speakers found at question time: ${labels.join(", ")}`);
      assert.ok(answer.citations.length > 0 && answer.citations.every((citation) => citation.speaker === "Speaker 2"), JSON.stringify(answer.citations));
      // JFK speaks from 12.4 to 23.4 s: what is cited as his lies there.
      assert.ok(answer.citations.every((citation) => citation.startSecond >= 12 && citation.endSecond <= 24.5), JSON.stringify(answer.citations));
      // The rest of the speech, recognised later, takes its speakers from the voices kept then: the labels stay.
      await library.extract();
      assert.equal((await library.status()).stages.speakers?.pending ?? 0, 0);
      assertTurns((await library.transcript("later.mp4")).segments.filter((segment) => segment.source === "speech"));
    } finally {
      await library.close();
    }
  });
});

describe("the same voice in two videos is proposed as one person", { skip: needsFfmpeg }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "videorag-same-voice-test-"));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test("voice vectors kept by a diarizer that gives them show on each speaker, in the library and the CLI", async () => {
    const folders = ["monday", "tuesday"].map((name) => join(scratch, name));
    for (const folder of folders) mkdirSync(folder);
    const [monday, tuesday] = folders.map((folder, index) => makeMeeting(folder, { color: index === 0 ? "gray" : "navy" }));
    const libraryPath = join(scratch, "library");
    mkdirSync(libraryPath);
    const store = openSqliteStore(join(libraryPath, "library.sqlite"));
    const library = await openLibrary({ path: libraryPath, store, ocr: false, visual: false });
    try {
      assert.equal((await library.ingest([monday as string, tuesday as string])).failed, 0);
      const [first, second] = await Promise.all([library.speakers(monday as string), library.speakers(tuesday as string)]);
      assert.ok(first.speakers.every((speaker) => speaker.sameVoice === undefined), "no vectors, no proposals");
      // What the neural diarizer keeps: a unit voice vector per label. Dana's two are alike; Sam and Ravi are not.
      const unit = (values: number[]): Float32Array => {
        const norm = Math.hypot(...values);
        return Float32Array.from(values, (value) => value / norm);
      };
      const voice = (label: string, vector: number[]) => ({ label, turns: [[1, 5]] as [number, number][], vector: unit(vector) });
      await store.setSpeakerVoices(first.video.id, { key: "test", voices: [voice("Dana", [1, 0.1, 0]), voice("Sam", [0, 1, 0])] });
      await store.setSpeakerVoices(second.video.id, { key: "test", voices: [voice("Dana", [0.95, 0.15, 0.05]), voice("Ravi", [0, 0, 1])] });
      await library.renameSpeaker(second.video.id, "Dana", "Dana Lee");
      const { speakers } = await library.speakers(first.video.id);
      const dana = speakers.find((speaker) => speaker.label === "Dana");
      assert.equal(dana?.sameVoice?.length, 1, JSON.stringify(speakers));
      assert.equal(dana?.sameVoice?.[0]?.videoId, second.video.id);
      assert.equal(dana?.sameVoice?.[0]?.name, "Dana Lee");
      assert.ok((dana?.sameVoice?.[0]?.similarity ?? 0) > 0.95);
      assert.equal(speakers.find((speaker) => speaker.label === "Sam")?.sameVoice, undefined, "Sam's voice is no one's in the other video");
      const cli = runCli(scratch, ["speakers", "--library", libraryPath, first.video.id]);
      assert.equal(cli.status, 0, cli.stderr);
      assert.match(cli.stdout, /same voice as Dana Lee in meeting\.mp4 \((?:0\.9\d|1\.00)\)\?/);
    } finally {
      await library.close();
    }
  });
});
