import assert from "node:assert/strict";
import { test } from "node:test";
import { speakerReference } from "./speaker-reference.js";

test("a question about what someone said names the speaker and keeps what it asks about", () => {
  assert.deepEqual(speakerReference("what did Dana say about the budget?"), { name: "Dana", asksWho: false, rest: "what about the budget" });
  assert.equal(speakerReference("What did the manager say about hiring?")?.name, "the manager");
  assert.equal(speakerReference("according to Dana, when is the launch?")?.name, "Dana");
  assert.equal(speakerReference("Dana Scully said what about aliens?")?.name, "Dana Scully");
  assert.equal(speakerReference("what does Ravi think of the plan?")?.name, "Ravi");
});

test("ordinal and numbered speakers become labels", () => {
  assert.equal(speakerReference("according to the second speaker, what went wrong?")?.name, "Speaker 2");
  assert.equal(speakerReference("what did speaker 3 say about costs")?.name, "Speaker 3");
});

test("'who said …' asks for the speaker", () => {
  assert.deepEqual(speakerReference("who suggested Postgres?"), { asksWho: true, rest: "Postgres" });
  assert.deepEqual(speakerReference("Who said the budget is too small?"), { asksWho: true, rest: "the budget is too small" });
});

test("questions that name no speaker have no reference", () => {
  for (const question of ["how do I bake bread?", "what is the sqlite talk about?", "what did they say about the budget?", "why not pgvector?", "what did the video say about yeast?"]) {
    assert.equal(speakerReference(question), undefined, question);
  }
});
