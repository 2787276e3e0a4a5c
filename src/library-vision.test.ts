// A vision-language model over an OpenAI-compatible server (a local one that speaks the protocol): it captions each
// clip from its frames and transcript, the captions become searchable, and it answers with the best clips' frames.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { liteConfig } from "./providers/registry.js";
import { openLibrary, type Library } from "./library.js";
import { needsShared, sharedPath } from "./test-support/shared.js";
import { startOpenAiTestServer, type OpenAiTestServer, type RecordedRequest } from "./test-support/openai-test-server.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-vision-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

type Part = { type: string; text?: string; image_url?: { url: string } };
function partsOf(request: RecordedRequest): Part[] {
  const messages = (request.json.messages ?? []) as { content: string | Part[] }[];
  return messages.flatMap((message) => (typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content));
}
const textOf = (request: RecordedRequest): string => partsOf(request).map((part) => part.text ?? "").join("\n");
const imagesOf = (request: RecordedRequest): string[] => partsOf(request).flatMap((part) => (part.image_url ? [part.image_url.url] : []));

describe("captions and answers from a vision-language model", { skip: needsShared }, () => {
  let server: OpenAiTestServer;
  let library: Library;
  before(async () => {
    server = await startOpenAiTestServer({
      reply: (request) =>
        /frames, in order/.test(textOf(request))
          ? "A man in a suit and a woman talk across a newspaper office desk."
          : "They are in a newspaper office [1].",
    });
    const config = liteConfig();
    config.models.vision = { provider: "openai", baseUrl: server.url, model: "test-vlm", apiKeyEnv: "VIDEORAG_NO_KEY", acceptsImages: true };
    library = await openLibrary({ path: join(scratch, "vision"), config, speech: false, ocr: false });
  });
  after(async () => {
    await library.close();
    await server.close();
  });

  test("each clip is captioned from up to ten JPEG frames plus its transcript, and the caption is searchable", async () => {
    const report = await library.ingest([sharedPath("media/subtitled/friday.mp4")]);
    assert.equal(report.failed, 0, JSON.stringify(report.results));
    assert.match(report.results[0]?.notes.join(" ") ?? "", /captions: 1 clips by openai:test-vlm/);
    const request = server.requests.find((item) => /frames, in order/.test(textOf(item)));
    assert.ok(request, "a caption request was sent");
    const images = imagesOf(request);
    assert.ok(images.length >= 2 && images.length <= 10, `${images.length} frames`);
    assert.ok(images.every((url) => url.startsWith("data:image/jpeg;base64,/9j/")), "JPEG data URLs");
    assert.match(textOf(request), /bad humor/, "the clip's transcript goes with the frames");
    const hits = await library.search("newspaper office desk");
    assert.equal(hits[0]?.title, "friday.mp4");
    assert.ok(hits[0]?.source.includes("caption"));
  });

  test("the vision model answers with the frames of the best clips ('video as context')", async () => {
    const answer = await library.ask("where do the man and the woman talk?", { mode: "naive" });
    assert.match(answer.text, /newspaper office \[friday\.mp4 0:0\d–0:0\d\]/);
    assert.match(answer.profile.summary, /openai:test-vlm answer with frames/);
    const request = server.requests.findLast((item) => /where do the man/.test(textOf(item)));
    assert.ok(request);
    assert.ok(imagesOf(request).length > 0, "frames were given");
  });

  test("in hybrid mode the best moment is re-described for the question from frames chosen for it", async () => {
    const before = server.requests.length;
    const answer = await library.ask("where do the man and the woman talk?");
    assert.match(answer.profile.summary, /1 moments re-described from frames over hybrid mode/);
    const request = server.requests.slice(before).find((item) => /describe a video clip from its frames/.test(textOf(item)));
    assert.ok(request, "a re-description request was sent");
    assert.match(textOf(request), /Keywords: /);
    const images = imagesOf(request);
    // The 6-second clip sampled densely, clustered, and the key frames kept: more than a caption's, at most 15.
    assert.ok(images.length >= 2 && images.length <= 15, `${images.length} frames`);
    assert.ok(images.every((url) => url.startsWith("data:image/jpeg;base64,/9j/")));
  });
});
