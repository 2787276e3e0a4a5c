// The OpenAPI 3.1 document of the HTTP API, generated from the same zod schemas the routes validate with and the CLI's
// --json prints, so the document cannot drift from what the server does.

import type { z } from "zod";
import { zodToJsonSchema } from "zod-to-json-schema";
import {
  answerSchema,
  askRequestSchema,
  chaptersResponseSchema,
  entityListSchema,
  entitySchema,
  errorBodySchema,
  healthSchema,
  ingestPathsRequestSchema,
  jobCreatedSchema,
  jobListSchema,
  jobSchema,
  renameSpeakerRequestSchema,
  searchRequestSchema,
  searchResponseSchema,
  statusSchema,
  speakersResponseSchema,
  summaryResponseSchema,
  topicsResponseSchema,
  transcriptSchema,
  videoDetailSchema,
  videoListSchema,
} from "../api/index.js";

type JsonObject = Record<string, unknown>;

const schemas: Record<string, z.ZodTypeAny> = {
  Error: errorBodySchema,
  Health: healthSchema,
  Status: statusSchema,
  VideoList: videoListSchema,
  VideoDetail: videoDetailSchema,
  Transcript: transcriptSchema,
  Chapters: chaptersResponseSchema,
  Speakers: speakersResponseSchema,
  RenameSpeakerRequest: renameSpeakerRequestSchema,
  Summary: summaryResponseSchema,
  Topics: topicsResponseSchema,
  SearchRequest: searchRequestSchema,
  SearchResponse: searchResponseSchema,
  AskRequest: askRequestSchema,
  Answer: answerSchema,
  IngestPathsRequest: ingestPathsRequestSchema,
  JobCreated: jobCreatedSchema,
  Job: jobSchema,
  JobList: jobListSchema,
  EntityList: entityListSchema,
  Entity: entitySchema,
};

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string, description = "OK"): JsonObject => ({ description, content: { "application/json": { schema: ref(name) } } });
const errors = (...statuses: number[]): JsonObject =>
  Object.fromEntries(statuses.map((status) => [String(status), json("Error", "Failure: a stable code and a message")]));
const idParameter = { name: "id", in: "path", required: true, schema: { type: "string" }, description: "The video's id (see GET /api/videos)" };
const sse = (description: string): JsonObject => ({ description, content: { "text/event-stream": { schema: { type: "string" } } } });

function operation(summary: string, responses: JsonObject, extra: JsonObject = {}): JsonObject {
  return { summary, ...extra, responses: { ...responses, ...errors(401, 500) } };
}

export function openApiDocument(version: string): JsonObject {
  const components = Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => {
      const { $schema: _schema, ...converted } = zodToJsonSchema(schema, { target: "jsonSchema7", $refStrategy: "none" }) as JsonObject;
      return [name, converted];
    }),
  );
  const body = (name: string): JsonObject => ({ requestBody: { required: true, content: { "application/json": { schema: ref(name) } } } });
  return {
    openapi: "3.1.0",
    info: {
      title: "videorag",
      version,
      description: "Ask questions of a library of videos; answers cite the video and the second.",
    },
    components: {
      schemas: components,
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "Needed when the server was started with a token" } },
    },
    security: [{ bearer: [] }],
    paths: {
      "/api/health": { get: { summary: "Whether the server is up, its version and profile", security: [], responses: { 200: json("Health") } } },
      "/api/status": { get: operation("Deferred work per stage", { 200: json("Status") }) },
      "/api/videos": { get: operation("The videos in the library", { 200: json("VideoList") }) },
      "/api/videos/{id}": {
        get: operation("A video with its sources, clips and pending work", { 200: json("VideoDetail"), ...errors(404) }, { parameters: [idParameter] }),
        delete: operation("Remove a video and everything it contributed", { 200: { description: "Removed" }, ...errors(404) }, { parameters: [idParameter] }),
      },
      "/api/videos/{id}/media": {
        get: operation(
          "The video, with byte ranges; transcoded to H.264/AAC MP4 (once, cached) when a browser cannot play the original",
          { 200: { description: "The whole file" }, 206: { description: "A byte range" }, 416: { description: "Range past the end" }, ...errors(404, 415) },
          { parameters: [idParameter, { name: "Range", in: "header", required: false, schema: { type: "string" } }] },
        ),
      },
      "/api/videos/{id}/frame": {
        get: operation("A JPEG thumbnail at a second (cached)", { 200: { description: "image/jpeg", content: { "image/jpeg": {} } }, ...errors(400, 404, 415) }, {
          parameters: [idParameter, { name: "t", in: "query", required: true, schema: { type: "number", minimum: 0 } }],
        }),
      },
      "/api/videos/{id}/transcript.vtt": {
        get: operation("The indexed text (subtitles, speech, screen text) as WebVTT, who speaks as voice spans (<v Dana>…</v>)", { 200: { description: "text/vtt", content: { "text/vtt": {} } }, ...errors(404) }, {
          parameters: [idParameter],
        }),
      },
      "/api/videos/{id}/transcript": {
        get: operation("The indexed text between two seconds", { 200: json("Transcript"), ...errors(404) }, {
          parameters: [
            idParameter,
            { name: "from", in: "query", required: false, schema: { type: "number" } },
            { name: "to", in: "query", required: false, schema: { type: "number" } },
          ],
        }),
      },
      "/api/videos/{id}/chapters": {
        get: operation("The video's chapters in order: start and end second, title, one-line summary", { 200: json("Chapters"), ...errors(404) }, { parameters: [idParameter] }),
      },
      "/api/videos/{id}/chapters.vtt": {
        get: operation("The video's chapters as WebVTT, for <track kind=\"chapters\">", { 200: { description: "text/vtt", content: { "text/vtt": {} } }, ...errors(404) }, {
          parameters: [idParameter],
        }),
      },
      "/api/videos/{id}/speakers": {
        get: operation("The video's speakers in order of first appearance: label, name, talk time, first second and first words", { 200: json("Speakers"), ...errors(404) }, {
          parameters: [idParameter],
        }),
      },
      "/api/videos/{id}/speakers/{label}": {
        put: operation(
          "Name a speaker of the video (null clears the name); answers with the video's speakers as they are now",
          { 200: json("Speakers"), ...errors(400, 403, 404, 413, 415) },
          {
            parameters: [idParameter, { name: "label", in: "path", required: true, schema: { type: "string" }, description: "The speaker's label, as its segments carry it (\"Speaker 2\")" }],
            ...body("RenameSpeakerRequest"),
          },
        ),
      },
      "/api/videos/{id}/summary": {
        get: operation("A summary of the video, each sentence citing its moment", { 200: json("Summary"), ...errors(400, 404) }, {
          parameters: [
            idParameter,
            { name: "length", in: "query", required: false, schema: { type: "string", enum: ["short", "medium", "long"], default: "medium" }, description: "A few lines, a paragraph or a page" },
          ],
        }),
      },
      "/api/videos/{id}/entities": { get: operation("The graph entities a video mentions", { 200: json("EntityList"), ...errors(404) }, { parameters: [idParameter] }) },
      "/api/topics": { get: operation("The library's topics: its videos grouped by what they say, each group labelled", { 200: json("Topics") }) },
      "/api/search": { post: operation("Ranked moments for a query, in the whole library or the videos named by videoIds, of one speaker when speaker is given", { 200: json("SearchResponse"), ...errors(400, 404, 413) }, body("SearchRequest")) },
      "/api/ask": {
        post: operation(
          "An answer with citations (about the videos named by videoIds, or the whole library); with Accept: text/event-stream, server-sent events moments, preliminary (the answer from what is indexed, when the question needs extraction), extraction, text, citation, done, error",
          { 200: { ...json("Answer"), content: { ...(json("Answer").content as JsonObject), ...(sse("").content as JsonObject) } }, ...errors(400, 404, 413) },
          body("AskRequest"),
        ),
      },
      "/api/ingest": {
        post: operation("Start an ingest job from paths under a media root, or from a multipart upload (fields named file)", { 202: json("JobCreated"), ...errors(400, 403, 404, 413) }, {
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: ref("IngestPathsRequest") },
              "multipart/form-data": {
                schema: {
                  type: "object",
                  properties: {
                    file: { type: "array", items: { type: "string", format: "binary" } },
                    incremental: { type: "string", enum: ["true", "false"] },
                    language: { type: "string", description: "The language the files speak or show (an ISO 639 code such as de), when their subtitles cannot tell it; one that names no language is a 400" },
                  },
                },
              },
            },
          },
        }),
      },
      "/api/jobs": { get: operation("Ingest jobs, newest first", { 200: json("JobList") }) },
      "/api/jobs/{id}": {
        get: operation("An ingest job", { 200: json("Job"), ...errors(404) }, { parameters: [{ ...idParameter, description: "The job's id" }] }),
        delete: operation("Cancel a job (what was committed stays)", { 200: json("Job"), ...errors(404) }, { parameters: [{ ...idParameter, description: "The job's id" }] }),
      },
      "/api/jobs/{id}/events": {
        get: operation("Server-sent events: job (the job as it changes), then end", { 200: sse("The job's progress"), ...errors(404) }, {
          parameters: [{ ...idParameter, description: "The job's id" }],
        }),
      },
      "/api/entities": {
        get: operation("Knowledge-graph entities matching a name", { 200: json("EntityList"), ...errors(400) }, {
          parameters: [{ name: "q", in: "query", required: true, schema: { type: "string" } }],
        }),
      },
      "/api/entities/{key}": {
        get: operation("An entity with its sources and relations", { 200: json("Entity"), ...errors(404) }, {
          parameters: [{ name: "key", in: "path", required: true, schema: { type: "integer" } }],
        }),
      },
    },
  };
}
