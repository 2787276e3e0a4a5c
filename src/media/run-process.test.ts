import assert from "node:assert/strict";
import { test } from "node:test";
import { VideoRagError } from "../spec/index.js";
import { runProcess, setChildProcessNiceness, withChildProcessNiceness } from "./run-process.js";

async function failure(promise: Promise<unknown>): Promise<VideoRagError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(VideoRagError.isInstance(error), `expected a VideoRagError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected the call to fail");
}

test("stdout comes back as bytes and stdin is fed from `input`", async () => {
  const result = await runProcess("cat", [], { input: Buffer.from([0, 1, 2, 255]) });
  assert.deepEqual([...result.stdout], [0, 1, 2, 255]);
  assert.equal(result.exitCode, 0);
});

test("a missing program is TOOL_MISSING with how to install it", async () => {
  const error = await failure(runProcess("videorag-no-such-program", [], { installHint: "apt-get install nothing" }));
  assert.equal(error.code, "TOOL_MISSING");
  assert.equal(error.message, "videorag-no-such-program is not installed (apt-get install nothing)");
});

test("a nonzero exit is TOOL_FAILED quoting the last stderr line", async () => {
  const error = await failure(runProcess("sh", ["-c", "echo first >&2; echo 'the real reason' >&2; exit 3"]));
  assert.equal(error.code, "TOOL_FAILED");
  assert.equal(error.message, "sh failed: the real reason");
});

test("allowFailure hands back the exit code and stderr instead", async () => {
  const result = await runProcess("sh", ["-c", "echo out; echo why >&2; exit 4"], { allowFailure: true });
  assert.equal(result.exitCode, 4);
  assert.equal(result.stdout.toString(), "out\n");
  assert.equal(result.stderr, "why\n");
});

test("aborting kills the program at once and fails with INTERRUPTED", async () => {
  const controller = new AbortController();
  const started = performance.now();
  const running = runProcess("sleep", ["30"], { signal: controller.signal });
  setTimeout(() => controller.abort(), 100);
  const error = await failure(running);
  assert.equal(error.code, "INTERRUPTED");
  assert.ok(performance.now() - started < 5000, "the sleep was not killed");
  assert.equal((await failure(runProcess("sleep", ["30"], { signal: controller.signal }))).code, "INTERRUPTED");
});

test("a program running past its timeout is stopped with a retryable TOOL_FAILED", async () => {
  const started = performance.now();
  const error = await failure(runProcess("sleep", ["30"], { timeoutMs: 200 }));
  assert.equal(error.code, "TOOL_FAILED");
  assert.equal(error.retryable, true);
  assert.match(error.message, /longer than 0\.2 s/);
  assert.ok(performance.now() - started < 5000);
});

test("onStdout streams the output instead of collecting it", async () => {
  const chunks: Buffer[] = [];
  const result = await runProcess("head", ["-c", "300000", "/dev/zero"], { onStdout: (chunk) => chunks.push(chunk) });
  assert.equal(Buffer.concat(chunks).length, 300000);
  assert.equal(result.stdout.length, 0);
});

test("programs started after setChildProcessNiceness run at that niceness; 0 restores normal priority", async () => {
  // The priority is set just after the program starts: the check waits a moment before reading its own niceness.
  const niceness = async (): Promise<string> => (await runProcess("sh", ["-c", "sleep 0.3; nice"])).stdout.toString().trim();
  setChildProcessNiceness(7);
  try {
    assert.equal(await niceness(), "7");
  } finally {
    setChildProcessNiceness(0);
  }
  assert.equal(await niceness(), "0");
});

test("withChildProcessNiceness lowers the programs of the work it runs, across awaits, and of nothing else", async () => {
  const niceness = async (): Promise<string> => (await runProcess("sh", ["-c", "sleep 0.3; nice"])).stdout.toString().trim();
  const [lowered, alongside] = await Promise.all([
    withChildProcessNiceness(10, async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return niceness();
    }),
    niceness(),
  ]);
  assert.equal(lowered, "10", "started after an await inside the work");
  assert.equal(alongside, "0", "work running at the same time outside it keeps normal priority");
  // Nested, the lower priority wins; the thread's own niceness, if lower still, too.
  assert.equal(await withChildProcessNiceness(10, () => withChildProcessNiceness(3, niceness)), "10");
  setChildProcessNiceness(15);
  try {
    assert.equal(await withChildProcessNiceness(10, niceness), "15");
  } finally {
    setChildProcessNiceness(0);
  }
  assert.equal(await niceness(), "0");
});
