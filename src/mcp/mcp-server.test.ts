// `videorag mcp` as an AI assistant meets it: a real MCP client spawns the CLI over stdio and calls each tool on a
// library holding friday.mp4, whose subtitles (friday.vtt) say "Yes, he's in - in a bad humor" from 0:03.000 to 0:04.299
// and "Somebody must've stolen the crown jewels" from 0:04.300 to 0:06.000.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AnswerJson, HitJson, VideoJson } from "../api/schemas.js";
import { cliArguments, runCli } from "../test-support/cli.js";
import { needsShared, sharedPath } from "../test-support/shared.js";

const server = cliArguments(["mcp"]);

type Segment = { startSecond: number; endSecond: number; text: string; source: string };

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
    const ingest = runCli(scratch, ["ingest", "--library", library, "--no-visual", sharedPath("media/subtitled/friday.mp4")]);
    assert.equal(ingest.status, 0, ingest.stderr);
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

  test("the server names itself and offers the four tools", async () => {
    assert.equal(client.getServerVersion()?.name, "videorag");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ["ask", "get_transcript", "list_videos", "search"]);
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
    assert.equal(videos.length, 1);
    const [video] = videos;
    assert.equal(video?.title, "friday.mp4");
    assert.ok((video?.durationSeconds ?? 0) > 5, `lasts ${video?.durationSeconds} s`);
    assert.ok((video?.clipCount ?? 0) >= 1);
    assert.match(textOf(result), new RegExp(`friday\\.mp4 \\(video ${video?.id}\\): 0:0\\d`));
  });

  test("get_transcript returns only the lines between the two seconds", async () => {
    const [video] = (await call("list_videos", {})).structuredContent?.videos as VideoJson[];
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
    assert.match(text, /\[friday\.mp4 0:03–0:04\] seconds 3–4\.3 \(subtitle\) Yes, he's in - in a bad humor/);
    assert.doesNotMatch(text, /Hildy|crown jewels/);
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
