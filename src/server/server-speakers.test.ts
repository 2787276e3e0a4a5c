// Speakers through the HTTP API, on a meeting whose WebVTT subtitles name who speaks (`<v Dana>`): the list with talk
// times, renaming by label (and what a rename changes: transcript, WebVTT voices, citations of answers, search by
// speaker, on the server's thread and on worker threads alike), and what a client gets wrong (a label the video does
// not have, a name that is not text, a video that is not there, a rename from another site).

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { AnswerJson, HitJson, SegmentJson, SpeakersJson } from "../api/index.js";
import { openLibrary, type Library } from "../library.js";
import { createApp } from "./create-app.js";
import { createIngestJobs, type IngestJobs } from "./ingest-jobs.js";
import { startServer } from "./start-server.js";
import { makeMeeting, meetingCues, needsFfmpeg } from "../test-support/meeting.js";
import { webVtt } from "./transcript-vtt.js";

const cues = meetingCues;
const json = (body: unknown, method = "POST"): RequestInit => ({ method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
const rename = (name: unknown): RequestInit => json({ name }, "PUT");

async function errorCode(response: Response): Promise<string | undefined> {
  return ((await response.json()) as { error?: { code: string } }).error?.code;
}

test("WebVTT: a speaker is a voice span, named where its label has a name; '<' and '&' are escaped in text and voices", () => {
  const vtt = webVtt(
    [
      { startSecond: 0, endSecond: 2, text: "a < b && c > d", source: "subtitle", speaker: "Speaker 1" },
      { startSecond: 2, endSecond: 4, text: "no one speaks here", source: "screen" },
      { startSecond: 4, endSecond: 6, text: "named", source: "speech", speaker: "Speaker 2" },
    ],
    { "Speaker 2": "R&D <Ops>" },
  );
  assert.equal(
    vtt,
    [
      "WEBVTT",
      "",
      "00:00:00.000 --> 00:00:02.000",
      "<v Speaker 1>a &lt; b &amp;&amp; c &gt; d</v>",
      "",
      "00:00:02.000 --> 00:00:04.000",
      "(on screen) no one speaks here",
      "",
      "00:00:04.000 --> 00:00:06.000",
      "<v R&amp;D &lt;Ops&gt;>named</v>",
      "",
    ].join("\n"),
  );
});

describe("speakers through the HTTP API, on a meeting with WebVTT voices", { skip: needsFfmpeg }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "videorag-server-speakers-"));
  let library: Library;
  let jobs: IngestJobs;
  let app: ReturnType<typeof createApp>;
  let meetingId: string;

  before(async () => {
    const video = makeMeeting(scratch);
    library = await openLibrary({ path: join(scratch, "library"), ocr: false, visual: false });
    const report = await library.ingest([video]);
    assert.equal(report.failed, 0, JSON.stringify(report.results));
    meetingId = (await library.find("meeting.mp4")).id;
    jobs = createIngestJobs({ library, dir: join(library.path, "jobs") });
    app = createApp({ library, jobs, version: "test" });
  });

  after(async () => {
    await jobs?.shutdown();
    await library?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test("the speakers: in order of first appearance, with talk time, first second and first words", async () => {
    const response = await app.request(`/api/videos/${meetingId}/speakers`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as SpeakersJson;
    assert.equal(body.videoId, meetingId);
    assert.equal(body.title, "meeting.mp4");
    assert.deepEqual(
      body.speakers.map(({ label, talkSeconds, firstSecond }) => [label, talkSeconds, firstSecond]),
      [
        ["Dana", 12, 1],
        ["Sam", 8, 6],
        ["Ravi", 4, 16],
      ],
    );
    assert.match(body.speakers[1]?.firstWords ?? "", /^I think we should move/);
    assert.ok(body.speakers.every((speaker) => !("name" in speaker)), "no one is named yet");
    // The transcript's segments carry the labels; no name is given yet.
    const transcript = (await (await app.request(`/api/videos/${meetingId}/transcript`)).json()) as { segments: SegmentJson[] };
    assert.deepEqual(transcript.segments.map((segment) => [segment.speaker, segment.speakerName]), cues.map(([who]) => [who, undefined]));
  });

  test("a rename by label answers with the list; the transcript, its WebVTT voices, answers' citations and search by speaker follow", async () => {
    const renamed = await app.request(`/api/videos/${meetingId}/speakers/Sam`, rename("Sam Okafor"));
    assert.equal(renamed.status, 200);
    const { speakers } = (await renamed.json()) as SpeakersJson;
    assert.deepEqual(speakers.map((speaker) => [speaker.label, speaker.name]), [["Dana", undefined], ["Sam", "Sam Okafor"], ["Ravi", undefined]]);

    const transcript = (await (await app.request(`/api/videos/${meetingId}/transcript?from=5&to=11`)).json()) as { segments: SegmentJson[] };
    assert.deepEqual(transcript.segments.find((segment) => /Postgres/.test(segment.text)), {
      startSecond: 6,
      endSecond: 10,
      text: "I think we should move the search index to Postgres.",
      source: "subtitle",
      speaker: "Sam",
      speakerName: "Sam Okafor",
      // The subtitles' lines read as English.
      language: "en",
    });

    const vtt = await (await app.request(`/api/videos/${meetingId}/transcript.vtt`)).text();
    // Each cue is in a language span too: the meeting's lines read as English.
    assert.match(vtt, /00:00:01\.000 --> 00:00:05\.000\n<lang en><v Dana>Welcome everyone, today we decide the budget for next year\.<\/v><\/lang>/);
    assert.match(vtt, /00:00:06\.000 --> 00:00:10\.000\n<lang en><v Sam Okafor>I think we should move the search index to Postgres\.<\/v><\/lang>/);

    const answer = (await (await app.request("/api/ask", json({ question: "who suggested Postgres?" }))).json()) as AnswerJson;
    assert.equal(answer.citations[0]?.speaker, "Sam Okafor", answer.text);
    assert.match(answer.text, /\[meeting\.mp4 0:06–0:10 · Sam Okafor\]/);

    const bySam = (await (await app.request("/api/search", json({ query: "Postgres", speaker: "Sam Okafor" }))).json()) as { hits: HitJson[] };
    // Each moment found is one where the speaker speaks: Sam at 0:06–0:10 and 0:21–0:25, Ravi at 0:16–0:20.
    const overlaps = (hit: HitJson, from: number, to: number): boolean => hit.startSecond < to && hit.endSecond > from;
    assert.ok(bySam.hits.length > 0);
    assert.ok(bySam.hits.every((hit) => overlaps(hit, 6, 10) || overlaps(hit, 21, 25)), JSON.stringify(bySam.hits));
    const byRavi = (await (await app.request("/api/search", json({ query: "Postgres", speaker: "Ravi" }))).json()) as { hits: HitJson[] };
    assert.ok(byRavi.hits.length > 0 && byRavi.hits.every((hit) => overlaps(hit, 16, 20)), JSON.stringify(byRavi.hits));
    const byNobody = (await (await app.request("/api/search", json({ query: "Postgres", speaker: "Nobody" }))).json()) as { hits: HitJson[] };
    assert.deepEqual(byNobody.hits, []);

    // null clears the name; the label is back in the voices.
    const cleared = (await (await app.request(`/api/videos/${meetingId}/speakers/Sam`, rename(null))).json()) as SpeakersJson;
    assert.equal(cleared.speakers[1]?.name, undefined);
    assert.match(await (await app.request(`/api/videos/${meetingId}/transcript.vtt`)).text(), /<v Sam>I think/);
  });

  test("a label with a space travels percent-encoded; a name with '<' and '&' is escaped in the WebVTT voice", async () => {
    const response = await app.request(`/api/videos/${meetingId}/speakers/${encodeURIComponent("Ravi")}`, rename("R&D <Ops>"));
    assert.equal(response.status, 200);
    assert.match(await (await app.request(`/api/videos/${meetingId}/transcript.vtt`)).text(), /<v R&amp;D &lt;Ops&gt;>Postgres needs a server/);
    assert.equal((await app.request(`/api/videos/${meetingId}/speakers/${encodeURIComponent("Speaker 9")}`, rename("X"))).status, 400);
    await app.request(`/api/videos/${meetingId}/speakers/Ravi`, rename(null));
  });

  test("a label the video lacks, an empty or non-text name, a bad body: 400; an unknown video: 404; nothing changes", async () => {
    for (const [label, body] of [
      ["Nobody", { name: "X" }],
      ["Dana", { name: "" }],
      ["Dana", { name: "   " }],
      ["Dana", { name: 5 }],
      ["Dana", { name: "x".repeat(101) }],
      ["Dana", { name: "Dana\u0000" }],
      ["Dana", { name: "Sam" }],
      ["Dana", {}],
      ["Dana", { name: "Dana", extra: true }],
    ] as const) {
      const response = await app.request(`/api/videos/${meetingId}/speakers/${label}`, json(body, "PUT"));
      assert.equal(response.status, 400, `${label} ${JSON.stringify(body)}`);
      assert.equal(await errorCode(response), "ARGUMENT_INVALID");
    }
    const notJson = await app.request(`/api/videos/${meetingId}/speakers/Dana`, { method: "PUT", headers: { "Content-Type": "application/json" }, body: "{" });
    assert.equal(notJson.status, 400);
    for (const response of [await app.request("/api/videos/0000000000000000/speakers"), await app.request("/api/videos/0000000000000000/speakers/Dana", rename("X"))]) {
      assert.equal(response.status, 404);
      assert.equal(await errorCode(response), "VIDEO_NOT_FOUND");
    }
    assert.equal((await app.request("/api/search", json({ query: "budget", speaker: "" }))).status, 400);
    const { speakers } = (await (await app.request(`/api/videos/${meetingId}/speakers`)).json()) as SpeakersJson;
    assert.ok(speakers.every((speaker) => speaker.name === undefined), JSON.stringify(speakers));
  });

  test("a rename is a state change: another site's page, or a body that is not JSON, cannot send it", async () => {
    const foreign = await app.request(`/api/videos/${meetingId}/speakers/Dana`, {
      method: "PUT",
      headers: { "Content-Type": "application/json", Origin: "http://evil.example" },
      body: JSON.stringify({ name: "Mallory" }),
    });
    assert.equal(foreign.status, 403);
    assert.equal(await errorCode(foreign), "ORIGIN_NOT_ALLOWED");
    const simple = await app.request(`/api/videos/${meetingId}/speakers/Dana`, { method: "PUT", headers: { "Content-Type": "text/plain" }, body: JSON.stringify({ name: "Mallory" }) });
    assert.equal(simple.status, 415);
    assert.equal(await errorCode(simple), "CONTENT_TYPE_UNSUPPORTED");
    const { speakers } = (await (await app.request(`/api/videos/${meetingId}/speakers`)).json()) as SpeakersJson;
    assert.equal(speakers[0]?.name, undefined);
  });

  test("the OpenAPI document describes both routes and the speaker fields", async () => {
    const document = (await (await app.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties?: Record<string, { properties?: Record<string, unknown>; items?: { properties?: Record<string, unknown> } }> }> };
    };
    assert.ok(document.paths["/api/videos/{id}/speakers"]?.get);
    assert.ok(document.paths["/api/videos/{id}/speakers/{label}"]?.put);
    assert.ok(document.components.schemas.SearchRequest?.properties?.speaker);
    assert.ok(document.components.schemas.Transcript?.properties?.segments?.items?.properties?.speakerName);
    assert.ok(document.components.schemas.Speakers?.properties?.speakers);
  });

  test("on worker threads: a name given on the server's thread is in the threads' answers, and search by speaker crosses over", async () => {
    const server = await startServer({ library, port: 0, threads: { libraryOptions: { ocr: false, visual: false }, queryThreads: 1 } });
    try {
      const renamed = await fetch(`${server.url}/api/videos/${meetingId}/speakers/Dana`, rename("Dana Lee"));
      assert.equal(renamed.status, 200);
      const answer = (await (await fetch(`${server.url}/api/ask`, json({ question: "what did Dana Lee say about the budget?" }))).json()) as AnswerJson;
      assert.ok(answer.citations.length > 0, answer.text);
      assert.ok(answer.citations.every((citation) => citation.speaker === "Dana Lee"), answer.text);
      const bySam = (await (await fetch(`${server.url}/api/search`, json({ query: "Postgres", speaker: "Sam" }))).json()) as { hits: HitJson[] };
      assert.ok(bySam.hits.length > 0);
      const byNobody = (await (await fetch(`${server.url}/api/search`, json({ query: "Postgres", speaker: "Nobody" }))).json()) as { hits: HitJson[] };
      assert.deepEqual(byNobody.hits, [], "the speaker reached the thread's search");
    } finally {
      await server.close();
    }
  });
});
