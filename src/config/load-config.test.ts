import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { VideoRagError } from "../spec/index.js";
import { loadConfig } from "./load-config.js";

function folderWith(config: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "videorag-config-"));
  writeFileSync(join(dir, "videorag.config.json"), typeof config === "string" ? config : JSON.stringify(config));
  return dir;
}

function rejects(run: () => unknown, pattern: RegExp): void {
  assert.throws(run, (error: unknown) => VideoRagError.isInstance(error) && error.code === "CONFIG_INVALID" && pattern.test(`${error.subject} ${error.message}`));
}

test("no file and no variables gives the lite defaults", () => {
  const { config, file, variables } = loadConfig({ cwd: mkdtempSync(join(tmpdir(), "videorag-config-")), env: {} });
  assert.equal(file, undefined);
  assert.deepEqual(variables, []);
  assert.equal(config.clipSeconds, 30);
  assert.deepEqual(config.models, {});
  assert.equal(config.runtime.retries, 3);
});

test("a file names a model per stage; the key is only an environment variable name", () => {
  const cwd = folderWith({
    models: {
      llm: { provider: "openai", baseUrl: "http://127.0.0.1:11434/v1", model: "llama3.1" },
      textEmbedder: { provider: "transformers", model: "Xenova/all-MiniLM-L6-v2" },
      detector: { provider: "off" },
    },
  });
  const { config, file } = loadConfig({ cwd, env: {} });
  assert.equal(file, join(cwd, "videorag.config.json"));
  assert.deepEqual(config.models.llm, { provider: "openai", baseUrl: "http://127.0.0.1:11434/v1", model: "llama3.1", apiKeyEnv: "OPENAI_API_KEY", acceptsImages: false });
  assert.deepEqual(config.models.detector, { provider: "off" });
});

test("unknown keys, wrong types and bad JSON are errors naming the file and the key", () => {
  rejects(() => loadConfig({ cwd: folderWith({ clipSecond: 10 }), env: {} }), /videorag\.config\.json.*clipSecond/);
  rejects(() => loadConfig({ cwd: folderWith({ models: { llm: { provider: "openai", model: "x", apikey: "sk" } } }), env: {} }), /models\.llm/);
  rejects(() => loadConfig({ cwd: folderWith({ clipSeconds: "ten" }), env: {} }), /clipSeconds/);
  rejects(() => loadConfig({ cwd: folderWith("{ not json"), env: {} }), /not valid JSON/);
  rejects(() => loadConfig({ file: "/nonexistent/videorag.config.json", env: {} }), /does not exist/);
});

test("environment variables override the file and OPENAI_BASE_URL fills OpenAI entries", () => {
  const cwd = folderWith({ clipSeconds: 20, models: { detector: { provider: "onnx", model: "yolox-nano" } } });
  const { config, variables } = loadConfig({
    cwd,
    env: {
      VIDEORAG_LLM: "openai:qwen2.5",
      VIDEORAG_VISION: "openai:llava",
      VIDEORAG_DETECTOR: "off",
      VIDEORAG_MODELS_DIR: "/models",
      OPENAI_BASE_URL: "http://127.0.0.1:8000/v1",
      OPENAI_API_KEY: "sk-secret",
    },
  });
  assert.equal(config.clipSeconds, 20);
  assert.equal(config.modelsDir, "/models");
  assert.equal(config.models.llm?.provider === "openai" && config.models.llm.baseUrl, "http://127.0.0.1:8000/v1");
  assert.equal(config.models.vision?.provider === "openai" && config.models.vision.acceptsImages, true);
  assert.deepEqual(config.models.detector, { provider: "off" });
  assert.ok(!variables.includes("OPENAI_API_KEY"), "the key is read when a request is sent, not when configuring");
  assert.ok(!JSON.stringify(config).includes("sk-secret"));
});

test("a bad variable is an error naming the variables", () => {
  rejects(() => loadConfig({ cwd: folderWith({}), env: { VIDEORAG_DETECTOR: "magic:thing" } }), /VIDEORAG_DETECTOR.*models\.detector/);
});
