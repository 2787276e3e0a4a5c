// Which videos a question names, and what it asks for.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Video } from "../spec/index.js";
import { namedVideos, questionIntent } from "./question-intent.js";

const video = (id: string, title: string): Video =>
  Object.freeze({ id, path: `/v/${title}`, title, durationSeconds: 60, kind: "media", sizeBytes: 1, hasAudio: true, hasVideo: true, timesEstimated: false, ingestedAt: "2026-11-26T00:00:00Z", clipCount: 2 });

const library = [
  video("bread", "sourdough_bread.mp4"),
  video("bread2", "Bread Baking Basics.mkv"),
  video("sqlite", "sqlite-internals-talk.mp4"),
  video("garden", "spring garden tour 2024.mp4"),
];

test("a question names a video by all of its title's words, or by half of them with a word that means a video", () => {
  const named = (question: string) => namedVideos(question, library).map((entry) => entry.id);
  assert.deepEqual(named("how long does the sourdough bread rest?"), ["bread"], "every title word, stemmed");
  assert.deepEqual(named("in the spring garden tour, which flowers?"), ["garden"], "numbers and the extension are not title words");
  assert.deepEqual(named("what does the garden video show?"), [], "a third of the title is not enough");
  assert.deepEqual(named("in the sqlite video, what is a page?"), ["sqlite"], "half the title with 'video'");
  assert.deepEqual(named("what is a page in sqlite?"), [], "half the title without a word for a video");
  assert.deepEqual(named("the bread video?"), ["bread"], "half of 'sourdough bread' with 'video'; a third of 'bread baking basics' is not enough");
  assert.deepEqual(named("compare the bread baking basics video and the sourdough video"), ["bread2"], "the best-named wins: all its words against half");
  assert.deepEqual(named("how do I bake?"), []);
  // The same objects asked again (a kept video list) give the same answer; a new list is read anew.
  assert.deepEqual(named("how long does the sourdough bread rest?"), ["bread"]);
  const grown = [video("rye", "sourdough rye bread.mp4"), ...library];
  assert.deepEqual(namedVideos("how long does the sourdough rye bread rest?", grown).map((entry) => entry.id), ["rye"], "a video added to the list");
  const renamed = [video("bread", "focaccia.mp4"), ...library.slice(1)];
  assert.deepEqual(namedVideos("how long does the sourdough bread rest?", renamed).map((entry) => entry.id), [], "the same id with another title");
  assert.deepEqual(namedVideos("the focaccia video", renamed).map((entry) => entry.id), ["bread"]);
  assert.deepEqual(namedVideos("the bread basics video", [...library].reverse()).map((entry) => entry.id), ["bread2"], "the list's order");
});

test("the intent of a question picks the answer's strategy", () => {
  assert.equal(questionIntent("how do I replace the brake pads?"), "procedure");
  assert.equal(questionIntent("how many times does he say budget?"), "enumeration");
  assert.equal(questionIntent("what is this video about?"), "overview");
  assert.equal(questionIntent("what colour is the car?"), "fact");
});
