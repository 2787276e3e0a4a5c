// The model commands as a user runs them: doctor, models list/verify/pull, a configuration file, and an answer streamed
// from a model server.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { startOpenAiTestServer, type OpenAiTestServer } from "../test-support/openai-test-server.js";

const root = new URL("../..", import.meta.url).pathname;
const tsxLoader = new URL("node_modules/tsx/dist/loader.mjs", `file://${root}`).href;
const scratch = mkdtempSync(join(tmpdir(), "videorag-cli-models-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the CLI without blocking this process, so a server in it can answer; `onStdout` sees output as it comes. */
function cli(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; onStdout?: (chunk: string) => void } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", tsxLoader, join(root, "src/cli/run.ts"), ...args], {
      cwd: options.cwd ?? scratch,
      env: { ...process.env, CI: "1", VIDEORAG_MODELS_DIR: "", ...options.env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      options.onStdout?.(chunk);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

test("a configuration file with an unknown key is one CONFIG_INVALID line and exit 2", async () => {
  const cwd = mkdtempSync(join(scratch, "bad-config-"));
  writeFileSync(join(cwd, "videorag.config.json"), JSON.stringify({ models: { llm: { provider: "openai", model: "m", temprature: 0 } } }));
  const result = await cli(["list"], { cwd });
  assert.equal(result.status, 2);
  assert.equal(result.stderr.trim().split("\n").length, 1);
  assert.match(result.stderr, /CONFIG_INVALID.*models\.llm.*temprature.*videorag\.config\.json/);
});

test("models list and verify read the models folder; the ONNX files match their pinned sha256", { skip: needsShared }, async () => {
  const list = await cli(["models", "list", "--models-dir", sharedPath("models")]);
  assert.equal(list.status, 0, list.stderr);
  assert.match(list.stdout, /present\s+yolox-nano\s+detector/);
  assert.match(list.stdout, /present\s+mobilenetv2\s+tagger/);
  assert.match(list.stdout, /missing\s+Xenova\/clip-vit-base-patch32.*without it: /);
  const verify = await cli(["models", "verify", "yolox-nano", "mobilenetv2", "--models-dir", sharedPath("models"), "--json"]);
  assert.equal(verify.status, 0, verify.stderr);
  const report = JSON.parse(verify.stdout) as { models: { name: string; ok: boolean; files: { status: string }[] }[] };
  assert.deepEqual(report.models.map((model) => [model.name, model.ok, model.files.map((file) => file.status)]), [
    ["yolox-nano", true, ["ok", "ok"]],
    ["mobilenetv2", true, ["ok", "ok"]],
  ]);
});

test("models pull without a network names the folder to fill and the fallback", async (t) => {
  const dir = join(scratch, "empty-models");
  // These machines reach only the npm registry: the download fails (at worst after the 30 s stall timeout).
  const result = await cli(["models", "pull", "yolox-nano", "--models-dir", dir]);
  if (result.status === 0) {
    t.diagnostic("this machine can reach GitHub: the model was downloaded and checked");
    assert.match(result.stdout, /yolox-nano: .*downloaded/);
    return;
  }
  assert.match(result.stderr, /MODEL_UNAVAILABLE/);
  assert.ok(result.stderr.includes(dir), result.stderr);
  assert.match(result.stderr, /object words|no object|Until then|fallback/i);
});

describe("with a model server", { skip: needsShared }, () => {
  let server: OpenAiTestServer;
  const cwd = join(scratch, "with-server");
  before(async () => {
    server = await startOpenAiTestServer({ reply: () => "Walter is in a bad humor [1]." });
    rmSync(cwd, { recursive: true, force: true });
    const { mkdirSync } = await import("node:fs");
    mkdirSync(cwd, { recursive: true });
    writeFileSync(
      join(cwd, "videorag.config.json"),
      JSON.stringify({ models: { llm: { provider: "openai", baseUrl: server.url, model: "test-model", apiKeyEnv: "VIDEORAG_TEST_KEY" } } }),
    );
  });
  after(async () => server.close());

  test("doctor names the provider of every stage, reaches the server, and never prints the key", async () => {
    const result = await cli(["doctor", "--models-dir", sharedPath("models")], { cwd, env: { VIDEORAG_TEST_KEY: "sk-test-SECRET" } });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /configuration: .*videorag\.config\.json/);
    assert.match(result.stdout, /ok\s+ffmpeg:/);
    assert.match(result.stdout, /ok\s+objects:\s+yolox-nano/);
    assert.match(result.stdout, /ok\s+answers:\s+openai:test-model[^\n]*\n\s+.*\/v1\/models reachable/);
    assert.match(result.stdout, /text vectors:\s+off \(not configured\)/);
    assert.doesNotMatch(result.stdout + result.stderr, /sk-test-SECRET/);
    assert.equal(server.requests.at(-1)?.headers.authorization, "Bearer sk-test-SECRET");
  });

  test("doctor exits 4 and says why when a configured server cannot be reached; --json gives the same report", async () => {
    const env = { OPENAI_BASE_URL: "http://127.0.0.1:9/v1", VIDEORAG_LLM: "openai:gone" };
    const result = await cli(["doctor"], { cwd, env });
    assert.equal(result.status, 4, result.stderr);
    assert.match(result.stdout, /--\s+answers:\s+openai:gone[^\n]*\n\s+.*cannot connect/);
    assert.match(result.stderr, /^videorag: doctor: a configured stage cannot run as configured: answers \(http:\/\/127\.0\.0\.1:9\/v1\/models: cannot connect/m);
    const json = await cli(["doctor", "--json"], { cwd, env });
    assert.equal(json.status, 4);
    const report = JSON.parse(json.stdout) as { ok: boolean; stages: { stage: string; ok: boolean; required: boolean }[] };
    assert.equal(report.ok, false);
    assert.deepEqual(report.stages.find((stage) => stage.stage === "answers"), { ...report.stages.find((stage) => stage.stage === "answers"), ok: false, required: true });
  });

  test("doctor exits 4 when a model the configuration names is missing, and 0 when only a lite default is", async () => {
    const folder = mkdtempSync(join(tmpdir(), "videorag-doctor-"));
    try {
      writeFileSync(join(folder, "videorag.config.json"), JSON.stringify({ models: { detector: { provider: "onnx", model: "yolox-nano" } } }));
      const empty = join(folder, "no-models");
      const configured = await cli(["doctor", "--models-dir", empty], { cwd: folder });
      assert.equal(configured.status, 4, configured.stdout);
      assert.match(configured.stderr, /objects \(.*yolox-nano is not in/);
      const bare = join(folder, "bare");
      mkdirSync(bare);
      const lite = await cli(["doctor", "--models-dir", empty], { cwd: bare });
      assert.match(lite.stdout, /--\s+objects:/);
      assert.equal(lite.status, 0, lite.stderr);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  test("ask streams the model's answer with resolved citations, then the sources and the provider", async () => {
    const library = join(cwd, "library");
    const ingest = await cli(["ingest", "--library", library, sharedPath("media/subtitled/friday.mp4")], { cwd });
    assert.equal(ingest.status, 0, ingest.stderr);
    assert.match(ingest.stdout, /providers:\n(\s+.*\n)*\s+answers: openai:test-model/);
    const chunks: string[] = [];
    const result = await cli(["ask", "who is in a bad humor?", "--library", library], { cwd, onStdout: (chunk) => chunks.push(chunk) });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^Walter is in a bad humor \[friday\.mp4 0:03–0:04\]\.\n/);
    assert.match(result.stdout, /Sources:\n\s+1\. \[friday\.mp4 0:03–0:04\]/);
    assert.match(result.stdout, /\(openai:test-model answer over hybrid mode: bm25\+graph retrieval; \d+ ms\)/);
    // This server answers every request in prose, so the JSON rewrites fall back to the question's words, visibly.
    assert.match(result.stdout, /warning: openai:test-model failed \(MODEL_OUTPUT_INVALID\); the question's own words were used/);
    const naive = await cli(["ask", "who is in a bad humor?", "--mode", "naive", "--library", library], { cwd });
    assert.match(naive.stdout, /\(openai:test-model answer over naive mode: bm25 retrieval; \d+ ms\)/);
    assert.doesNotMatch(naive.stdout, /warning/);
  });
});
