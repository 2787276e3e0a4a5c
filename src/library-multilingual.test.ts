// Across languages with a multilingual text embedder: an English question finds a German moment that shares none of
// its words, through the dense retriever. Real multilingual weights (Xenova/multilingual-e5-small) cannot be fetched
// here, so the model folder holds a stand-in with the same files and graph signature whose table gives a word and its
// translation one row: every step the real model takes is taken, and only the vectors are made up.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { liteConfig } from "./providers/registry.js";
import { writeTestSentenceModel } from "./providers/transformers/test-models.js";
import { openLibrary, type Library } from "./library.js";
import { needsFfmpeg } from "./test-support/meeting.js";

const model = "Xenova/multilingual-e5-small";
/** Words and their German translations, one row of the stand-in's table each. */
const concepts = [
  ["lighthouse", "leuchtturm"],
  ["keeper", "wärter"],
  ["lamp", "lampe"],
  ["storm", "sturm"],
  ["bay", "bucht"],
  ["ships", "schiffe"],
  ["harbour", "hafen"],
  ["bread", "brot"],
  ["oven", "ofen"],
  ["flour", "mehl"],
];

describe("an English question finds a German moment through a multilingual embedder", { skip: needsFfmpeg }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "videorag-multilingual-"));
  let library: Library;
  /** A 12-second still picture (of its own colour: two files of one picture are one video) with `lines` as its sidecar SRT. */
  const video = (name: string, colour: string, lines: string[]): string => {
    const folder = join(scratch, name);
    mkdirSync(folder);
    const path = join(folder, `${name}.mp4`);
    const made = spawnSync("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", `color=c=${colour}:s=160x120:r=2:d=12`, "-pix_fmt", "yuv420p", path]);
    assert.equal(made.status, 0, String(made.stderr));
    const cue = (line: string, index: number) => `${index + 1}\n00:00:${String(index * 4).padStart(2, "0")},000 --> 00:00:${String(index * 4 + 3).padStart(2, "0")},000\n${line}\n`;
    writeFileSync(join(folder, `${name}.srt`), lines.map(cue).join("\n"));
    return path;
  };
  before(async () => {
    const modelsDir = join(scratch, "models");
    await writeTestSentenceModel(modelsDir, model, 384, concepts);
    const config = liteConfig();
    config.modelsDir = modelsDir;
    config.allowDownloads = false;
    config.models.textEmbedder = { provider: "transformers", model };
    library = await openLibrary({ path: join(scratch, "library"), config, ocr: false, visual: false });
    const report = await library.ingest([
      video("kueste", "navy", ["Der Leuchtturm Wärter zündet die Lampe an", "Ein Sturm zieht über die Bucht", "Die Schiffe warten im Hafen"]),
      video("baeckerei", "wheat", ["Das Brot kommt in den heißen Ofen", "Zuerst wird das Mehl gesiebt", "Der Teig ruht eine Stunde"]),
    ]);
    assert.equal(report.failed, 0, JSON.stringify(report.results));
    assert.ok(report.providers?.includes(`text vectors: transformers:${model} (transformers.js)`), report.providers?.join("; "));
  });
  after(async () => {
    await library?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test("the German videos are German; the English question shares no word with them and still finds its moment", async () => {
    assert.deepEqual((await library.list()).map((entry) => entry.language), ["de", "de"]);
    const [hit] = await library.search("where do the ships wait during a storm in the bay?");
    assert.equal(hit?.title, "kueste.mp4", JSON.stringify(hit));
    assert.ok(hit.provenance?.some((found) => found.retriever.startsWith("dense")), JSON.stringify(hit.provenance));
    const [baking] = await library.search("bread in the oven");
    assert.equal(baking?.title, "baeckerei.mp4", JSON.stringify(baking));
  });

  test("the answer cites the German line", async () => {
    const answer = await library.ask("what does the lighthouse keeper do with the lamp?");
    assert.equal(answer.citations[0]?.title, "kueste.mp4", answer.text);
    assert.match(answer.text, /Leuchtturm/);
  });
});
