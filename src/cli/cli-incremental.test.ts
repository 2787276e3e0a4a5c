// Incremental extraction through the command line: `ingest --incremental`, `status --json`, `list --json` marking pending
// work, `ask --json` reporting what it extracted with a progress line, a question-time extraction killed with SIGKILL
// leaving the library consistent, `extract` finishing it, and bad input handled as a full ingest handles it.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { killCliWhen, runCli } from "../test-support/cli.js";
import { needsShared, sharedPath } from "../test-support/shared.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-cli-incremental-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const cli = (args: string[]) => runCli(scratch, args);

interface Status {
  videos: number;
  clips: number;
  extractedClips: number;
  pendingClips: number;
  failedClips: number;
  stages: Record<string, { done: number; pending: number; failed: number }>;
  byVideo: { videoId: string; title: string; pendingClips: number }[];
}
const status = (library: string): Status => JSON.parse(cli(["status", "--json", "--library", library]).stdout) as Status;

test("a question-time extraction killed with SIGKILL leaves the library consistent; the next question finishes it", { skip: needsShared }, async () => {
  const library = join(scratch, "killed");
  const files = [sharedPath("media/audio/jfk.wav"), sharedPath("media/speech/grid/bbaf2n.mpg"), sharedPath("media/subtitled/friday.mp4")];
  const ingest = cli(["ingest", "--incremental", "--library", library, ...files]);
  assert.equal(ingest.status, 0, ingest.stderr);
  assert.match(ingest.stderr, /deferred: speech/);
  assert.doesNotMatch(ingest.stderr, / speech: \d/, "no speech recognition at ingest");
  const light = status(library);
  assert.equal(light.videos, 3);
  assert.equal(light.stages.speech?.done ?? 0, 0);
  assert.ok((light.stages.speech?.pending ?? 0) >= 2, JSON.stringify(light.stages));
  const listed = JSON.parse(cli(["list", "--json", "--library", library]).stdout) as { videos: { title: string; pendingWork: boolean }[] };
  assert.deepEqual(listed.videos.map((video) => [video.title, video.pendingWork]).sort(), [["bbaf2n.mpg", true], ["friday.mp4", true], ["jfk.wav", true]]);

  // Killed as soon as it starts extracting: whatever it had not written back is simply still pending.
  const killed = await killCliWhen(scratch, ["ask", "what did he say: ask not what your country can do for you", "--library", library], /extracting: round 1/);
  assert.match(killed, /extracting: round 1, \d+ clips \(speech\)/);
  const afterKill = status(library);
  assert.equal(afterKill.clips, light.clips);
  assert.equal(afterKill.extractedClips + afterKill.pendingClips + afterKill.failedClips, afterKill.clips, JSON.stringify(afterKill));
  assert.equal(afterKill.failedClips, 0);

  const answer = cli(["ask", "what did he say: ask not what your country can do for you", "--json", "--library", library]);
  assert.equal(answer.status, 0, answer.stderr);
  const json = JSON.parse(answer.stdout) as {
    citations: { title: string }[];
    extraction: { clips: { stages: string[] }[]; seconds: number; rounds: number };
    profile: { extractedClips: number };
    timings: { totalMs: number };
    preliminary?: { text: string; citations: { title: string }[]; timings: { totalMs: number } };
  };
  assert.equal(json.citations[0]?.title, "jfk.wav");
  // Both answers are reported, each with its time: the one from what was indexed first.
  assert.ok(json.preliminary && json.preliminary.text.length > 0, answer.stdout);
  assert.ok(json.preliminary.timings.totalMs <= json.timings.totalMs, JSON.stringify([json.preliminary.timings, json.timings]));
  assert.ok(json.extraction.rounds >= 1);
  assert.ok(json.extraction.seconds > 0);
  assert.ok(json.extraction.clips.some((clip) => clip.stages.includes("speech")), JSON.stringify(json.extraction));
  assert.match(answer.stderr, /extracted \d+ clips in [\d.]+ s/);

  const again = JSON.parse(cli(["ask", "what did he say: ask not what your country can do for you", "--json", "--library", library]).stdout) as typeof json;
  assert.deepEqual(again.extraction.clips, [], "asked twice, nothing is extracted twice");

  const budget = cli(["extract", "--budget", "1", "--json", "--library", library]);
  assert.equal(budget.status, 0, budget.stderr);
  const all = cli(["extract", "--all", "--library", library]);
  assert.equal(all.status, 0, all.stderr);
  assert.match(all.stdout, /extracted \d+ clips in [\d.]+ s; 0 clips still pending, 0 failed/);
  const done = status(library);
  assert.deepEqual([done.pendingClips, done.failedClips, done.extractedClips], [0, 0, done.clips]);
  const text = cli(["status", "--library", library]);
  assert.match(text.stdout, /3 videos, \d+ clips: \d+ extracted, 0 pending, 0 failed/);
  assert.match(text.stdout, /speech: +\d+ done +0 pending/);
});

test("a question that waits for extraction prints the answer from what is indexed first, then the final one", { skip: needsShared }, () => {
  const library = join(scratch, "preliminary");
  assert.equal(cli(["ingest", "--incremental", "--library", library, sharedPath("media/audio/jfk.wav")]).status, 0);
  const answer = cli(["ask", "ask not what your country can do for you", "--library", library]);
  assert.equal(answer.status, 0, answer.stderr);
  const first = answer.stdout.indexOf("Preliminary answer, from what is indexed now");
  const final = answer.stdout.indexOf("Final answer:");
  assert.ok(first === 0 && final > first, answer.stdout);
  // Nothing was heard before extraction; the final answer quotes the speech recognised for the question.
  assert.doesNotMatch(answer.stdout.slice(0, final), /country/i);
  assert.match(answer.stdout.slice(final), /country[\s\S]*\[jfk\.wav 0:\d\d–0:\d\d\]/);
  assert.match(answer.stdout, /first answer \d+ ms, final \d+ ms\)/);
  assert.ok(!answer.stdout.includes("\u001b["), "not a terminal: no escape codes");
});

test("bad input in an incremental ingest: clear codes, the batch goes on, nothing half-written", { skip: needsShared }, () => {
  const library = join(scratch, "bad");
  const notes = join(scratch, "notes.mp4");
  const empty = join(scratch, "empty.mp4");
  writeFileSync(notes, "these are my meeting notes, not a video\n".repeat(20));
  writeFileSync(empty, "");
  const result = cli(["ingest", "--incremental", "--json", "--library", library, notes, sharedPath("media/audio/jfk.wav"), empty]);
  assert.equal(result.status, 3, "some input could not be ingested");
  const report = JSON.parse(result.stdout) as { results: { path: string; status: string; error?: { code: string } }[] };
  const byName = new Map(report.results.map((entry) => [entry.path.split("/").at(-1), entry]));
  assert.equal(byName.get("notes.mp4")?.error?.code, "INPUT_NOT_MEDIA");
  assert.equal(byName.get("empty.mp4")?.error?.code, "INPUT_EMPTY");
  assert.equal(byName.get("jfk.wav")?.status, "ingested");
  const now = status(library);
  assert.equal(now.videos, 1, "only the good file is in the library");
  assert.deepEqual(now.byVideo.map((entry) => entry.title), ["jfk.wav"]);
});

test("extract with both --all and --budget is a clear error", () => {
  const result = cli(["extract", "--all", "--budget", "3", "--library", join(scratch, "empty")]);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /ARGUMENT_INVALID.*--all or --budget/);
});
