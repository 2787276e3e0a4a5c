import assert from "node:assert/strict";
import { test } from "node:test";
import type { ClipDocument } from "../spec/index.js";
import { momentWords } from "./hit-evidence.js";
import { termKeyFor } from "./query-analyzer.js";

const clip = (transcript: string): ClipDocument => ({ videoId: "v", index: 0, startSecond: 0, endSecond: 30, transcript, screen: "", visual: "" });

test("a moment's words match the question's in the question's language: German Häuser finds Haus, English keeps Porter's stems", () => {
  const german = new Set(["häuser"].map(termKeyFor("de")));
  assert.deepEqual(momentWords([clip("Das Haus am Fluss")], german, "de").all, ["haus"]);
  assert.deepEqual(momentWords([clip("Das Haus am Fluss")], new Set(["häuser"].map(termKeyFor(undefined)))).all, []);
  const english = new Set(["replacing"].map(termKeyFor("en")));
  assert.deepEqual(momentWords([clip("He replaced the disc")], english, "en").all, ["replaced"]);
});
