// The language a transcription server reports hearing, as ISO 639-1: from a Whisper-class server that speaks the real
// protocol (verbose_json's `language`), and from every way servers name it.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { sendJson, startOpenAiTestServer } from "../../test-support/openai-test-server.js";
import { writeSpeechWav } from "../lite/lite-diarizer-conversation.js";
import { createOpenAiTranscriber } from "./openai-transcriber.js";
import { reportedLanguage } from "./whisper-language-names.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-heard-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Two seconds of 16 kHz mono 16-bit silence: the test server transcribes any audio as the same sentence. */
async function silentWav(): Promise<string> {
  const path = join(scratch, "silence.wav");
  await writeSpeechWav(path, new Float32Array(32_000));
  return path;
}

test("a Whisper-class server's detected language comes back as ISO 639-1; the one asked for comes back as asked", async () => {
  // OpenAI's verbose_json names the language it detected in English: "german".
  const server = await startOpenAiTestServer({ heardLanguage: "german" });
  const wavPath = await silentWav();
  try {
    const transcriber = createOpenAiTranscriber({ baseUrl: server.url, model: "test-model", apiKey: () => "sk-test" });
    const heard = await transcriber.transcribe(wavPath);
    assert.equal(heard.language, "de");
    assert.ok(heard.segments.length > 0);
    assert.equal(server.requests[0]?.form?.fields.language, undefined, "nothing was asked: the server detected it");
    assert.equal((await transcriber.transcribe(wavPath, { language: "fr" })).language, "fr", "asked in French, heard in French");
    // A reply without a language (a server that does not say) has none.
    server.script((_request, response) => sendJson(response, 200, { text: "hallo", segments: [{ start: 0, end: 1, text: "hallo" }] }));
    assert.ok(!("language" in (await transcriber.transcribe(wavPath))));
  } finally {
    await server.close();
  }
});

test("servers' names for a language: Whisper's names and aliases, codes, tags; none for what has no ISO 639-1 code", () => {
  const cases: [string | null | undefined, string | undefined][] = [
    ["german", "de"],
    ["English", "en"],
    ["haitian creole", "ht"],
    ["castilian", "es"],
    ["cantonese", "zh"],
    ["de", "de"],
    ["yue", "zh"],
    ["jw", "jv"],
    ["pt-BR", "pt"],
    ["hawaiian", undefined],
    ["haw", undefined],
    ["klingon", undefined],
    ["", undefined],
    [null, undefined],
    [undefined, undefined],
  ];
  for (const [reported, expected] of cases) assert.equal(reportedLanguage(reported), expected, String(reported));
});
