// The question queue in front of the server's question threads: first come first served, at most two questions a
// thread, an ask's place given back once its moments are found, a cancelled question leaving the queue unstarted.

import assert from "node:assert/strict";
import { test } from "node:test";
import { QuestionQueue } from "./library-threads.js";

/** A stand-in thread: what the queue reads of one (`taken`, `load`), and the questions it was given, by name. */
function thread(name: string, load = 0) {
  return { name, taken: 0, load, given: [] as string[] };
}

/** A question that runs until `finish` is called; `started` says on which thread. */
function question() {
  let finish: (value: string) => void = () => undefined;
  const done = new Promise<string>((resolve) => (finish = resolve));
  return { finish, done };
}

test("questions go first come first served to the thread with the fewest, at most two a thread", async () => {
  const threads = [thread("a"), thread("b")];
  const queue = new QuestionQueue(threads);
  const work = Array.from({ length: 6 }, question);
  const results = work.map((entry, index) =>
    queue.run(undefined, async (on) => {
      on.given.push(`q${index}`);
      return entry.done;
    }),
  );
  assert.deepEqual(threads.map((on) => on.given), [["q0", "q2"], ["q1", "q3"]], "two each; the rest wait");
  // b's first one finishes: the next waiting question goes to b, wherever it was sent before.
  (work[1] as { finish(value: string): void }).finish("one");
  assert.equal(await results[1], "one");
  assert.deepEqual(threads.map((on) => on.given), [["q0", "q2"], ["q1", "q3", "q4"]]);
  for (const entry of work) entry.finish("done");
  await Promise.all(results);
  assert.deepEqual(threads.map((on) => on.given.length).reduce((sum, count) => sum + count), 6);
  assert.deepEqual(threads.map((on) => on.taken), [0, 0], "every place given back");
});

test("an ask's place is given back once its moments are found, before its answer is written", async () => {
  const only = thread("a");
  const queue = new QuestionQueue([only]);
  const asks = [question(), question()];
  let releaseFirst: () => void = () => undefined;
  const first = queue.run(undefined, async (_on, release) => {
    releaseFirst = release;
    return (asks[0] as { done: Promise<string> }).done;
  });
  const second = queue.run(undefined, async () => (asks[1] as { done: Promise<string> }).done);
  let searched = false;
  const search = queue.run(undefined, async () => {
    searched = true;
    return "hits";
  });
  assert.equal(searched, false, "two questions on the one thread: the search waits");
  releaseFirst();
  assert.equal(await search, "hits", "the first ask's moments were found: the search runs while its answer is written");
  releaseFirst();
  assert.equal(only.taken, 1, "releasing twice gives back one place");
  for (const entry of asks) entry.finish("answer");
  assert.deepEqual(await Promise.all([first, second]), ["answer", "answer"]);
  assert.equal(only.taken, 0);
});

test("a question cancelled while it waits leaves the queue and never starts; one that failed frees its place", async () => {
  const only = thread("a");
  const queue = new QuestionQueue([only]);
  const held = [question(), question()];
  const running = held.map((entry) => queue.run(undefined, async () => entry.done));
  const controller = new AbortController();
  let started = false;
  const waiting = queue.run(controller.signal, async () => {
    started = true;
    return "never";
  });
  controller.abort(new Error("the client went away"));
  await assert.rejects(waiting, /the client went away/);
  const failing = queue.run(undefined, async () => {
    throw new Error("the thread failed it");
  });
  (held[0] as { finish(value: string): void }).finish("done");
  await assert.rejects(failing, /the thread failed it/);
  (held[1] as { finish(value: string): void }).finish("done");
  await Promise.all(running);
  assert.equal(started, false);
  assert.equal(only.taken, 0);
  await assert.rejects(queue.run(AbortSignal.abort(new Error("already gone")), async () => "no"), /already gone/);
});

test("a thread that stopped gets no question while another runs; when all stopped, questions fail at once", async () => {
  const stopped = thread("stopped", Number.POSITIVE_INFINITY);
  const alive = thread("alive");
  const queue = new QuestionQueue([stopped, alive]);
  await queue.run(undefined, async (on) => on.given.push("q0"));
  assert.deepEqual([stopped.given, alive.given], [[], ["q0"]]);
  alive.load = Number.POSITIVE_INFINITY;
  const outcomes = await Promise.allSettled([1, 2, 3].map(() => queue.run(undefined, async (on) => on.name)));
  assert.deepEqual(outcomes.map((outcome) => outcome.status), ["fulfilled", "fulfilled", "fulfilled"], "given to a stopped thread, which fails them itself");
});
