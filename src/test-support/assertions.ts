// Assertions shared by the tests.
import assert from "node:assert/strict";
import { VideoRagError } from "../spec/index.js";

/** Asserts that `promise` rejects with a VideoRagError of `code` and returns it. */
export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<VideoRagError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(VideoRagError.isInstance(error), `expected a VideoRagError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected ${code}, but it resolved`);
}
