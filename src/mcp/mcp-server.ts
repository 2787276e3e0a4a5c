// The Model Context Protocol face of a library: tools an AI assistant calls over stdio to search, ask, list videos,
// read transcripts (who speaks included), list a video's chapters and speakers, and summarize a video. Every result cites the video and the second twice: in text for the model, and as structured content.

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { formatCitation, formatTimestamp } from "../answer/index.js";
import {
  answerJson,
  answerSchema,
  askRequestSchema,
  chapterJson,
  chaptersResponseSchema,
  hitJson,
  retrievalModeSchema,
  searchRequestSchema,
  searchResponseSchema,
  segmentJson,
  speakersJson,
  speakersResponseSchema,
  summaryJson,
  summaryResponseSchema,
  transcriptSchema,
  videoJson,
  videoListSchema,
  type AnswerJson,
  type HitJson,
  type SpeakersJson,
  type VideoJson,
} from "../api/schemas.js";
import type { Library } from "../library.js";
import { toVideoRagError, VideoRagError } from "../spec/index.js";
import { summaryLengths, type SummaryLength } from "../summary/index.js";
import { StdioLineTransport } from "./stdio-line-transport.js";

/** What the server tells clients about itself. */
export interface McpServerOptions {
  /** The videorag version, reported in the MCP handshake. */
  version: string;
}

type Transcript = z.infer<typeof transcriptSchema>;
type Chapters = z.infer<typeof chaptersResponseSchema>;
type Summary = z.infer<typeof summaryResponseSchema>;

// The request fields are the HTTP API's; only the descriptions, which the assistant reads, are the tools' own.
const modeField = retrievalModeSchema.optional().describe("How to retrieve: naive | graph | visual | hybrid (default) | video");
const limitField = (what: string) => searchRequestSchema.shape.limit.describe(what);
const secondField = (what: string) => z.number().min(0).optional().describe(what);
const videoField = z.string().trim().min(1).describe("The video: its id, an id prefix of at least 4 characters, its path or its title");
// The HTTP API takes exact ids only; an assistant may name a video as get_transcript lets it, and the library resolves it.
const videoIdsField = (what: string) => searchRequestSchema.shape.videoIds.describe(`${what}: ids from list_videos (an id prefix, path or title works too); absent, the whole library`);

/** Seconds as exact as the index holds them, without float noise: 4.299 → "4.3". */
function seconds(value: number): string {
  return String(Number(value.toFixed(2)));
}

/** `[friday.mp4 0:03–0:04] video 1a2b…, seconds 3–4.3`: the citation people read, and where a program seeks to. */
function citedMoment(moment: { videoId: string; title: string; startSecond: number; endSecond: number }, estimated = false): string {
  return `${formatCitation(moment, estimated)} video ${moment.videoId}, seconds ${seconds(moment.startSecond)}–${seconds(moment.endSecond)}`;
}

function oneLine(text: string, maxCharacters: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > maxCharacters ? `${flat.slice(0, maxCharacters - 1)}…` : flat;
}

function searchText(query: string, hits: HitJson[]): string {
  if (hits.length === 0) return `No moments match "${query}".`;
  return hits
    .map((hit, index) => `${index + 1}. ${citedMoment(hit)} (score ${hit.score.toPrecision(3)}; ${[hit.retriever, ...hit.source].join(", ")})\n   ${oneLine(hit.text, 400)}`)
    .join("\n");
}

function answerText(answer: AnswerJson): string {
  const lines = [answer.text];
  if (answer.citations.length > 0) {
    lines.push("", "Sources:");
    answer.citations.forEach((citation, index) => lines.push(`${index + 1}. ${citedMoment(citation, citation.timesEstimated)}: "${oneLine(citation.quote, 300)}"`));
  }
  for (const warning of answer.warnings) lines.push(`warning: ${warning.detail}`);
  return lines.join("\n");
}

function summaryText(summary: Summary): string {
  const lines = [`${summary.title} (video ${summary.videoId}), ${summary.length} summary${summary.madeBy === "lite" ? " (extractive: the video's own words)" : ""}:`, summary.text];
  const citations = summary.sentences.flatMap((sentence) => sentence.citations);
  if (citations.length > 0) {
    lines.push("", "Sources:");
    citations.forEach((citation, index) => lines.push(`${index + 1}. ${citedMoment(citation, citation.timesEstimated)}: "${oneLine(citation.quote, 300)}"`));
  }
  for (const warning of summary.warnings) lines.push(`warning: ${warning.detail}`);
  return lines.join("\n");
}

function chaptersText(chapters: Chapters): string {
  const head = `${chapters.title} (video ${chapters.videoId})`;
  if (chapters.chapters.length === 0) return `${head} has no chapters: no subtitles, speech or screen text is indexed.`;
  return [
    `${head}, ${chapters.chapters.length} ${chapters.chapters.length === 1 ? "chapter" : "chapters"}:`,
    ...chapters.chapters.map(
      (chapter) => `${chapter.index + 1}. ${citedMoment({ videoId: chapters.videoId, title: chapters.title, startSecond: chapter.startSecond, endSecond: chapter.endSecond })}: ${chapter.title}${chapter.summary ? `\n   ${oneLine(chapter.summary, 300)}` : ""}`,
    ),
  ].join("\n");
}

function clips(count: number): string {
  return `${count} ${count === 1 ? "clip" : "clips"}`;
}

function videosText(videos: VideoJson[]): string {
  if (videos.length === 0) return "The library is empty.";
  return videos
    .map((video) => {
      const work = video.pendingClips > 0 ? `; ${clips(video.pendingClips)} still pending extraction` : "";
      return `${video.title} (video ${video.id}): ${formatTimestamp(video.durationSeconds)} (${seconds(video.durationSeconds)} seconds), ${clips(video.clipCount)}, ${video.kind}${work}; ${video.path}`;
    })
    .join("\n");
}

function transcriptText(transcript: Transcript, range: { fromSecond: number; toSecond: number; estimated: boolean }): string {
  const head = `${transcript.title} (video ${transcript.videoId}), seconds ${seconds(range.fromSecond)}–${seconds(range.toSecond)}:`;
  if (transcript.segments.length === 0) return `${head} no indexed text in this range.`;
  const lines = transcript.segments.map((segment) => {
    // Who speaks, as citations name them: the name given, else the label.
    const cited = { title: transcript.title, startSecond: segment.startSecond, endSecond: segment.endSecond, speaker: segment.speakerName ?? segment.speaker };
    const where = segment.language ? `${segment.source}, in ${segment.language}` : segment.source;
    return `${formatCitation(cited, range.estimated)} seconds ${seconds(segment.startSecond)}–${seconds(segment.endSecond)} (${where}) ${oneLine(segment.text, 1000)}`;
  });
  return [head, ...lines].join("\n");
}

function speakersText(body: SpeakersJson): string {
  const head = `${body.title} (video ${body.videoId})`;
  if (body.speakers.length === 0) return `${head} has no speakers: no speech was split into voices, and no subtitle names who speaks.`;
  return [
    `${head}, ${body.speakers.length} ${body.speakers.length === 1 ? "speaker" : "speakers"} in order of first appearance:`,
    ...body.speakers.map((speaker, index) => {
      const who = speaker.name ? `${speaker.name} (label "${speaker.label}")` : speaker.label;
      const alike = (speaker.sameVoice ?? []).map((match) => `${match.name ?? match.label} in ${match.title} (video ${match.videoId}, similarity ${match.similarity})`);
      return `${index + 1}. ${who}: ${seconds(speaker.talkSeconds)} seconds of talk, first at ${formatTimestamp(speaker.firstSecond)} (second ${seconds(speaker.firstSecond)}): "${oneLine(speaker.firstWords, 200)}"${alike.length > 0 ? `; the same voice as ${alike.join(", ")}?` : ""}`;
    }),
  ].join("\n");
}

/** A tool's success: the text the model reads and the same facts as structured content. */
function result(text: string, structuredContent: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent };
}

/** Runs a tool; a failure becomes an error result (`VIDEO_NOT_FOUND no video …`) the model can read, never a crash. */
async function guarded(work: () => Promise<CallToolResult> | CallToolResult): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    const failure = toVideoRagError(error);
    return { content: [{ type: "text", text: `${failure.code} ${failure.message}` }], isError: true };
  }
}

/** An MCP server whose tools run on `library`; connect it to a transport (serveMcp does, over stdio). */
export function createMcpServer(library: Library, options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: "videorag", version: options.version },
    {
      instructions:
        "A library of videos indexed by what is said and shown in them. Use search to find moments, ask for an answer with " +
        "citations (both can be limited to some videos with videoIds, search to one speaker), list_videos to see the library, " +
        "get_transcript to read what is said around a moment and who says it, list_chapters for a video's parts, " +
        "list_speakers for who speaks in it and summarize_video for what it says. Cite moments to the user as [title m:ss–m:ss].",
    },
  );

  server.registerTool(
    "search",
    {
      title: "Search the videos",
      description: "Ranked moments of the library's videos matching a query: each with the video, its start and end second, and the text found there.",
      inputSchema: {
        query: searchRequestSchema.shape.query.describe("What to look for: words said or shown, a topic, a name"),
        mode: modeField,
        limit: limitField("Most moments to return (default 10)"),
        videoIds: videoIdsField("Search only these videos"),
        speaker: searchRequestSchema.shape.speaker.describe("Only moments where this speaker speaks: a name from list_speakers, or a label such as \"Speaker 2\""),
      },
      outputSchema: searchResponseSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, mode, limit, videoIds, speaker }, extra) =>
      guarded(async () => {
        const hits = (await library.search(query, { mode, limit, videos: videoIds, speaker, signal: extra.signal })).map(hitJson);
        return result(searchText(query, hits), { hits });
      }),
  );

  server.registerTool(
    "ask",
    {
      title: "Ask the videos",
      description:
        "An answer to a question drawn from the library's videos, with citations: the video and the seconds each part of the answer comes from.",
      inputSchema: {
        question: askRequestSchema.shape.question.describe("The question, in plain words"),
        mode: modeField,
        limit: limitField("How many moments to draw the answer from"),
        videoIds: videoIdsField("Answer from these videos only"),
      },
      outputSchema: answerSchema,
      // Asking may extract deferred text from the clips it needs, which the library keeps: not read-only, never destructive.
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ question, mode, limit, videoIds }, extra) =>
      guarded(async () => {
        // A tool call returns once: the final answer, without the preliminary one a person watching would have seen.
        const { preliminary: _shown, ...answer } = answerJson(question, await library.ask(question, { mode, limit, videos: videoIds, signal: extra.signal }));
        return result(answerText(answer), answer);
      }),
  );

  server.registerTool(
    "list_videos",
    {
      title: "List the videos",
      description: "The videos in the library: id, title, duration in seconds, clip count, and whether deferred indexing work is pending.",
      outputSchema: videoListSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      guarded(async () => {
        const work = new Map((await library.status()).byVideo.map((entry) => [entry.videoId, entry]));
        const videos = (await library.list()).map((video) => videoJson(video, work.get(video.id)));
        return result(videosText(videos), { videos });
      }),
  );

  server.registerTool(
    "get_transcript",
    {
      title: "Read a video's transcript",
      description:
        "The indexed text of one video (subtitles, speech, on-screen text) between two seconds, each line with its seconds, its source, who speaks (the speaker's name, else its label) and the language it is in (ISO 639-1) where known.",
      inputSchema: {
        video: videoField,
        fromSecond: secondField("Start of the range in seconds (default 0)"),
        toSecond: secondField("End of the range in seconds (default the end of the video)"),
      },
      outputSchema: transcriptSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ video: reference, fromSecond, toSecond }) =>
      guarded(async () => {
        if (fromSecond !== undefined && toSecond !== undefined && toSecond < fromSecond) {
          throw new VideoRagError("ARGUMENT_INVALID", `toSecond (${toSecond}) is before fromSecond (${fromSecond})`);
        }
        const { video, segments } = await library.transcript(reference, fromSecond, toSecond);
        // The names given to the labels, read only when some line has a speaker.
        const speakers = segments.some((segment) => segment.speaker) ? (await library.speakers(video.id)).speakers : [];
        const names = Object.fromEntries(speakers.flatMap((speaker) => (speaker.name ? [[speaker.label, speaker.name]] : [])));
        const transcript: Transcript = { videoId: video.id, title: video.title, segments: segments.map((segment) => segmentJson(segment, names)) };
        const range = { fromSecond: fromSecond ?? 0, toSecond: toSecond ?? video.durationSeconds, estimated: video.timesEstimated };
        return result(transcriptText(transcript, range), transcript);
      }),
  );

  server.registerTool(
    "list_chapters",
    {
      title: "List a video's chapters",
      description: "The chapters of one video in order: each with its start and end second, a title and a one-line summary.",
      inputSchema: { video: videoField },
      outputSchema: chaptersResponseSchema,
      // Chapters of a video ingested before chapters existed are made on first asking and kept: not read-only, never destructive.
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ video: reference }) =>
      guarded(async () => {
        const { video, chapters } = await library.chapters(reference);
        const body: Chapters = { videoId: video.id, title: video.title, chapters: chapters.map(chapterJson) };
        return result(chaptersText(body), body);
      }),
  );

  server.registerTool(
    "list_speakers",
    {
      title: "List a video's speakers",
      description:
        "Who speaks in one video, in order of first appearance: each speaker's label, the name a user gave it (if any), seconds of talk, the second they first speak and their first words.",
      inputSchema: { video: videoField },
      outputSchema: speakersResponseSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ video: reference }) =>
      guarded(async () => {
        const { video, speakers } = await library.speakers(reference);
        const body = speakersJson(video, speakers);
        return result(speakersText(body), body);
      }),
  );

  server.registerTool(
    "summarize_video",
    {
      title: "Summarize a video",
      description: "A summary of one video, chapter by chapter, each sentence citing the video and the seconds it comes from.",
      inputSchema: {
        video: videoField,
        length: z.enum(summaryLengths as [SummaryLength, ...SummaryLength[]]).optional().describe("short: a few lines; medium (default): a paragraph; long: a page"),
      },
      outputSchema: summaryResponseSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ video, length }, extra) =>
      guarded(async () => {
        const summary = summaryJson(await library.summarize(video, { length, signal: extra.signal }));
        return result(summaryText(summary), summary);
      }),
  );

  return server;
}

/**
 * Serves the library's tools over stdin and stdout until the client closes stdin (or the process is told to stop).
 * While it runs, stdout carries protocol messages only: whatever else logs there is sent to stderr.
 */
export async function serveMcp(library: Library, options: McpServerOptions): Promise<void> {
  const server = createMcpServer(library, options);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  // Lines the transport could not serve, and failures inside the SDK: the client got its error reply, the operator reads why.
  server.server.onerror = (error) => process.stderr.write(`videorag: mcp: ${error.message.replace(/\s+/g, " ")}\n`);
  const { log, info, debug } = console;
  // A model runtime or a dependency that logs with console.log would corrupt the protocol stream.
  console.log = console.info = console.debug = (...data: unknown[]) => console.error(...data);
  const stop = (): void => void server.close();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    // The transport closes when stdin ends, once the requests already read are answered.
    await server.connect(new StdioLineTransport());
    await closed;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    Object.assign(console, { log, info, debug });
  }
}
