// onnxruntime-node leaves no file in the system's temp folder: its built-in telemetry, which writes `.ses` and
// `mat-debug-<pid>.log` there from every process that opens a session, is switched off before it loads.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { needsShared, sharedPath } from "../../test-support/shared.js";

const root = new URL("../../..", import.meta.url).pathname;

test("opening an ONNX session through videorag writes nothing to the temp folder", { skip: needsShared }, () => {
  const temp = mkdtempSync(join(tmpdir(), "videorag-ort-temp-"));
  try {
    const script = `import { loadOnnxRuntime } from ${JSON.stringify(join(root, "src/providers/onnx/onnx-session.ts"))};
      const ort = await loadOnnxRuntime();
      await ort.InferenceSession.create(${JSON.stringify(sharedPath("models/silero_vad.onnx"))});
      console.log("session");`;
    const environment: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temp };
    delete environment.ORT_DISABLE_TELEMETRY;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root, env: environment, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /session/);
    // tsx keeps its compile cache under the temp folder too; only onnxruntime's files are at issue here.
    assert.deepEqual(readdirSync(temp).filter((name) => name === ".ses" || name.startsWith("mat-debug-")), []);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
});
