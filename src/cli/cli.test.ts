// The command line as a user runs it: output shapes, exit codes, one-line errors, and resuming a killed ingest.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { hitSchema, videoSchema } from "../api/index.js";
import { killCliWhen, runCli } from "../test-support/cli.js";
import { needsShared, sharedPath } from "../test-support/shared.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-cli-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const cli = (args: string[], env: Record<string, string> = {}) => runCli(scratch, args, env);
const killedIngest = (args: string[], when: RegExp) => killCliWhen(scratch, ["ingest", ...args], when);

test("an unknown command prints one line and exits 2", () => {
  const result = cli(["frobnicate"]);
  assert.equal(result.status, 2);
  assert.equal(result.stderr.trim().split("\n").length, 1);
  assert.match(result.stderr, /ARGUMENT_INVALID/);
});

test("--version prints the package's version, and a command's --help lists that command's options only", () => {
  const version = cli(["--version"]);
  assert.equal(version.status, 0);
  assert.equal(version.stdout.trim(), (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version);
  const ask = cli(["ask", "--help"]);
  assert.equal(ask.status, 0);
  assert.match(ask.stdout, /videorag ask "<question>"/);
  assert.match(ask.stdout, /--explain/);
  assert.doesNotMatch(ask.stdout, /--port|--queue|--budget|videorag ingest/);
  const serve = cli(["serve", "--help"]);
  assert.match(serve.stdout, /--port <n>/);
  assert.doesNotMatch(serve.stdout, /--explain/);
  const overview = cli(["--help"]);
  assert.match(overview.stdout, /videorag serve/);
  assert.match(overview.stdout, /videorag <command> --help/);
});

test("removing an unknown id is a clear error", () => {
  const result = cli(["remove", "deadbeefdeadbeef", "--library", join(scratch, "empty")]);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /VIDEO_NOT_FOUND/);
});

test("ingest, search --json and list --json speak the documented shapes", { skip: needsShared }, () => {
  const library = join(scratch, "shapes");
  const ingest = cli(["ingest", "--library", library, sharedPath("media/subtitled/friday.mp4")]);
  assert.equal(ingest.status, 0, ingest.stderr);
  assert.match(ingest.stdout, /Summary: 1 video/);
  const search = JSON.parse(cli(["search", "crown jewels", "--json", "--library", library]).stdout) as { hits: Record<string, unknown>[] };
  const hit = search.hits[0];
  assert.ok(hit);
  // The documented shape is the one the HTTP API and MCP speak: exactly the shared schema's fields.
  hitSchema.strict().parse(hit);
  assert.deepEqual(Object.keys(hit).sort(), ["endSecond", "path", "provenance", "retriever", "score", "source", "startSecond", "text", "title", "videoId"]);
  assert.match(String(hit.text), /crown jewels/);
  // Hybrid by default: BM25 and the graph's "crown jewels" entity both find it.
  assert.equal(hit.retriever, "bm25+graph");
  assert.deepEqual((hit.provenance as { retriever: string; entities?: string[] }[]).map((found) => found.retriever), ["bm25", "graph"]);
  assert.ok(Number(hit.startSecond) >= 4 && Number(hit.startSecond) < 5);
  const list = JSON.parse(cli(["list", "--json", "--library", library]).stdout) as { videos: Record<string, unknown>[] };
  assert.equal(list.videos[0]?.title, "friday.mp4");
  videoSchema.strict().parse(list.videos[0]);
  assert.ok(Number(list.videos[0]?.durationSeconds) > 5);
  const ask = cli(["ask", "who is in a bad humor?", "--library", library]);
  assert.match(ask.stdout, /\[friday\.mp4 0:03–0:04\]/);
  const explained = cli(["ask", "who is in a bad humor?", "--mode", "graph", "--explain", "--library", library]);
  assert.equal(explained.status, 0, explained.stderr);
  assert.match(explained.stdout, /found by graph \(rank 1, score [\d.]+, entities: [^)]*humor/);
  assert.match(explained.stdout, /graph mode/);
  const badMode = cli(["ask", "who?", "--mode", "sideways", "--library", library]);
  assert.equal(badMode.status, 2);
  assert.match(badMode.stderr, /ARGUMENT_INVALID.*--mode must be one of naive, graph, visual, hybrid, video/);
  const entity = cli(["entity", "crown jewels", "--library", library]);
  assert.equal(entity.status, 0, entity.stderr);
  assert.match(entity.stdout, /crown jewels \(concept\)[\s\S]*sources \(1 videos\)[\s\S]*friday\.mp4 chunk 0/);
});

type Listed = { videos: { id: string; pendingWork: boolean; pendingClips: number }[] };

test("a killed ingest leaves no partial video and the next run resumes from the finished stages", { skip: needsShared }, async () => {
  const library = join(scratch, "resume");
  const video = sharedPath("media/speech/sintel_trailer-720p.mp4");
  // Killed while the light index samples frames: nothing is listed; the finished light stages are kept.
  const beforeCommit = await killedIngest(["--no-speech", "--library", library, video], / subtitles: /);
  assert.doesNotMatch(beforeCommit, /commit:/, "the ingest committed before it could be killed");
  assert.equal((JSON.parse(cli(["list", "--json", "--library", library]).stdout) as Listed).videos.length, 0);

  // Killed after the light index committed, while OCR reads frames: the video is listed, with its deferred work pending.
  const afterCommit = await killedIngest(["--no-speech", "--library", library, video], / commit: /);
  assert.match(afterCommit, /probe: resumed from an earlier run/);
  assert.match(afterCommit, /subtitles: resumed from an earlier run/);
  assert.doesNotMatch(afterCommit, /✓ sintel/, "the ingest finished before it could be killed");
  const listed = (JSON.parse(cli(["list", "--json", "--library", library]).stdout) as Listed).videos;
  assert.equal(listed.length, 1);
  assert.equal(listed[0]?.pendingWork, true);

  const resumed = cli(["ingest", "--no-speech", "--library", library, video]);
  assert.equal(resumed.status, 0, resumed.stderr);
  assert.match(resumed.stderr, /resumed: deferred stages ran on 2 clips/);
  assert.match(resumed.stderr, /screen-text: \d/);
  const done = (JSON.parse(cli(["list", "--json", "--library", library]).stdout) as Listed).videos;
  assert.equal(done.length, 1);
  assert.equal(done[0]?.pendingWork, false);
  const again = cli(["ingest", "--no-speech", "--library", library, video]);
  assert.match(again.stderr, /already in the library/);
});

test("GRID talking heads go through pocketsphinx and their words become searchable", { skip: needsShared }, () => {
  const library = join(scratch, "grid");
  const result = cli(["ingest", "--library", library, sharedPath("media/speech/grid/brbk7n.mpg"), sharedPath("media/speech/grid/lwbsza.mpg")]);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stderr, /speech: pocketsphinx/);
  const hits = (JSON.parse(cli(["search", "seven now", "--json", "--library", library]).stdout) as { hits: { path: string; source: string[] }[] }).hits;
  assert.ok(hits[0]?.path.endsWith("brbk7n.mpg"), JSON.stringify(hits));
  assert.ok(hits[0]?.source.includes("speech"));
});

test("transcripts ingest from a folder, and eval retrieval / answers report their metrics", { skip: needsShared }, async () => {
  const { mkdirSync, readFileSync, symlinkSync, writeFileSync } = await import("node:fs");
  const all = JSON.parse(readFileSync(sharedPath("datasets/howto-qa/dev-questions.json"), "utf8")) as {
    id: string; question: string; answer: string; relevant_videos: string[];
  }[];
  const questions = all.slice(0, 12);
  const folder = join(scratch, "transcripts");
  mkdirSync(folder, { recursive: true });
  for (const id of new Set(questions.map((question) => question.relevant_videos[0]))) {
    symlinkSync(sharedPath("datasets/howto-qa/transcripts", `${id}.txt`), join(folder, `${id}.txt`));
  }
  const questionFile = join(scratch, "questions.json");
  writeFileSync(questionFile, JSON.stringify(questions));
  const library = join(scratch, "howto");
  const ingest = cli(["ingest", "--transcripts", folder, "--library", library]);
  assert.equal(ingest.status, 0, ingest.stderr);
  const retrieval = JSON.parse(cli(["eval", "retrieval", "--questions", questionFile, "--json", "--library", library]).stdout) as Record<string, number>;
  assert.equal(retrieval.questions, 12);
  assert.ok((retrieval.recallAt10 ?? 0) >= 0.9, JSON.stringify(retrieval));
  const answers = JSON.parse(cli(["eval", "answers", "--questions", questionFile, "--json", "--library", library]).stdout) as { rougeL: number };
  assert.ok(answers.rougeL > 5 && answers.rougeL < 100, JSON.stringify(answers.rougeL));
  const bad = cli(["eval", "retrieval", "--questions", join(folder, `${questions[0]?.relevant_videos[0]}.txt`), "--library", library]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /QUESTIONS_INVALID/);
});
