// `videorag mcp` as an AI assistant meets it: a real MCP client spawns the CLI over stdio and calls each tool on a
// library holding friday.mp4, whose subtitles (friday.vtt) say "Yes, he's in - in a bad humor" from 0:03.000 to 0:04.299
// and "Somebody must've stolen the crown jewels" from 0:04.300 to 0:06.000, and the transcript of a Popeye cartoon
// (video "popeye", known by its subtitles only), which says "That's the biggest buzzard I ever saw" at 0:57, and a
// meeting known by its WebVTT transcript, whose voices name who speaks (Dana, Sam, whom the CLI names "Sam Okafor").
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { AnswerJson, chaptersResponseSchema, HitJson, SegmentJson, SpeakersJson, summaryResponseSchema, VideoJson } from "../api/schemas.js";
import { cliArguments, runCli } from "../test-support/cli.js";
import { needsShared, sharedPath } from "../test-support/shared.js";

const server = cliArguments(["mcp"]);
const toolNames = ["ask", "get_transcript", "list_chapters", "list_speakers", "list_videos", "search", "summarize_video"];

type Segment = SegmentJson;

const meetingVtt = [
  "WEBVTT",
  "",
  "00:00:01.000 --> 00:00:05.000",
  "<v Dana>Welcome everyone, today we decide the budget for next year.</v>",
  "",
  "00:00:06.000 --> 00:00:10.000",
  "<v Sam>I think we should move the search index to Postgres.</v>",
  "",
  "00:00:11.000 --> 00:00:15.000",
  "<v Dana>The budget for hardware stays at forty thousand euros.</v>",
  "",
].join("\n");

/** The text a tool returned for the model, all its parts joined. */
function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

describe("videorag mcp over stdio", { skip: needsShared }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "videorag-mcp-test-"));
  const library = join(scratch, "library");
  const client = new Client({ name: "videorag-test", version: "0.0.0" });
  // Anything but protocol on the server's stdout reaches the client as an error here.
  const clientErrors: Error[] = [];
  let serverStderr = "";

  const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  before(async () => {
    const transcripts = join(scratch, "transcripts");
    mkdirSync(transcripts);
    copyFileSync(sharedPath("media/subtitled/popeye_p3.eng.srt"), join(transcripts, "popeye.srt"));
    writeFileSync(join(transcripts, "meeting.vtt"), meetingVtt);
    const ingest = runCli(scratch, ["ingest", "--library", library, "--no-visual", "--transcripts", transcripts, sharedPath("media/subtitled/friday.mp4")]);
    assert.equal(ingest.status, 0, ingest.stderr);
    const renamed = runCli(scratch, ["speakers", "--library", library, "meeting", "--rename", "Sam=Sam Okafor"]);
    assert.equal(renamed.status, 0, renamed.stderr);
    const environment = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...server, "--library", library, "--no-visual"],
      cwd: scratch,
      env: { ...environment, CI: "1" },
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => (serverStderr += chunk.toString()));
    client.onerror = (error) => clientErrors.push(error);
    await client.connect(transport);
  });

  after(() => rmSync(scratch, { recursive: true, force: true }));

  test("the server names itself and offers its seven tools", async () => {
    assert.equal(client.getServerVersion()?.name, "videorag");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), toolNames);
    for (const tool of tools) assert.ok(tool.outputSchema, `${tool.name} declares the shape of its structured content`);
  });

  test("search finds the moment inside the subtitle cue that says the words", async () => {
    const result = await call("search", { query: "crown jewels", limit: 3 });
    assert.ok(!result.isError, textOf(result));
    const [hit] = (result.structuredContent as { hits: HitJson[] }).hits;
    assert.ok(hit, "a moment is found");
    assert.equal(hit.title, "friday.mp4");
    assert.match(hit.text, /crown jewels/);
    // The moment overlaps the cue 4.300–6.000 and starts within it.
    assert.ok(hit.startSecond >= 4 && hit.startSecond < 5, `starts at ${hit.startSecond}`);
    assert.ok(hit.endSecond > 4.3 && hit.endSecond <= 6.5, `ends at ${hit.endSecond}`);
    // The model reads the same moment: citation, video id and seconds.
    const text = textOf(result);
    assert.match(text, /\[friday\.mp4 0:04–0:0[56]\]/);
    assert.ok(text.includes(`video ${hit.videoId}`), text);
    assert.match(text, /crown jewels/);
  });

  test("ask answers with a citation of friday.mp4 at the seconds of the cue", async () => {
    const result = await call("ask", { question: "who is in a bad humor?" });
    assert.ok(!result.isError, textOf(result));
    const answer = result.structuredContent as AnswerJson;
    assert.equal(answer.question, "who is in a bad humor?");
    const citation = answer.citations.find((cited) => /bad humor/.test(cited.quote));
    assert.ok(citation, `a citation quotes the cue: ${JSON.stringify(answer.citations)}`);
    assert.equal(citation.title, "friday.mp4");
    assert.ok(Math.abs(citation.startSecond - 3) < 0.01, `starts at ${citation.startSecond}`);
    assert.ok(Math.abs(citation.endSecond - 4.299) < 0.01, `ends at ${citation.endSecond}`);
    const text = textOf(result);
    assert.match(text, /\[friday\.mp4 0:03–0:04\]/);
    assert.ok(text.includes(`video ${citation.videoId}, seconds 3–4.3`), text);
  });

  test("list_videos lists friday.mp4 with its duration and clips", async () => {
    const result = await call("list_videos", {});
    assert.ok(!result.isError, textOf(result));
    const { videos } = result.structuredContent as { videos: VideoJson[] };
    assert.deepEqual(videos.map((video) => video.title).sort(), ["friday.mp4", "meeting", "popeye"]);
    const video = videos.find((listed) => listed.title === "friday.mp4");
    assert.equal(video?.title, "friday.mp4");
    assert.ok((video?.durationSeconds ?? 0) > 5, `lasts ${video?.durationSeconds} s`);
    assert.ok((video?.clipCount ?? 0) >= 1);
    assert.match(textOf(result), new RegExp(`friday\\.mp4 \\(video ${video?.id}\\): 0:0\\d`));
  });

  test("get_transcript returns only the lines between the two seconds", async () => {
    const video = ((await call("list_videos", {})).structuredContent?.videos as VideoJson[]).find((listed) => listed.title === "friday.mp4");
    assert.ok(video);
    // By an id prefix, as an assistant might shorten it.
    const result = await call("get_transcript", { video: video.id.slice(0, 8), fromSecond: 1.6, toSecond: 3.5 });
    assert.ok(!result.isError, textOf(result));
    const transcript = result.structuredContent as { videoId: string; title: string; segments: Segment[] };
    assert.equal(transcript.videoId, video.id);
    const subtitles = transcript.segments.filter((segment) => segment.source === "subtitle");
    assert.deepEqual(
      subtitles.map((segment) => segment.text),
      ["Tell me, is the lord of the universe in?", "Yes, he's in - in a bad humor"],
    );
    for (const segment of transcript.segments) {
      assert.ok(segment.startSecond < 3.5 && segment.endSecond > 1.6, `${segment.startSecond}–${segment.endSecond} is outside 1.6–3.5`);
    }
    const text = textOf(result);
    // A transcript names every line's speaker (friday's from the diarizer, where one runs: its subtitles name no one).
    assert.match(text, /\[friday\.mp4 0:03–0:04(?: · Speaker 1)?\] seconds 3–4\.3 \(subtitle, in en\) Yes, he's in - in a bad humor/);
    assert.doesNotMatch(text, /Hildy|crown jewels/);
  });

  test("get_transcript says who speaks each line and in which language: the label in structure, with the name given to it; the name in text", async () => {
    const result = await call("get_transcript", { video: "meeting", fromSecond: 0, toSecond: 12 });
    assert.ok(!result.isError, textOf(result));
    const { segments } = result.structuredContent as { segments: Segment[] };
    assert.deepEqual(
      segments.map((segment) => [segment.startSecond, segment.speaker, segment.speakerName, segment.language]),
      [
        [1, "Dana", undefined, "en"],
        [6, "Sam", "Sam Okafor", "en"],
        [11, "Dana", undefined, "en"],
      ],
    );
    const text = textOf(result);
    assert.match(text, /^\[meeting 0:01–0:05 · Dana\] seconds 1–5 \(transcript, in en\) Welcome everyone/m);
    assert.match(text, /^\[meeting 0:06–0:10 · Sam Okafor\] seconds 6–10 \(transcript, in en\) I think we should move/m);
  });

  test("list_speakers gives who speaks, in order, with talk time, first words and the name given; search keeps to a speaker", async () => {
    const result = await call("list_speakers", { video: "meeting" });
    assert.ok(!result.isError, textOf(result));
    const body = result.structuredContent as SpeakersJson;
    assert.equal(body.videoId, "meeting");
    assert.deepEqual(
      body.speakers.map(({ label, name, talkSeconds, firstSecond }) => [label, name, talkSeconds, firstSecond]),
      [
        ["Dana", undefined, 8, 1],
        ["Sam", "Sam Okafor", 4, 6],
      ],
    );
    const text = textOf(result);
    assert.match(text, /^meeting \(video meeting\), 2 speakers in order of first appearance:/);
    assert.match(text, /^2\. Sam Okafor \(label "Sam"\): 4 seconds of talk, first at 0:06 \(second 6\): "I think we should move/m);
    // friday's subtitles name no one: its voices are the diarizer's, which runs where speech can be recognised.
    const friday = await call("list_speakers", { video: "friday.mp4" });
    assert.match(textOf(friday), /friday\.mp4 \(video \w+\)(?: has no speakers|, 1 speaker in order of first appearance:)/);

    const bySam = (await call("search", { query: "Postgres", speaker: "Sam Okafor" })).structuredContent as { hits: HitJson[] };
    assert.ok(bySam.hits.length > 0 && bySam.hits.every((hit) => hit.videoId === "meeting"), JSON.stringify(bySam.hits));
    const byNobody = (await call("search", { query: "Postgres", speaker: "Nobody" })).structuredContent as { hits: HitJson[] };
    assert.deepEqual(byNobody.hits, []);
  });

  test("search and ask with videoIds keep to those videos; an unknown one is an error result", async () => {
    const everywhere = (await call("search", { query: "biggest buzzard", limit: 5 })).structuredContent as { hits: HitJson[] };
    assert.equal(everywhere.hits[0]?.videoId, "popeye");
    const friday = await call("search", { query: "biggest buzzard", limit: 5, videoIds: ["friday.mp4"] });
    assert.ok(!friday.isError, textOf(friday));
    const fridayHits = (friday.structuredContent as { hits: HitJson[] }).hits;
    assert.ok(fridayHits.every((hit) => hit.title === "friday.mp4"), JSON.stringify(fridayHits.map((hit) => hit.title)));
    assert.doesNotMatch(textOf(friday), /popeye/);

    const inPopeye = await call("ask", { question: "who is in a bad humor?", videoIds: ["popeye"] });
    assert.ok(!inPopeye.isError, textOf(inPopeye));
    const answer = inPopeye.structuredContent as AnswerJson;
    assert.deepEqual(answer.scope, [{ videoId: "popeye", title: "popeye" }]);
    assert.ok(answer.citations.every((citation) => citation.videoId === "popeye"), JSON.stringify(answer.citations));
    assert.doesNotMatch(textOf(inPopeye), /friday\.mp4/);
    const inFriday = (await call("ask", { question: "who is in a bad humor?", videoIds: ["friday.mp4"] })).structuredContent as AnswerJson;
    assert.equal(inFriday.citations[0]?.title, "friday.mp4");

    const unknown = await call("ask", { question: "who is in a bad humor?", videoIds: ["no-such-video"] });
    assert.equal(unknown.isError, true);
    assert.match(textOf(unknown), /^VIDEO_NOT_FOUND no video "no-such-video"/);
  });

  test("list_chapters gives the chapters in order, each cited with the video and its seconds", async () => {
    const result = await call("list_chapters", { video: "popeye" });
    assert.ok(!result.isError, textOf(result));
    const { videoId, chapters } = result.structuredContent as z.infer<typeof chaptersResponseSchema>;
    assert.equal(videoId, "popeye");
    assert.ok(chapters.length >= 2, JSON.stringify(chapters));
    assert.equal(chapters[0]?.startSecond, 0);
    assert.ok((chapters.at(-1)?.endSecond ?? 0) > 58, "the last chapter runs to the end, past 0:58");
    chapters.forEach((chapter, index) => assert.equal(chapter.startSecond, index === 0 ? 0 : chapters[index - 1]?.endSecond, "chapters follow one another"));
    const text = textOf(result);
    assert.match(text, /^popeye \(video popeye\), \d+ chapters:/);
    assert.match(text, /^1\. \[popeye 0:00–0:\d\d\] video popeye, seconds 0–[\d.]+: \S.*\n {3}\S/m);
    for (const chapter of chapters) assert.ok(text.includes(`: ${chapter.title}\n   ${chapter.summary.replace(/\s+/g, " ").trim().slice(0, 100)}`), text);
  });

  test("summarize_video: sentences citing the video at the seconds they come from, in text and structure", async () => {
    const result = await call("summarize_video", { video: "friday.mp4", length: "short" });
    assert.ok(!result.isError, textOf(result));
    const summary = result.structuredContent as z.infer<typeof summaryResponseSchema>;
    assert.equal(summary.title, "friday.mp4");
    assert.equal(summary.length, "short");
    assert.ok(summary.sentences.length >= 1);
    for (const sentence of summary.sentences) {
      assert.ok(sentence.citations.length >= 1, JSON.stringify(sentence));
      for (const citation of sentence.citations) assert.ok(citation.videoId === summary.videoId && citation.startSecond >= 0 && citation.endSecond <= 6.5, JSON.stringify(citation));
    }
    const text = textOf(result);
    assert.match(text, /bad humor|crown jewels/);
    assert.match(text, /\[friday\.mp4 0:0\d–0:0\d\]/);
    assert.ok(text.includes(`Sources:\n1. [friday.mp4 0:0`), text);
    assert.ok(text.includes(`video ${summary.videoId}, seconds `), text);
    const bad = await call("summarize_video", { video: "friday.mp4", length: "epic" });
    assert.equal(bad.isError, true, "a length it does not know is refused");
  });

  test("an unknown video is an error result with its code, and the server keeps serving", async () => {
    const result = await call("get_transcript", { video: "no-such-video" });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^VIDEO_NOT_FOUND no video "no-such-video"/);
    const again = await call("list_videos", {});
    assert.ok(!again.isError, textOf(again));
  });

  test("the server wrote nothing but protocol to stdout", async () => {
    await client.close();
    assert.deepEqual(clientErrors.map(String), [], serverStderr);
  });

  test("a client that closes stdin ends the server cleanly, with exit status 0", () => {
    const ping = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })}\n`;
    const served = spawnSync(process.execPath, [...server, "--library", library], { cwd: scratch, input: ping, encoding: "utf8", timeout: 30_000 });
    assert.equal(served.status, 0, served.stderr);
    assert.deepEqual(JSON.parse(served.stdout), { jsonrpc: "2.0", id: 1, result: {} });
  });
});

// What a broken or hostile client sends, over real pipes to the real process; needs no media, so it runs in every clone.
describe("videorag mcp answers lines it cannot serve and keeps serving", () => {
  const scratch = mkdtempSync(join(tmpdir(), "videorag-mcp-lines-test-"));
  let child: ChildProcessWithoutNullStreams;
  let exited: Promise<number | null>;
  let lines: AsyncIterator<string>;
  let stderr = "";

  before(() => {
    child = spawn(process.execPath, [...server, "--library", join(scratch, "library"), "--no-visual"], { cwd: scratch, env: { ...process.env, CI: "1" } });
    exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // A server that died is reported by the assertions on its replies, not by an EPIPE from writing to it.
    child.stdin.on("error", () => {});
    lines = createInterface({ input: child.stdout, crlfDelay: Infinity })[Symbol.asyncIterator]();
  });

  /** Sends `line` and returns the next message the server writes; fails when the server ends or is silent for 10 s instead. */
  async function exchange(line: string, what: string): Promise<Record<string, unknown>> {
    child.stdin.write(`${line}\n`);
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no reply to ${what} within 10 s`)), 10_000);
    });
    try {
      const next = await Promise.race([lines.next(), silence]);
      assert.ok(!next.done, `the server ended instead of answering ${what} (exit ${child.exitCode}): ${stderr}`);
      return JSON.parse(next.value) as Record<string, unknown>;
    } finally {
      clearTimeout(timer);
    }
  }

  after(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(scratch, { recursive: true, force: true });
  });

  test("a line that is not JSON is answered with a parse error (-32700, id null)", async () => {
    const reply = await exchange('{"jsonrpc":"2.0","id":1,"method":', "a malformed line");
    assert.equal(reply.id, null);
    assert.equal((reply.error as { code: number }).code, -32700);
  });

  test("a batch array is answered with -32600, id null, since MCP has no batches", async () => {
    const reply = await exchange(JSON.stringify([{ jsonrpc: "2.0", id: 2, method: "ping" }]), "a batch");
    assert.equal(reply.id, null);
    assert.equal((reply.error as { code: number }).code, -32600);
    assert.match((reply.error as { message: string }).message, /batch/);
  });

  test("a single 11 MiB line is answered with -32600 naming the 10 MiB limit, and the server stays up", async () => {
    const padding = "x".repeat(11 * 1024 * 1024);
    const reply = await exchange(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping", params: { padding } }), "an 11 MiB line");
    assert.equal(reply.id, null);
    assert.equal((reply.error as { code: number }).code, -32600);
    assert.match((reply.error as { message: string }).message, /10485760 bytes \(10 MiB\)/);
    assert.equal(child.exitCode, null, "the server is still running");
  });

  test("after all that, the server still initializes and lists its seven tools", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 4,
      method: "initialize",
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "videorag-test", version: "0.0.0" } },
    };
    const initialized = await exchange(JSON.stringify(initialize), "initialize");
    assert.equal(initialized.id, 4);
    assert.equal((initialized.result as { serverInfo: { name: string } }).serverInfo.name, "videorag");
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    const listed = await exchange(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list" }), "tools/list");
    assert.equal(listed.id, 5);
    const { tools } = listed.result as { tools: { name: string }[] };
    assert.deepEqual(tools.map((tool) => tool.name).sort(), toolNames);
  });

  test("closing stdin ends the server with exit status 0, each bad line logged on stderr", async () => {
    child.stdin.end();
    assert.equal(await exited, 0, stderr);
    assert.match(stderr, /^videorag: mcp: Parse error/m);
    assert.match(stderr, /^videorag: mcp: Invalid Request: batches/m);
    assert.match(stderr, /^videorag: mcp: Invalid Request: a message longer than 10485760 bytes/m);
  });
});
