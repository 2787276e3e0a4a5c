// The background extraction of what questions leave for later: one clip at a time a lane, never while a question
// extracts, a clip queued once with every stage asked of it, lanes side by side on different videos, and closing
// abandons the clip running and drops the rest.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runProcess } from "../media/index.js";
import { backgroundNiceness, createBackgroundExtraction } from "./background-extraction.js";

const clip = (clipIndex: number) => ({ videoId: "v", clipIndex });

/** An extractor whose calls are recorded and each finish when the test says so. */
function manualExtractor() {
  const calls: { clips: number[]; stages: string[]; finish: () => void; signal: AbortSignal }[] = [];
  let called: (() => void) | undefined;
  const extract = (clips: { clipIndex: number }[], stages: string[], signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ clips: clips.map((entry) => entry.clipIndex), stages, finish: resolve, signal });
      signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
      called?.();
    });
  const nextCall = (): Promise<void> => new Promise((resolve) => (called = resolve));
  return { calls, extract, nextCall };
}

/** Background extraction with clips 1 and 2 queued and clip 1 running; the errors it reports are kept. */
async function runningFirstOfTwo() {
  const extractor = manualExtractor();
  const errors: string[] = [];
  const background = createBackgroundExtraction(extractor.extract, (message) => errors.push(message));
  const started = extractor.nextCall();
  background.add([clip(1), clip(2)], ["speech"]);
  await started;
  return { ...extractor, errors, background };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A question extracting in the foreground (or, `planning`, between its steps) until `finish` is called; `done` settles
 * after.
 */
function holdQuestion(background: ReturnType<typeof createBackgroundExtraction>, planning = false): { finish: () => void; done: Promise<void> } {
  let finish: () => void = () => undefined;
  const work = () => new Promise<void>((resolve) => (finish = resolve));
  const done = planning ? background.hold(work) : background.foreground(work);
  return { finish: () => finish(), done };
}

test("clips are extracted one at a time, each once, and never while a question extracts", async () => {
  const { calls, extract, nextCall } = manualExtractor();
  const background = createBackgroundExtraction(extract);
  // A question is extracting when the leftovers arrive: nothing starts until it ends.
  const question = holdQuestion(background);
  background.add([clip(3), clip(4)], ["speech"]);
  background.add([clip(4), clip(5)], ["speech"]);
  assert.equal(background.queued, 3, "clip 4 queued once");
  // A question that heard clip 3 leaves its pictures: the queued clip gains them, once.
  background.add([clip(3)], ["speech", "screen-text"]);
  assert.equal(background.queued, 3);
  await tick();
  assert.equal(calls.length, 0, "waits for the question");
  const first = nextCall();
  question.finish();
  await question.done;
  await first;
  assert.deepEqual(calls.map((call) => call.clips), [[3]]);
  assert.deepEqual(calls[0]?.stages, ["speech", "screen-text"]);
  // Another question plans while clip 3 runs: clip 3 goes on, clip 4 waits for it.
  const second = holdQuestion(background, true);
  calls[0]?.finish();
  await tick();
  await tick();
  assert.equal(calls.length, 1, "clip 4 waits for the second question");
  const next = nextCall();
  second.finish();
  await second.done;
  await next;
  assert.deepEqual(calls.map((call) => call.clips), [[3], [4]]);
  calls[1]?.finish();
  const last = nextCall();
  await last;
  calls[2]?.finish();
  await background.idle();
  assert.deepEqual(calls.map((call) => call.clips), [[3], [4], [5]]);
  assert.equal(background.queued, 0);
});

test("a question's step abandons the clip running, which goes first once the question ends", async () => {
  const { calls, nextCall, errors, background } = await runningFirstOfTwo();
  const question = holdQuestion(background);
  assert.equal(calls[0]?.signal.aborted, true, "the clip running was told to stop");
  // The question's plan leaves clip 1's pictures for later too: queued once, with both.
  background.add([clip(1)], ["visual"]);
  await tick();
  assert.equal(calls.length, 1, "nothing starts while the question extracts");
  assert.equal(background.queued, 2, "clip 1 is queued again");
  const next = nextCall();
  question.finish();
  await question.done;
  await next;
  assert.deepEqual(calls[1]?.clips, [1], "the abandoned clip first");
  assert.deepEqual(calls[1]?.stages, ["speech", "visual"]);
  assert.deepEqual(errors, [], "yielding is not an error");
  calls[1]?.finish();
  const last = nextCall();
  await last;
  calls[2]?.finish();
  await background.idle();
  assert.deepEqual(calls.map((call) => call.clips), [[1], [1], [2]]);
  await background.close();
});

test("closing abandons the clip running and drops the queue", async () => {
  const { calls, errors, background } = await runningFirstOfTwo();
  await background.close();
  assert.equal(calls[0]?.signal.aborted, true, "the running clip was told to stop");
  assert.equal(calls.length, 1, "the queued clip never started");
  assert.deepEqual(errors, [], "a stop is not an error");
  background.add([clip(3)], ["speech"]);
  await tick();
  assert.equal(calls.length, 1, "nothing is queued after close");
});

test("a failing clip is reported and the rest go on", async () => {
  const errors: string[] = [];
  const done: number[] = [];
  const background = createBackgroundExtraction(async (clips) => {
    if (clips[0]?.clipIndex === 1) throw new Error("decoder crashed");
    done.push(clips[0]?.clipIndex ?? -1);
  }, (message) => errors.push(message));
  background.add([clip(1), clip(2)], ["speech"]);
  await background.idle();
  assert.deepEqual(done, [2]);
  assert.equal(errors.length, 1);
  assert.match(errors[0] ?? "", /clip 1 of v: decoder crashed/);
});

test("the programs a background clip starts run at lower priority; a question's programs do not", async () => {
  const niceness = async (): Promise<string> => (await runProcess("sh", ["-c", "sleep 0.3; nice"])).stdout.toString().trim();
  const seen: string[] = [];
  const background = createBackgroundExtraction(async () => {
    seen.push(await niceness());
  });
  // The leftovers are queued from inside a question, as the answer pipeline queues them.
  assert.equal(
    await background.foreground(async () => {
      background.add([clip(1)], ["speech"]);
      return niceness();
    }),
    "0",
  );
  await background.idle();
  assert.deepEqual(seen, [String(backgroundNiceness)]);
  await background.close();
});

test("in lanes: clips of two videos run side by side, one video's clips in one call, never two lanes on one video", async () => {
  const { calls, extract, nextCall } = manualExtractor();
  const background = createBackgroundExtraction(extract, undefined, { lanes: 2 });
  const of = (videoId: string, clipIndex: number) => ({ videoId, clipIndex });
  const question = holdQuestion(background);
  background.add([of("a", 1), of("a", 2), of("b", 1), of("a", 3)], ["speech"]);
  question.finish();
  await question.done;
  await tick();
  await tick();
  // Another video waits, so each lane takes one clip: a's first and b's.
  assert.deepEqual(calls.map((call) => call.clips), [[1], [1]], "both lanes busy");
  // b's lane ends; only a's clips wait and a lane is on a: it takes none of them.
  calls[1]?.finish();
  await tick();
  await tick();
  assert.equal(calls.length, 2, "no second lane on video a");
  // a's lane ends: no other video waits and both lanes are free, so a's two clips go in one call.
  const next = nextCall();
  calls[0]?.finish();
  await next;
  assert.deepEqual(calls[2]?.clips, [2, 3]);
  calls[2]?.finish();
  await background.idle();
  assert.equal(background.queued, 0);
  assert.equal(calls.length, 3);
  await background.close();
});
